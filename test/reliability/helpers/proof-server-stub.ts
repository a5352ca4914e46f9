/**
 * An in-process proof-server stub for the reliability tests: the proof server's routes on
 * 127.0.0.1, a switchable failure mode, and events for everything a test must wait on — a
 * request arriving, a request being held, a request abandoned by its client (nightgate
 * cancelling an upstream call). Unlike the stand-in process (test/fixtures/prover), the test
 * sees these as events in its own process, so it never polls.
 *
 * `/prove` answers with the ledger's mock-shaped proof of the requested built-in circuit (the
 * dev backend's bytes), so a sponsored transaction proven through it deserializes and binds. A
 * body of a preimage version nightgate does not read (V3) is answered with `unreadProof(body)`.
 * With `record` set, every request's exact bytes are kept in `received`.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { TAG, UnreadableVersion, parseProveRequest } from '../../../src/features/proving/wire/wire.js';
import { devProof } from '../../../src/infra/prover/worker/dev-proofs.js';

/**
 * ok: proofs; hold: keep every compute request open until `release()`; busy429 / busy503: queue
 * full; fail: 500; junk: a 200 that is not a proof; reject: 400 with a reason; reset: destroy
 * the socket without an answer.
 */
export type StubMode = 'ok' | 'hold' | 'busy429' | 'busy503' | 'fail' | 'junk' | 'reject' | 'reset';

/**
 * What nightgate must answer for each failing stub mode, whichever route proves through it:
 * [mode, status, error code, Retry-After]. 429 carries no Retry-After, so the gateway's own 5 s.
 */
export const STUB_FAULTS: ReadonlyArray<readonly [StubMode, number, string, string | undefined]> = [
  ['busy429', 503, 'PROVER_BUSY', '5'],
  ['busy503', 503, 'PROVER_BUSY', '9'],
  ['fail', 500, 'PROVER_FAILED', undefined],
  ['junk', 502, 'PROVER_BAD_RESPONSE', undefined],
  ['reject', 400, 'PROVER_REJECTED', undefined],
  ['reset', 502, 'PROVER_UNREACHABLE', undefined],
];

const COMPUTE = new Set(['/prove', '/check', '/k']);
const CHECK_RESULT = Buffer.concat([Buffer.from('midnight:vec(option(u64)):'), Buffer.from([0])]);

/**
 * The stub's proof for a `/prove` body whose preimage nightgate does not read: the proof tag, then
 * the SHA-256 of the body as the stub received it — equal only if the body arrived unchanged.
 */
export function unreadProof(body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(TAG.proof), createHash('sha256').update(body).digest()]);
}

export interface StubEvents {
  /** A request arrived (its body fully read). */
  request: [path: string];
  /** A compute request is being held (mode `hold`). */
  held: [path: string];
  /** The client (nightgate) went away before this request was answered. */
  abandoned: [path: string];
}

export class ProofServerStub extends EventEmitter<StubEvents> {
  mode: StubMode = 'ok';
  /** Fixed delay before each compute answer, ms (real time: it models a slow prover). */
  latencyMs = 0;
  readonly calls = new Map<string, number>();
  /** Keep every request in `received` (off by default: the load tests send thousands). */
  record = false;
  /** With `record`: every request, in arrival order, with its body byte for byte. */
  readonly received: Array<{ method: string; path: string; body: Buffer }> = [];
  /** The answer to `GET /proof-versions`. */
  proofVersions = '["V2"]';
  port = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly holding = new Set<() => void>();

  static async start(port = 0): Promise<ProofServerStub> {
    const stub = new ProofServerStub();
    await stub.listen(port);
    return stub;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get held(): number {
    return this.holding.size;
  }

  count(path: string): number {
    return this.calls.get(path) ?? 0;
  }

  /** Resolves with the next `event` (optionally: for `path`). */
  next(event: keyof StubEvents, path?: string): Promise<string> {
    return new Promise((resolve) => {
      const on = (p: string): void => {
        if (path !== undefined && p !== path) return;
        this.off(event, on);
        resolve(p);
      };
      this.on(event, on);
    });
  }

  /** Resolves once `n` more `event`s happened. */
  times(event: keyof StubEvents, n: number): Promise<void> {
    return new Promise((resolve) => {
      let seen = 0;
      const on = (): void => {
        if (++seen < n) return;
        this.off(event, on);
        resolve();
      };
      this.on(event, on);
    });
  }

  /** Answer every held request (in the mode current at release time). */
  release(): void {
    const held = [...this.holding];
    this.holding.clear();
    for (const go of held) go();
  }

  /** Stop listening and cut every connection: the proof server is down. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    this.holding.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listen again on the same port: the proof server is back. */
  async restart(): Promise<void> {
    await this.listen(this.port);
  }

  private listen(port: number): Promise<void> {
    const server = createServer((req, res) => this.onRequest(req, res));
    server.keepAliveTimeout = 1_000;
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      this.calls.set(path, this.count(path) + 1);
      if (this.record) this.received.push({ method: req.method ?? '', path, body });
      const go = (): void => {
        if (res.destroyed) return;
        if (this.latencyMs > 0) setTimeout(() => this.compute(path, body, res), this.latencyMs);
        else this.compute(path, body, res);
      };
      // `close` before `finish` on the response: the caller hung up on an unanswered request.
      res.on('close', () => {
        this.holding.delete(go);
        if (!res.writableFinished) this.emit('abandoned', path);
      });
      this.emit('request', path);
      if (req.method === 'GET') return this.meta(path, res);
      if (!COMPUTE.has(path)) return send(res, 404, 'not found');
      if (this.mode === 'hold') {
        this.holding.add(go);
        this.emit('held', path);
        return;
      }
      go();
    });
  }

  private meta(path: string, res: ServerResponse): void {
    if (path === '/version') return send(res, 200, 'stub-0.0.0', 'text/plain');
    if (path === '/proof-versions') return send(res, 200, this.proofVersions, 'text/plain');
    if (path === '/ready' || path === '/health')
      return send(
        res,
        200,
        JSON.stringify({ status: 'ok', jobsProcessing: this.held, jobsPending: 0, jobCapacity: 0, timestamp: new Date().toISOString() }),
        'application/json',
      );
    send(res, 404, 'not found');
  }

  private compute(path: string, body: Buffer, res: ServerResponse): void {
    switch (this.mode) {
      case 'busy429':
        return send(res, 429, 'Too many requests');
      case 'busy503':
        return send(res, 503, 'job queue full', 'application/octet-stream', { 'retry-after': '9' });
      case 'fail':
        return send(res, 500, 'internal error');
      case 'junk':
        return send(res, 200, 'definitely not a proof');
      case 'reject':
        return send(res, 400, 'bad input: the stub rejects this request');
      case 'reset':
        return void res.socket?.destroy();
      default:
    }
    if (path === '/check') return send(res, 200, CHECK_RESULT);
    if (path === '/k') return send(res, 200, '14', 'text/plain');
    let proof: Uint8Array;
    try {
      proof = devProof(parseProveRequest(body).keyLocation);
    } catch (err) {
      if (err instanceof UnreadableVersion) return send(res, 200, unreadProof(body));
      return send(res, 400, `bad input: ${(err as Error).message}`);
    }
    send(res, 200, Buffer.from(proof));
  }
}

function send(res: ServerResponse, status: number, body: string | Buffer, type = 'application/octet-stream', headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(body);
}
