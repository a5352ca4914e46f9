/**
 * Request-body bytes in flight: what the server holds for bodies it is reading or has read and not
 * yet answered, bounded for the whole server and for each client (an API key, or the address of a
 * client without one). A body's bytes are taken before it is read — all at once from its
 * Content-Length, or chunk by chunk for a chunked body — and given back when its request ends.
 *
 * The bound is on what the process holds, not on how fast a client asks: a per-key request rate
 * lets one key start dozens of 64 MiB uploads at once, and each is held whole until the request
 * ends. Refusing before a byte is read keeps a refused body out of memory entirely.
 */
import { GatewayError } from '../errors.js';

/** Why a body was refused: the client's share is taken (429), or the server's (503). */
export type BodyRefusal = 'client' | 'global';

export interface BodyBudgetOptions {
  /** Bytes in flight for the whole server. */
  globalBytes: number;
  /** Bytes in flight for one client (key, or address without a key). */
  clientBytes: number;
  /** Retry-After, in seconds, of a refusal. */
  retryAfterSeconds?: number;
}

export interface BodyBudgetStats {
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

  /** Take `bytes` for `client`; on refusal nothing is taken and the reason is returned. */
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

  /** Give back what `client` took for a body that ended. */
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
      ? new GatewayError('CLIENT_BODY_BUDGET_FULL', `This key (or address) may have ${this.clientBytes} request-body bytes in flight; retry when one of its requests has finished`, { headers })
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
