/**
 * Caching and sharing of /prove, /verify (/check) and /k results, keyed by the SHA-256 of the
 * request body plus the network and backend that answer it (docs/proving.md, "Results
 * cache": cached 30 s, concurrent identical requests share one computation). Errors are never
 * cached.
 *
 * Each decision is also emitted as a `result` event (HIT, MISS, SHARED) — for logs and metrics,
 * and so tests can wait for requests to have joined a computation instead of sleeping.
 */
import { createHash, webcrypto } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Clock } from '../../core/clock.js';
import type { NetworkName } from '../../core/config/index.js';
import type { Era } from '../../infra/ledger/index.js';
import { ResultCache, type ResultCacheStats } from '../../core/result-cache.js';
import { SingleFlight } from '../../core/single-flight.js';

/** A cache shared with other instances (src/features/proving/shared-proof-cache.ts): asked on a local miss, written after a proof. */
interface SharedResults {
  get(key: string): Promise<Uint8Array | undefined>;
  set(key: string, bytes: Uint8Array): void;
}

type ResultKind = 'prove' | 'check' | 'k';
type CacheOutcome = 'HIT' | 'MISS' | 'SHARED';

export interface ResultEvent {
  kind: ResultKind;
  network: NetworkName;
  backend: string;
  cache: CacheOutcome;
}

/** Above this, hash off the event loop: webcrypto's digest runs on libuv's thread pool. */
const SYNC_HASH_LIMIT = 1 << 20;

async function sha256Hex(body: Uint8Array): Promise<string> {
  if (body.byteLength <= SYNC_HASH_LIMIT) return createHash('sha256').update(body).digest('hex');
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', body)).toString('hex');
}

export interface ProofResultsStats extends ResultCacheStats {
  hits: number;
  misses: number;
  shared: number;
  inFlight: number;
}

export class ProofResults extends EventEmitter<{ result: [ResultEvent] }> {
  readonly #cache: ResultCache;
  readonly #flights = new SingleFlight<Uint8Array>();
  #hits = 0;
  #misses = 0;
  #shared = 0;

  constructor(
    clock: Clock,
    ttlMs: number,
    maxBytes: number,
    private readonly shared?: SharedResults,
  ) {
    super();
    this.#cache = new ResultCache(clock, ttlMs, maxBytes);
  }

  /**
   * The cached answer for this body, or the one being computed for it, or a new computation.
   * `compute` must not use `body` after it resolves (the body may have moved to a worker). `era`,
   * the network's ledger era, keeps a network's answers of one era from serving the other after
   * the network switches.
   */
  async get(
    kind: ResultKind,
    network: NetworkName,
    backend: string,
    body: Uint8Array,
    signal: AbortSignal,
    compute: (signal: AbortSignal) => Promise<Uint8Array>,
    era?: Era,
  ): Promise<{ bytes: Uint8Array; cache: 'HIT' | 'MISS' }> {
    const key = `${kind}|${network}${era === undefined ? '' : `@${era}`}|${backend}|${await sha256Hex(body)}`;
    const hit = this.#cache.get(key);
    if (hit) {
      this.#hits++;
      this.emit('result', { kind, network, backend, cache: 'HIT' });
      return { bytes: hit, cache: 'HIT' };
    }
    // Several instances: another one may have proved it (a retry that landed here).
    const remote = this.shared && !this.#flights.has(key) ? await this.shared.get(key) : undefined;
    if (remote) {
      this.#cache.set(key, remote);
      this.#hits++;
      this.emit('result', { kind, network, backend, cache: 'HIT' });
      return { bytes: remote, cache: 'HIT' };
    }
    const { shared, result } = this.#flights.run(
      key,
      async (s) => {
        const bytes = await compute(s);
        this.#cache.set(key, bytes);
        this.shared?.set(key, bytes);
        return bytes;
      },
      signal,
    );
    if (shared) this.#shared++;
    else this.#misses++;
    this.emit('result', { kind, network, backend, cache: shared ? 'SHARED' : 'MISS' });
    return { bytes: await result, cache: 'MISS' };
  }

  stats(): ProofResultsStats {
    return { ...this.#cache.stats(), hits: this.#hits, misses: this.#misses, shared: this.#shared, inFlight: this.#flights.size };
  }
}
