/**
 * The /prove and /verify result cache: successful answers only, each kept `ttlMs` (30 s by default)
 * by the injected clock, least recently used evicted first once the total passes `maxBytes`.
 * quick-lru bounds entries, not bytes, and ages them by Date.now(); a Map in insertion order (a
 * hit re-inserts) gives both byte accounting and the app's clock in a few lines.
 */
import type { Clock } from './clock.js';

interface Entry {
  value: Uint8Array;
  expiresAt: number;
  size: number;
}

/** Map bookkeeping per entry, on top of key and value bytes (an estimate; the cap is a memory guard). */
const ENTRY_OVERHEAD = 96;

export interface ResultCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  ttlMs: number;
}

export class ResultCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxBytes: number,
  ) {}

  get(key: string): Uint8Array | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (this.clock.now() >= e.expiresAt) {
      this.#delete(key, e);
      return undefined;
    }
    // Most recently used goes to the end of the insertion order.
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e.value;
  }

  set(key: string, value: Uint8Array): void {
    const size = value.byteLength + key.length * 2 + ENTRY_OVERHEAD;
    if (this.ttlMs === 0 || size > this.maxBytes) return;
    const old = this.#entries.get(key);
    if (old) this.#delete(key, old);
    this.#entries.set(key, { value, expiresAt: this.clock.now() + this.ttlMs, size });
    this.#bytes += size;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#delete(k, e);
    }
  }

  #delete(key: string, e: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= e.size;
  }

  stats(): ResultCacheStats {
    return { entries: this.#entries.size, bytes: this.#bytes, maxBytes: this.maxBytes, ttlMs: this.ttlMs };
  }
}
