/**
 * The `upstream` backend: a real Midnight proof server over a keep-alive undici Pool. Request
 * bodies go up and response bodies come back byte for byte; only the status is translated into
 * the gateway's catalogue (docs/proving.md, "Backends"):
 *   connection refused / reset / timeout → 502 PROVER_UNREACHABLE;  no answer in time → 504
 *   its 429 (queue full) or 503 → 503 PROVER_BUSY + Retry-After;  its 400 → 400 with its reason
 *   its 500 → 500 PROVER_FAILED;  a 200 that is not a proof / check result → 502 PROVER_BAD_RESPONSE
 * The last rule exists because neither official client checks what it gets (LEDGER.md): a junk
 * 200 would become a "proven" transaction.
 *
 * Calls are bounded like the worker pool's tasks: at most `UPSTREAM_CONNECTIONS` at the proof
 * server and `maxQueue` waiting for a connection; beyond that → 503 QUEUE_FULL at once. A proof
 * server with no job capacity configured accepts everything, so without this bound an overload
 * would pile up requests (each holding its body, up to 64 MiB) in the undici queue without limit.
 * The waiting calls queue here (slots.ts), not in undici, so that at shutdown `drain()` can
 * refuse exactly those not yet sent (503 SHUTTING_DOWN) while those at the proof server finish.
 *
 * Bodies nightgate does not read (a V3 preimage, a ZKIR v3 circuit) are sent the same way: this
 * backend never looks inside a request. `/proof-versions` is the proof server's own answer, reused
 * for `PROOF_VERSIONS_REUSE_MS`: it changes only when the proof server is replaced.
 */
import { performance } from 'node:perf_hooks';
import { Client, Pool } from 'undici';
import type { Logger } from 'pino';
import type { ComponentHealth } from '../../infra/app-context.js';
import type { ProverBackendName } from '../../core/config/index.js';
import { systemClock, type Clock } from '../../core/clock.js';
import { SingleFlight } from '../../core/single-flight.js';
import { GatewayError, isGatewayError } from '../../core/errors.js';
import { TEXT_TYPE, type CallOptions, type ProverBackend, type ProvingQueue, type Relayed } from '../../infra/prover/backend.js';
import { Slots } from '../../infra/pool/slots.js';
import { redactUrl } from '../../core/log/url-redaction.js';
import { hasTag } from './wire/wire.js';

interface UpstreamOptions {
  url: string;
  /** Longest a proof may take (`prover.timeoutMs`). */
  timeoutMs: number;
  logger: Logger;
  /** Calls that may wait for a free connection (`prover.queueSize`, default 256); beyond → 503 QUEUE_FULL. */
  maxQueue?: number;
  /** Reported name: `native` when nightgate supervises the server itself. */
  name?: ProverBackendName;
  /** Connections to the proof server (default `UPSTREAM_CONNECTIONS`; tests use a few). */
  connections?: number;
  /** Times the reuse of the `/proof-versions` answer (default: the system clock). */
  clock?: Clock;
}

/** How long the proof server's 200 answer to `/proof-versions` is reused, ms. */
export const PROOF_VERSIONS_REUSE_MS = 60_000;

/** Connections to the proof server; calls beyond them wait (up to `maxQueue`). */
export const UPSTREAM_CONNECTIONS = 64;
/** `prover.queueSize`'s default. */
const DEFAULT_MAX_QUEUE = 256;

const CONNECT_TIMEOUT_MS = 10_000;
/** A readiness probe that takes longer than this counts as no answer. */
const PROBE_TIMEOUT_MS = 2_000;
/** Proofs are kilobytes; anything near this is not a proof. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const DEFAULT_RETRY_AFTER = '5';
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Uint8Array;
}

/** A short printable excerpt of an upstream error body. */
function reasonOf(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.subarray(0, 400))
    .toString('utf8')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim();
  return text || '(no reason given)';
}

/** How a refusal names a call's work; other calls are named by their path. */
const PATH_WORDS: Readonly<Record<string, string>> = { '/prove': 'the proof', '/check': 'the check' };

