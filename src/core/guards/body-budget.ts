/**
 * Request bodies in flight: what the server holds for bodies it is reading or has read and not yet
 * finished with, bounded for the whole server and for each client (an API key, or the address of
 * a client without one). A body is charged what it costs the process, not its length (`costOf`),
 * before it is read — all at once from its Content-Length, or chunk by chunk for a chunked body —
 * and the charge is given back when its request has ended and the work that took the body (a
 * worker task, which may outlive a client that left) has settled.
 *
 * The bound is on what the process holds, not on how fast a client asks: a per-key request rate
 * lets one key start dozens of 64 MiB uploads at once, and each is held whole until the request
 * ends. Refusing before a byte is read keeps a refused body out of memory entirely.
 */
import { GatewayError } from '../errors.js';

/** Why a body was refused: the client's share is taken (429), or the server's (503). */
type BodyRefusal = 'client' | 'global';

interface BodyBudgetOptions {
  /** What the bodies in flight may cost the whole server, in bytes. */
  globalBytes: number;
  /** What one client's bodies in flight may cost (key, or address without a key). */
  clientBytes: number;
  /** Retry-After, in seconds, of a refusal. */
  retryAfterSeconds?: number;
}

/**
 * What a body costs the process per byte of its length, as a route declares it (`body.cost`).
 * Read whole, a body is one buffer: 1, the default. A proving body costs twice its length: the
 * buffer it is read into moves to a worker thread with its task (it is not copied), and a copy
 * more exists while it is hashed for the proof cache (webcrypto hashes a copy) and while the
 * worker, which frees its buffer only when it next collects, still holds it. Measured with 48
 * keys sending one valid 63 MiB /prove each (test/reliability/body-cost-rss.test.ts): RSS grew
 * by 1.8 to 2.0 times the length of the bodies in flight; by 2.6 to 2.7 times while bodies were
 * gathered in chunks and joined.
 */
export const WORKER_BODY_COST = 2;

/** A body sent without Content-Length is gathered in chunks and joined when complete: held once more. */
const CHUNKED_EXTRA_COST = 1;

export interface BodyBudgetStats {
  /** What the bodies in flight cost now (`costOf`), in bytes. */
  inFlightBytes: number;
  /** Highest `inFlightBytes` since start. */
  peakBytes: number;
  /** Clients holding bytes now. */
  clients: number;
  globalBytes: number;
  clientBytes: number;
  refused: { global: number; client: number };
}

/** A short wait: bodies end as their requests are answered, typically within seconds. */
const DEFAULT_RETRY_AFTER_S = 2;

export class BodyBudget {
  readonly globalBytes: number;
  readonly clientBytes: number;
  private readonly retryAfter: string;
  private inFlight = 0;
  private peak = 0;
  /** Entries leave at zero, so the table holds only clients with a body in flight. */
  private readonly byClient = new Map<string, number>();
  private refusedGlobal = 0;
  private refusedClient = 0;

  constructor(opts: BodyBudgetOptions) {
    this.globalBytes = opts.globalBytes;
    this.clientBytes = opts.clientBytes;
    this.retryAfter = String(opts.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_S);
  }

  /**
   * What `length` more bytes of one body cost, the body costing `cost` per byte (its route's
   * `body.cost`; once more when chunked) and having been charged `charged` so far. Never more in
   * all than a client's whole share: a body of the largest size a route accepts can always be sent
   * by a client with nothing else in flight (the settings are checked for that at start).
   */
  costOf(length: number, cost: number, chunked: boolean, charged = 0): number {
    const bytes = Math.ceil(length * (cost + (chunked ? CHUNKED_EXTRA_COST : 0)));
    return Math.max(0, Math.min(bytes, this.clientBytes - charged));
  }

  /** Take `bytes` (a cost: `costOf`) for `client`; on refusal nothing is taken and the reason is returned. */
  take(client: string, bytes: number): BodyRefusal | undefined {
    const held = this.byClient.get(client) ?? 0;
    if (held + bytes > this.clientBytes) {
      this.refusedClient++;
      return 'client';
    }
    if (this.inFlight + bytes > this.globalBytes) {
      this.refusedGlobal++;
      return 'global';
    }
    this.byClient.set(client, held + bytes);
    this.inFlight += bytes;
    if (this.inFlight > this.peak) this.peak = this.inFlight;
    return undefined;
  }

  /** Give back what `client` took for a body the server is done with. */
  give(client: string, bytes: number): void {
    if (bytes <= 0) return;
    const left = (this.byClient.get(client) ?? 0) - bytes;
    if (left > 0) this.byClient.set(client, left);
    else this.byClient.delete(client);
    this.inFlight = Math.max(0, this.inFlight - bytes);
  }

  /** The answer to a refused body: 429 for the client's share, 503 for the server's. */
  refusal(reason: BodyRefusal): GatewayError {
    const headers = { 'Retry-After': this.retryAfter };
    return reason === 'client'
      ? new GatewayError(
          'CLIENT_BODY_BUDGET_FULL',
          `This key (or address) may have request bodies costing ${this.clientBytes}` +
            ` bytes in flight (a proving body costs ${WORKER_BODY_COST}` +
            ` × its length); retry when one of its requests has finished`,
          { headers },
        )
      : new GatewayError('BODY_BUDGET_FULL', undefined, { headers });
  }

  stats(): BodyBudgetStats {
    return {
      inFlightBytes: this.inFlight,
      peakBytes: this.peak,
      clients: this.byClient.size,
      globalBytes: this.globalBytes,
      clientBytes: this.clientBytes,
      refused: { global: this.refusedGlobal, client: this.refusedClient },
    };
  }
}
