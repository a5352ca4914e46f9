/**
 * JSON-RPC 2.0 to a Midnight node (`networks.<n>.nodeRpc`) over HTTP (one keep-alive pool) or a
 * WebSocket (one socket, requests matched by id, opened again on the next call after it closes).
 * Every call has a deadline and a cap on the answer; a hosted provider's credentials go in the
 * headers of each request (HTTP) or of the upgrade (WebSocket). Messages never quote the URL: it
 * may carry credentials, and they reach public answers.
 */
import { Pool, WebSocket } from 'undici';
import { GatewayError } from '../../core/errors.js';
import { describe, readCapped, TIMEOUT_CODES } from '../indexer/upstream-body.js';

interface JsonRpcOptions {
  timeoutMs: number;
  /** Sent with every request: a hosted provider's credentials. Secrets. */
  headers?: Readonly<Record<string, string>>;
  /** Answers above this are refused. */
  maxResponseBytes?: number;
}

/** The node answered with a JSON-RPC error object. */
export class JsonRpcError extends Error {
  override name = 'JsonRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

/**
 * The provider turned the request away before the node saw it: credentials refused (401/403), the
 * endpoint retired (410), or over the provider's quota (429). A JSON-RPC error is not one of these.
 */
export class RpcHttpError extends Error {
  override name = 'RpcHttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

const DEFAULT_MAX_RESPONSE = 1 << 20;

interface Envelope {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

function settle(body: unknown): unknown {
  const env = body as Envelope | null;
  if (!env || typeof env !== 'object') throw new GatewayError('NODE_BAD_RESPONSE', 'The node answered with something that is not JSON-RPC');
  if (env.error && typeof env.error === 'object') {
    const code = typeof env.error.code === 'number' ? env.error.code : 0;
    throw new JsonRpcError(code, typeof env.error.message === 'string' ? env.error.message : 'error', env.error.data);
  }
  if (!('result' in env)) throw new GatewayError('NODE_BAD_RESPONSE', 'The node answered with neither a result nor an error');
  return env.result;
}

export interface JsonRpc {
  call(method: string, params: unknown[]): Promise<unknown>;
  close(): Promise<void>;
  readonly transport: 'http' | 'ws';
}

export function jsonRpc(url: string, opts: JsonRpcOptions): JsonRpc {
  return /^wss?:/.test(url) ? new WsJsonRpc(url, opts) : new HttpJsonRpc(url, opts);
}

class HttpJsonRpc implements JsonRpc {
  readonly transport = 'http';
  private readonly pool: Pool;
  private readonly path: string;
  private nextId = 1;

  constructor(
    url: string,
    private readonly opts: JsonRpcOptions,
  ) {
    const u = new URL(url);
    this.path = `${u.pathname}${u.search}`;
    this.pool = new Pool(u.origin, {
      connections: 4,
      keepAliveTimeout: 30_000,
      connect: { timeout: opts.timeoutMs },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  }

  async call(method: string, params: unknown[]): Promise<unknown> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
    let res;
    try {
      res = await this.pool.request({
        path: this.path,
        method: 'POST',
        headers: { ...this.opts.headers, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if ((code && TIMEOUT_CODES.has(code)) || (err as Error).name === 'TimeoutError')
        throw new GatewayError('NODE_UNAVAILABLE', `The node did not answer ${method} within ${this.opts.timeoutMs} ms`);
      throw new GatewayError('NODE_UNAVAILABLE', `The node could not be reached (${describe(err)})`);
    }
    const cap = this.opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE;
    const text = await readCapped(
      res.body,
      cap,
      res.headers['content-length'],
      () => new GatewayError('NODE_BAD_RESPONSE', `The node's answer to ${method} exceeds ${cap} bytes`),
    );
    if (res.statusCode === 401 || res.statusCode === 403 || res.statusCode === 410 || res.statusCode === 429) {
      const retry = Number(res.headers['retry-after']);
      throw new RpcHttpError(res.statusCode, text.slice(0, 200), Number.isFinite(retry) ? retry : undefined);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new GatewayError('NODE_BAD_RESPONSE', `The node answered ${method} with HTTP ${res.statusCode} and no JSON`);
    }
    return settle(parsed);
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

interface Waiting {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: NodeJS.Timeout;
}

class WsJsonRpc implements JsonRpc {
  readonly transport = 'ws';
  private ws: WebSocket | undefined;
  private opened: Promise<WebSocket> | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly opts: JsonRpcOptions,
  ) {}

  private connect(): Promise<WebSocket> {
    if (this.opened) return this.opened;
    this.opened = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(this.url, { headers: { ...this.opts.headers } });
      const timer = setTimeout(() => {
        reject(new GatewayError('NODE_UNAVAILABLE', `The node's WebSocket did not open within ${this.opts.timeoutMs} ms`));
        ws.close();
      }, this.opts.timeoutMs);
      timer.unref();
      ws.addEventListener('open', () => {
        clearTimeout(timer);
        this.ws = ws;
        resolve(ws);
      });
      ws.addEventListener('message', (ev) => this.onMessage(ev.data));
      ws.addEventListener('error', () => undefined);
      ws.addEventListener('close', (ev) => {
        clearTimeout(timer);
        const why = new GatewayError('NODE_UNAVAILABLE', `The node's WebSocket closed (${ev.code}${ev.reason ? ` ${ev.reason.slice(0, 100)}` : ''})`);
        reject(why);
        this.ws = undefined;
        this.opened = undefined;
        for (const [id, w] of this.waiting) {
          clearTimeout(w.timer);
          w.reject(why);
          this.waiting.delete(id);
        }
      });
    });
    return this.opened;
  }

  private onMessage(data: unknown): void {
    const text = typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer).toString('utf8');
    if (text.length > (this.opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE)) return;
    let msg: Envelope;
    try {
      msg = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    if (typeof msg.id !== 'number') return;
    const w = this.waiting.get(msg.id);
    if (!w) return;
    this.waiting.delete(msg.id);
    clearTimeout(w.timer);
    try {
      w.resolve(settle(msg));
    } catch (err) {
      w.reject(err);
    }
  }

  async call(method: string, params: unknown[]): Promise<unknown> {
    if (this.closed) throw new GatewayError('NODE_UNAVAILABLE', 'The node client is closed');
    const ws = await this.connect();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new GatewayError('NODE_UNAVAILABLE', `The node did not answer ${method} within ${this.opts.timeoutMs} ms`));
      }, this.opts.timeoutMs);
      timer.unref();
      this.waiting.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.ws?.close();
  }
}