function header(h: Answer['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

export class UpstreamBackend implements ProverBackend {
  readonly name: ProverBackendName;
  /** The proof server's URL as it may be shown (messages, logs, health): credentials and query redacted. */
  readonly url: string;
  readonly #pool: Pool;
  readonly #base: string;
  readonly #timeoutMs: number;
  readonly #log: Logger;
  /** A slot per connection: a call holds one from being sent until its answer is read. */
  readonly #slots: Slots;
  #lastFailure: string | undefined;
  /** Readiness probes go on their own connection: proofs may hold every connection of the pool for minutes. */
  readonly #probe: Client;
  #calls = 0;
  /** Moving mean of a call's duration, ms (for Retry-After). */
  #meanMs = 0;
  readonly #clock: Clock;
  /** The last 200 answer to `/proof-versions`, and when it came. */
  #versions: { at: number; answer: Relayed } | undefined;
  /** Concurrent `/proof-versions` asks share one call. */
  readonly #versionsFlight = new SingleFlight<Relayed>();

  constructor(opts: UpstreamOptions) {
    const u = new URL(opts.url);
    this.name = opts.name ?? 'upstream';
    this.url = redactUrl(opts.url);
    this.#base = u.pathname.replace(/\/$/, '');
    this.#timeoutMs = opts.timeoutMs;
    this.#log = opts.logger;
    this.#clock = opts.clock ?? systemClock;
    const connections = opts.connections ?? UPSTREAM_CONNECTIONS;
    this.#slots = new Slots({
      size: connections,
      maxQueue: opts.maxQueue ?? DEFAULT_MAX_QUEUE,
      full: () => this.#queueFull(),
      refused: (path) =>
        new GatewayError('SHUTTING_DOWN', `The server is shutting down; ${PATH_WORDS[path] ?? `the ${path} call to the proof server`} was not started`),
    });
    this.#pool = new Pool(u.origin, {
      connections,
      keepAliveTimeout: 30_000,
      connect: { timeout: CONNECT_TIMEOUT_MS },
      // The proof server answers only when the proof is done: both waits are the proof timeout.
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
    this.#probe = new Client(u.origin, {
      connect: { timeout: PROBE_TIMEOUT_MS },
      headersTimeout: PROBE_TIMEOUT_MS,
      bodyTimeout: PROBE_TIMEOUT_MS,
      keepAliveTimeout: 30_000,
    });
  }

  async #call(method: 'GET' | 'POST', path: string, body: Uint8Array | undefined, signal: AbortSignal, opts: CallOptions = {}): Promise<Answer> {
    try {
      const turn = this.#slots.acquire(path, signal, opts.taskStarted === true);
      if (turn) await turn;
    } catch (err) {
      // Queue full, shutting down, or the caller left while waiting: nothing reached the proof server.
      throw signal.aborted ? this.#aborted(signal) : err;
    }
    opts.onStart?.();
    this.#calls++;
    const t0 = performance.now();
    try {
      const res = await this.#pool.request({
        method,
        path: this.#base + path,
        signal,
        ...(body ? { body, headers: { 'content-type': 'application/octet-stream' } } : {}),
      });
      const bytes = new Uint8Array(await res.body.arrayBuffer());
      this.#lastFailure = undefined;
      return { status: res.statusCode, headers: res.headers, bytes };
    } catch (err) {
      throw this.#networkError(err, signal);
    } finally {
      this.#slots.release();
      this.#meanMs = this.#meanMs === 0 ? performance.now() - t0 : 0.9 * this.#meanMs + 0.1 * (performance.now() - t0);
    }
  }

  /** Every connection busy and `maxQueue` calls waiting: refuse at once, saying when the queue should have moved. */
  #queueFull(): GatewayError {
    const { size, waiting } = this.#slots;
    const seconds = Math.max(1, Math.ceil(((waiting + 1) * Math.max(this.#meanMs, 1_000)) / size / 1000));
    return new GatewayError('QUEUE_FULL', `All ${size} connections to the proof server are busy and ${waiting} calls are waiting`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }

  #aborted(signal: AbortSignal): GatewayError {
    return isGatewayError(signal.reason) ? signal.reason : new GatewayError('CLIENT_ABORTED');
  }

  #networkError(err: unknown, signal: AbortSignal): GatewayError {
    if (signal.aborted) return this.#aborted(signal);
    const code = (err as { code?: string }).code ?? '';
    const e =
      code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
        ? new GatewayError('PROVER_TIMEOUT', `The proof server at ${this.url} did not answer within ${this.#timeoutMs} ms`)
        : code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE'
          ? new GatewayError('PROVER_BAD_RESPONSE', `The proof server at ${this.url} answered more than ${MAX_RESPONSE_BYTES} bytes`)
          : new GatewayError(
              'PROVER_UNREACHABLE',
              `The proof server at ${this.url} could not be reached (${UNREACHABLE_CODES.has(code) ? code : (err as Error).message || code})`,
            );
    this.#lastFailure = e.message;
    this.#log.warn({ code, url: this.url }, e.message);
    return e;
  }

  /** Translate a non-200 answer; undefined for 200. */
  #statusError(a: Answer): GatewayError | undefined {
    if (a.status === 200) return undefined;
    const reason = reasonOf(a.bytes);
    if (a.status === 400) return new GatewayError('PROVER_REJECTED', `The proof server rejected the request: ${reason}`);
    if (a.status === 429 || a.status === 503) {
      const given = header(a.headers, 'retry-after');
      const retryAfter = given && /^\d{1,6}$/.test(given.trim()) ? given.trim() : DEFAULT_RETRY_AFTER;
      return new GatewayError('PROVER_BUSY', `The proof server is busy (${a.status}): ${reason}`, { headers: { 'Retry-After': retryAfter } });
    }
    if (a.status === 500) return new GatewayError('PROVER_FAILED', `The proof server failed: ${reason}`);
    return new GatewayError('PROVER_BAD_RESPONSE', `The proof server answered ${a.status}: ${reason}`);
  }

  async #post(path: string, body: Uint8Array, signal: AbortSignal, expect: 'proof' | 'checkResult' | undefined, opts?: CallOptions): Promise<Uint8Array> {
    const a = await this.#call('POST', path, body, signal, opts);
    const err = this.#statusError(a);
    if (err) throw err;
    if (expect && !hasTag(a.bytes, expect)) {
      this.#lastFailure = `${path} answered 200 with something that is not a ${expect === 'proof' ? 'proof' : 'check result'}`;
      throw new GatewayError('PROVER_BAD_RESPONSE', `The proof server's ${path} answer is not a ${expect === 'proof' ? 'versioned proof' : 'check result'}`);
    }
    return a.bytes;
  }

  prove(body: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<Uint8Array> {
    return this.#post('/prove', body, signal, 'proof', opts);
  }

  check(body: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<Uint8Array> {
    return this.#post('/check', body, signal, 'checkResult', opts);
  }

  async k(ir: Uint8Array, signal: AbortSignal): Promise<string> {
    return Buffer.from(await this.#post('/k', ir, signal, undefined)).toString('utf8');
  }

  async #relay(path: string, signal: AbortSignal): Promise<Relayed> {
    const a = await this.#call('GET', path, undefined, signal);
    return { status: a.status, body: a.bytes, contentType: header(a.headers, 'content-type') ?? TEXT_TYPE };
  }

  version(signal: AbortSignal): Promise<Relayed> {
    return this.#relay('/version', signal);
  }

  ready(signal: AbortSignal): Promise<Relayed> {
    return this.#relay('/ready', signal);
  }

  /** The proof server's own answer; a 200 is reused for `PROOF_VERSIONS_REUSE_MS`, nothing else is. */
  async proofVersions(signal: AbortSignal): Promise<Relayed> {
    const held = this.#versions;
    if (held && this.#clock.now() - held.at < PROOF_VERSIONS_REUSE_MS) return held.answer;
    const answer = await this.#versionsFlight.run('/proof-versions', (s) => this.#relay('/proof-versions', s), signal).result;
    if (answer.status === 200) this.#versions = { at: this.#clock.now(), answer };
    return answer;
  }

  /** Any answer to GET /ready (200, or 503 while its queue is full) shows the proof server is up. */
  async readiness(): Promise<string | undefined> {
    try {
      const res = await this.#probe.request({ method: 'GET', path: `${this.#base}/ready` });
      await res.body.dump();
      return undefined;
    } catch (err) {
      return `proof server unreachable (${(err as { code?: string }).code ?? 'no answer'})`;
    }
  }

  queue(): ProvingQueue {
    return { waiting: this.#slots.waiting, capacity: this.#slots.maxQueue };
  }

  health(): ComponentHealth {
    const pending = this.#slots.busy + this.#slots.waiting;
    return {
      status: this.#lastFailure ? 'degraded' : 'ok',
      url: this.url,
      calls: this.#calls,
      pending,
      waiting: this.#slots.waiting,
      maxQueue: this.#slots.maxQueue,
      ...(this.#lastFailure ? { lastError: this.#lastFailure } : {}),
    };
  }

  /**
   * Shutdown began: calls waiting for a connection are refused now with 503 SHUTTING_DOWN, and so
   * is every new call — except those of a task already running (`taskStarted`); calls at the
   * proof server finish.
   */
  drain(): void {
    const refused = this.#slots.drain();
    if (refused + this.#slots.busy > 0)
      this.#log.info({ url: this.url, refused, atProofServer: this.#slots.busy }, 'shutting down: refused the proof-server calls not yet sent');
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool.close(), this.#probe.close()]);
  }
}
