/**
 * A small client of the `graphql-transport-ws` protocol (the indexer's WebSocket subprotocol,
 * github.com/enisdenjo/graphql-ws PROTOCOL.md) over undici's WebSocket:
 * connection_init → connection_ack, then subscribe / next / error / complete per operation id,
 * ping ↔ pong in both directions. One connection multiplexes any number of subscriptions.
 * Error messages never quote the URL: they reach public answers, and the URL may carry credentials.
 */
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'undici';
import { GatewayError } from '../../core/errors.js';
import type { UpstreamCredentials } from '../../core/config/index.js';
import type { GqlDocument } from './document.js';

export const SUBPROTOCOL = 'graphql-transport-ws';

interface SubscriptionSink {
  /** One `next` payload's `data`. */
  next(data: Record<string, unknown>): void;
  error(err: GatewayError): void;
  complete(): void;
}

interface WsConnectionOptions {
  /** How long the server may take to open and acknowledge the connection. */
  ackTimeoutMs: number;
  /** We ping this often; a connection silent for three periods is declared dead. */
  keepAliveMs?: number;
  /** The connection is acknowledged and usable. */
  onReady?(): void;
  /** The connection ended: `err` says why, undefined when we closed it ourselves. */
  onClose?(err: GatewayError | undefined): void;
  /** A hosted provider's credentials: headers of the upgrade, and the connection_init payload. */
  credentials?: UpstreamCredentials;
}

type ServerMessage =
  | { type: 'connection_ack' | 'ping' | 'pong' }
  | { type: 'next'; id: string; payload: { data?: unknown; errors?: Array<{ message?: string }> } }
  | { type: 'error'; id: string; payload: Array<{ message?: string }> }
  | { type: 'complete'; id: string };

export class GraphqlWsConnection {
  private readonly ws: WebSocket;
  private readonly sinks = new Map<string, SubscriptionSink>();
  private readonly pending: string[] = [];
  private acked = false;
  private ended = false;
  private nextId = 1;
  private lastHeard = performance.now();
  private readonly ackTimer: NodeJS.Timeout;
  private readonly keepAlive: NodeJS.Timeout | undefined;

  constructor(
    readonly url: string,
    private readonly opts: WsConnectionOptions,
  ) {
    const creds = opts.credentials;
    this.ws = creds ? new WebSocket(url, { protocols: SUBPROTOCOL, headers: { ...creds.headers } }) : new WebSocket(url, SUBPROTOCOL);
    this.ws.addEventListener('open', () => this.send({ type: 'connection_init', payload: { ...creds?.initPayload } }));
    this.ws.addEventListener('message', (ev) => this.onMessage(ev.data));
    this.ws.addEventListener('close', (ev) =>
      this.end(new GatewayError('INDEXER_UNAVAILABLE', `The indexer subscription closed (${ev.code}${ev.reason ? ` ${ev.reason}` : ''})`)),
    );
    this.ackTimer = setTimeout(
      () => this.fail(new GatewayError('INDEXER_TIMEOUT', `The indexer did not acknowledge the subscription connection within ${opts.ackTimeoutMs} ms`)),
      opts.ackTimeoutMs,
    );
    this.ackTimer.unref();
    const every = opts.keepAliveMs;
    if (every) {
      this.keepAlive = setInterval(() => {
        if (performance.now() - this.lastHeard > 3 * every) this.fail(new GatewayError('INDEXER_TIMEOUT', `The indexer subscription went silent`));
        else if (this.acked) this.send({ type: 'ping' });
      }, every);
      this.keepAlive.unref();
    }
  }

  get ready(): boolean {
    return this.acked && !this.ended;
  }

  /** Start an operation; returns a function that stops it (sends `complete`). */
  subscribe(document: GqlDocument, variables: Record<string, unknown>, sink: SubscriptionSink): () => void {
    const id = String(this.nextId++);
    if (this.ended) {
      sink.error(new GatewayError('INDEXER_UNAVAILABLE', `The indexer subscription is closed`));
      return () => undefined;
    }
    this.sinks.set(id, sink);
    const msg = JSON.stringify({ id, type: 'subscribe', payload: { operationName: document.name, query: document.text, variables } });
    if (this.acked) this.ws.send(msg);
    else this.pending.push(msg);
    return () => {
      if (this.sinks.delete(id) && !this.ended) this.send({ id, type: 'complete' });
    };
  }

  /** Close without reporting an error to anyone. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.sinks.clear();
    this.cleanup();
    this.ws.close(1000, 'done');
    this.opts.onClose?.(undefined);
  }

  private onMessage(raw: unknown): void {
    this.lastHeard = performance.now();
    let msg: ServerMessage;
    try {
      msg = JSON.parse(typeof raw === 'string' ? raw : Buffer.from(raw as ArrayBuffer).toString('utf8')) as ServerMessage;
    } catch {
      return this.fail(new GatewayError('INDEXER_BAD_RESPONSE', 'The indexer sent a subscription message that is not JSON'), 4400);
    }
    switch (msg?.type) {
      case 'connection_ack':
        if (this.acked) return;
        this.acked = true;
        clearTimeout(this.ackTimer);
        for (const m of this.pending.splice(0)) this.ws.send(m);
        this.opts.onReady?.();
        return;
      case 'ping':
        return this.send({ type: 'pong' });
      case 'pong':
        return;
      case 'next': {
        const sink = this.sinks.get(msg.id);
        if (!sink) return;
        const { data, errors } = msg.payload ?? {};
        if (data !== null && typeof data === 'object') return sink.next(data as Record<string, unknown>);
        this.sinks.delete(msg.id);
        return sink.error(new GatewayError('INDEXER_BAD_RESPONSE', `The indexer subscription failed: ${messages(errors)}`));
      }
      case 'error': {
        const sink = this.sinks.get(msg.id);
        this.sinks.delete(msg.id);
        return sink?.error(new GatewayError('INDEXER_BAD_RESPONSE', `The indexer rejected the subscription: ${messages(msg.payload)}`));
      }
      case 'complete': {
        const sink = this.sinks.get(msg.id);
        this.sinks.delete(msg.id);
        return sink?.complete();
      }
      default:
        return this.fail(new GatewayError('INDEXER_BAD_RESPONSE', 'The indexer sent an unknown subscription message'), 4400);
    }
  }

  private send(msg: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** End with an error we detected (protocol violation, timeout): tell everyone, then close. */
  private fail(err: GatewayError, code = 1000): void {
    if (this.ended) return;
    this.end(err);
    // 4400 is the protocol's "invalid message" close code; the reason must fit in 123 bytes.
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(code, err.code);
  }

  private end(err: GatewayError): void {
    if (this.ended) return;
    this.ended = true;
    this.cleanup();
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const s of sinks) s.error(err);
    this.opts.onClose?.(err);
  }

  private cleanup(): void {
    clearTimeout(this.ackTimer);
    if (this.keepAlive) clearInterval(this.keepAlive);
  }
}

function messages(errors: unknown): string {
  if (!Array.isArray(errors) || errors.length === 0) return 'no reason given';
  return errors
    .slice(0, 3)
    .map((e) => String((e as { message?: unknown })?.message ?? 'unknown error'))
    .join('; ');
}
