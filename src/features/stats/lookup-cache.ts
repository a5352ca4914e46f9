/**
 * The lookup cache of one network: a quick-lru of rendered answers, each with its own lifetime
 * (finalized data longer than data at the tip), filled through single-flight.
 *
 *  - fresh entry → its pre-built `X-Cache: HIT` reply, synchronously;
 *  - otherwise one shared upstream call → `X-Cache: MISS`;
 *  - the upstream call fails with an indexer error and an expired entry exists → that entry,
 *    `X-Cache: STALE` with its `Age`: cached data is served rather than a 500 (docs/api.md, "Conventions").
 * Lifetimes use the injected clock, not quick-lru's own `maxAge` (which reads Date.now()).
 */
import QuickLRU from 'quick-lru';
import type { Clock } from '../../core/clock.js';
import { isGatewayError } from '../../core/errors.js';
import { Encoded } from '../../core/http/compression.js';
import { headerLines } from '../../core/http/head.js';
import { JSON_TYPE, type Reply } from '../../core/http/route.js';
import { etagOf } from './rendered-reply.js';
import { SingleFlight } from '../../core/single-flight.js';

export interface Fetched {
  value: unknown;
  /** How long this answer may be served from the cache. */
  ttlMs: number;
  /** What clients are told about its freshness. */
  cacheControl: string;
}

interface Entry {
  body: Buffer;
  etag: string;
  fetchedAt: number;
  expiresAt: number;
  hit: Reply;
  miss: Reply;
}

/**
 * Failures of the indexer, not of the lookup: an expired answer is served instead (X-Cache: STALE). INDEXER_BUSY is nightgate's own cap on address streams
 * (lookups.ts).
 */
const INDEXER_CODES = new Set(['INDEXER_UNAVAILABLE', 'INDEXER_TIMEOUT', 'INDEXER_BAD_RESPONSE', 'INDEXER_BUSY']);

export class LookupCache {
  hits = 0;
  misses = 0;
  stale = 0;
  private readonly lru: QuickLRU<string, Entry>;
  private readonly flights = new SingleFlight<Entry>();

  constructor(
    maxSize: number,
    private readonly clock: Clock,
  ) {
    // quick-lru keeps two generations of up to `maxSize` entries each (it swaps them when the
    // new one fills): half the setting per generation keeps what is retained within the setting.
    this.lru = new QuickLRU({ maxSize: Math.ceil(maxSize / 2) });
  }

  get size(): number {
    return this.lru.size;
  }

  get inFlight(): number {
    return this.flights.size;
  }

  /** `signal` is asked for only on a miss: a hit must not pay for abort tracking. */
  get(key: string, fetch: (signal: AbortSignal) => Promise<Fetched>, signal?: () => AbortSignal): Reply | Promise<Reply> {
    const cached = this.lru.get(key);
    if (cached && cached.expiresAt > this.clock.now()) {
      this.hits++;
      return cached.hit;
    }
    this.misses++;
    return this.flights
      .run(key, (s) => this.fill(key, fetch, s), signal?.())
      .result.then(
        (entry) => entry.miss,
        (err: unknown) => {
          if (!cached || !isGatewayError(err) || !INDEXER_CODES.has(err.code)) throw err;
          this.stale++;
          const age = Math.max(0, Math.floor((this.clock.now() - cached.fetchedAt) / 1000));
          return {
            status: 200,
            body: cached.body,
            contentType: JSON_TYPE,
            headers: { ETag: cached.etag, 'Cache-Control': 'public, max-age=1', 'X-Cache': 'STALE', Age: String(age) },
          };
        },
      );
  }

  abortAll(reason: unknown): void {
    this.flights.abortAll(reason);
  }

  private async fill(key: string, fetch: (signal: AbortSignal) => Promise<Fetched>, signal: AbortSignal): Promise<Entry> {
    const { value, ttlMs, cacheControl } = await fetch(signal);
    const body = Buffer.from(JSON.stringify(value));
    const etag = etagOf(body);
    // One set of compressed forms per entry, shared by its HIT and MISS replies.
    const encoded = new Encoded(body, etag);
    const now = this.clock.now();
    const entry: Entry = {
      body,
      etag,
      fetchedAt: now,
      expiresAt: now + ttlMs,
      hit: servedMany(encoded, { 'Cache-Control': cacheControl, 'X-Cache': 'HIT' }),
      miss: servedMany(encoded, { 'Cache-Control': cacheControl, 'X-Cache': 'MISS' }),
    };
    this.lru.set(key, entry);
    return entry;
  }
}

/**
 * A reply kept with its entry and served until it expires: its headers rendered once (http/head.ts),
 * ETag left to the exchange, which writes the tag of the coding it sends (http/compression.ts).
 */
function servedMany(encoded: Encoded, headers: Record<string, string>): Reply {
  return { status: 200, body: encoded.body, contentType: JSON_TYPE, headers: { ETag: encoded.etag, ...headers }, headLines: headerLines(headers), encoded };
}
