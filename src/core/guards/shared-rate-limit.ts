/**
 * A rate-limit store whose counters live in a SharedArrayBuffer, for `server.threads`: the main
 * thread and every worker thread running an HTTP server attach to the same table, so a client
 * that spreads its connections over threads still meets one limit, not one per thread.
 *
 * Decisions are those of MemoryRateLimitStore (the same `decideWindow` over the same counters):
 * for one thread and the same hits, the same `allowed`, `remaining` and `resetAt`, as long as no
 * client is evicted (the two stores choose what to evict differently, see below).
 *
 * Layout (one buffer, viewed as Int32Array and Float64Array; a slot is one 64-byte cache line):
 * - header, 64 bytes: magic, layout version, algorithm (0 fixed, 1 sliding), maxEntries, and the
 *   count of occupied slots;
 * - slots, `2 × maxEntries` of 64 bytes, scope `key` first, then scope `ip`. Int32 words: the
 *   slot lock, the insert lock (used for the ids whose probe run starts at this slot), occupied
 *   flag, the id's two 32-bit hashes. Float64 words from byte 32: window start, previous window's
 *   count, current window's count, last seen (the `now` of its latest hit).
 * So the buffer is `64 + 128 × maxEntries` bytes, whatever the traffic.
 *
 * Guarantees and limits:
 * - Exact under concurrency: a hit's read-modify-write of its slot runs under the slot's
 *   spinlock (Atomics.compareExchange), and inserts of one id are serialised by the insert lock
 *   of its first slot, so an id never gets two counters: N threads admit exactly `limit` per
 *   window between them. A window never rolls back: a hit stamped before the slot's window
 *   (another thread read the clock a moment later) counts in the slot's window, as at its start.
 * - An id is keyed by a 64-bit hash (two independent 32-bit hashes of its UTF-16 code units).
 *   Two ids with the same 64-bit hash share a counter; at 10^5 clients per scope the chance that
 *   any two do is about 3 × 10^-10.
 * - Each scope has `maxEntries` slots and an id lives in the run of PROBE_RUN slots starting at
 *   its hash (open addressing, no moves). A new id takes a free slot of its run, else one whose
 *   counters no longer influence any decision (window older than two windows), else the least
 *   recently seen slot of the run (ties: the first in the run). A new client therefore always
 *   gets a counter of its own, never a shared overflow counter. The evicted client is forgotten
 *   and starts again with its whole budget, as in MemoryRateLimitStore.
 * - A client hit at least once every PROBE_RUN - 1 hits of its scope (all threads, times from
 *   one clock, strictly increasing) is never evicted while its counters count: an eviction takes
 *   it only when all PROBE_RUN - 1 other slots of the run were seen after it, and fewer hits
 *   than that cannot renew them all.
 * - A thread waiting for a slot lock spins, then sleeps in short steps; after LOCK_TAKEOVER_MS it
 *   takes the lock over. That only happens if the holder died inside its few-instruction
 *   critical section (worker.terminate()) or was descheduled that long; it trades a possible
 *   miscount of that one client for never stalling the server.
 * - `size` counts occupied slots: a slot is reused, never emptied, so `size` reaches at most
 *   `2 × maxEntries` and does not shrink when clients go quiet.
 * - Attaching needs the same algorithm and maxEntries as the creator; anything else throws.
 */
import { decideWindow, rolledPrev, type RateLimitResult, type RateLimitScope, type RateLimitStore } from './rate-limit.js';

/** Identifies a buffer laid out by this module ("NGRL": nightgate rate limit). */
const MAGIC = 0x4e47524c;
/** Bumped whenever the layout changes, so a stale worker bundle fails fast on attach. */
const LAYOUT_VERSION = 1;
const MAX_ENTRIES = 1 << 22;

/** Slots an id may live in, from its home slot on. */
const PROBE_RUN = 16;

const BYTES_PER_LINE = 64;
const WORDS_PER_LINE = BYTES_PER_LINE / Int32Array.BYTES_PER_ELEMENT;
const FLOATS_PER_LINE = BYTES_PER_LINE / Float64Array.BYTES_PER_ELEMENT;

// Header words.
const H_MAGIC = 0;
const H_VERSION = 1;
const H_ALGORITHM = 2;
const H_MAX_ENTRIES = 3;
/** Occupied slots over both scopes (slots are reused, never emptied). */
const H_SIZE = 4;

// Slot Int32 words, from the slot's first word.
const LOCK = 0;
const INSERT = 1;
const USED = 2;
const HASH_A = 3;
const HASH_B = 4;
// Slot Float64 words, from the slot's first float (the second half of the line).
const FLOATS_OFFSET = FLOATS_PER_LINE / 2;
const WINDOW_START = 0;
const PREV = 1;
const CURR = 2;
const LAST_SEEN = 3;

const UNLOCKED = 0;
const LOCKED = 1;
/** Compare-exchange attempts before a waiter starts sleeping. */
const SPINS = 200;
const PAUSE_MS = 0.05;
const LOCK_TAKEOVER_MS = 1_000;

/** Size in bytes of the table for `maxEntries` slots per scope. */
export function sharedRateLimitBytes(maxEntries: number): number {
  return BYTES_PER_LINE * (1 + 2 * maxEntries);
}

export class SharedRateLimitStore implements RateLimitStore {
  readonly buffer: SharedArrayBuffer;
  private readonly words: Int32Array;
  private readonly floats: Float64Array;
  private readonly probe: number;

  /** `buffer`: attach to a table another thread made (same algorithm and maxEntries); omitted: make a new one. */
  constructor(
    private readonly algorithm: 'fixed' | 'sliding',
    /** Slots per scope. */
    private readonly maxEntries: number,
    buffer?: SharedArrayBuffer,
  ) {
    if (algorithm !== 'fixed' && algorithm !== 'sliding') throw new TypeError(`rate-limit algorithm must be fixed or sliding, got ${String(algorithm)}`);
    if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_ENTRIES) {
      throw new RangeError(`rate-limit maxEntries must be an integer from 1 to ${MAX_ENTRIES}, got ${maxEntries}`);
    }
    const bytes = sharedRateLimitBytes(maxEntries);
    const code = algorithm === 'fixed' ? 0 : 1;
    if (buffer === undefined) {
      buffer = new SharedArrayBuffer(bytes);
      const words = new Int32Array(buffer);
      words[H_VERSION] = LAYOUT_VERSION;
      words[H_ALGORITHM] = code;
      words[H_MAX_ENTRIES] = maxEntries;
      // Posting the buffer to a worker happens after this store, so workers see a complete header.
      Atomics.store(words, H_MAGIC, MAGIC);
    } else {
      if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength < BYTES_PER_LINE) {
        throw new TypeError('SharedRateLimitStore needs the SharedArrayBuffer of a SharedRateLimitStore');
      }
      const words = new Int32Array(buffer);
      if (Atomics.load(words, H_MAGIC) !== MAGIC) throw new TypeError('SharedRateLimitStore: the buffer is not a rate-limit table');
      const version = Atomics.load(words, H_VERSION);
      if (version !== LAYOUT_VERSION) throw new TypeError(`SharedRateLimitStore: table layout version ${version}, this code reads ${LAYOUT_VERSION}`);
      if (Atomics.load(words, H_ALGORITHM) !== code) throw new TypeError(`SharedRateLimitStore: the table was made for the other algorithm, not ${algorithm}`);
      const made = Atomics.load(words, H_MAX_ENTRIES);
      if (made !== maxEntries || buffer.byteLength !== bytes) {
        throw new TypeError(`SharedRateLimitStore: the table was made with maxEntries ${made}, not ${maxEntries}`);
      }
    }
    this.buffer = buffer;
    this.words = new Int32Array(buffer);
    this.floats = new Float64Array(buffer);
    this.probe = Math.min(PROBE_RUN, maxEntries);
  }

  /** Tracked clients over both scopes: occupied slots. */
  get size(): number {
    return Atomics.load(this.words, H_SIZE);
  }

  hit(scope: RateLimitScope, id: string, limit: number, windowMs: number, now: number): RateLimitResult {
    const a = hashA(id);
    const b = hashB(id);
    const first = scope === 'key' ? 1 : 1 + this.maxEntries;
    const home = (a >>> 0) % this.maxEntries;
    const words = this.words;
    for (;;) {
      let base = this.find(first, home, a, b);
      if (base < 0) {
        const insert = (first + home) * WORDS_PER_LINE + INSERT;
        this.lock(insert);
        base = this.find(first, home, a, b);
        if (base < 0) base = this.claim(first, home, a, b, windowMs, now);
        else this.lock(base + LOCK);
        this.unlock(insert);
      } else {
        this.lock(base + LOCK);
      }
      // Found without a lock: the slot may have been given to another id since. Look again.
      if (words[base + USED] !== 1 || words[base + HASH_A] !== a || words[base + HASH_B] !== b) {
        this.unlock(base + LOCK);
        continue;
      }
      const result = this.count(base, limit, windowMs, now);
      this.unlock(base + LOCK);
      return result;
    }
  }

  /**
   * The slot (its first word) holding the id in its run, or -1. Plain reads, taken as hints: the
   * caller checks the id again under the slot lock.
   */
  private find(first: number, home: number, a: number, b: number): number {
    const words = this.words;
    let index = home;
    for (let i = 0; i < this.probe; i++) {
      const base = (first + index) * WORDS_PER_LINE;
      if (words[base + HASH_A] === a && words[base + HASH_B] === b && words[base + USED] === 1) return base;
      if (++index === this.maxEntries) index = 0;
    }
    return -1;
  }

  /**
   * A slot of the run for a new id, returned locked with the id written and fresh counters: a free
   * slot, else one that no longer counts, else the least recently seen. The caller holds the
   * id's insert lock, so no other thread adds the same id meanwhile.
   */
  private claim(first: number, home: number, a: number, b: number, windowMs: number, now: number): number {
    const words = this.words;
    const floats = this.floats;
    const windowStart = now - (now % windowMs);
    const horizon = windowStart - windowMs;
    for (let attempt = 0; ; attempt++) {
      let victim = -1;
      let victimSeen = Infinity;
      let victimA = 0;
      let victimB = 0;
      let index = home;
      for (let i = 0; i < this.probe; i++) {
        const base = (first + index) * WORDS_PER_LINE;
        if (++index === this.maxEntries) index = 0;
        this.lock(base + LOCK);
        if (words[base + USED] === 0) {
          Atomics.add(words, H_SIZE, 1);
          words[base + USED] = 1;
          return this.take(base, a, b, windowStart, now);
        }
        const f = base / 2 + FLOATS_OFFSET;
        if (floats[f + WINDOW_START]! < horizon) return this.take(base, a, b, windowStart, now);
        const seen = floats[f + LAST_SEEN]!;
        if (seen < victimSeen) {
          victim = base;
          victimSeen = seen;
          victimA = words[base + HASH_A]!;
          victimB = words[base + HASH_B]!;
        }
        this.unlock(base + LOCK);
      }
      this.lock(victim + LOCK);
      // Unchanged since the scan (or the run is too busy to wait for a quiet moment): evict it.
      if (
        attempt >= 3 ||
        (words[victim + HASH_A] === victimA && words[victim + HASH_B] === victimB && floats[victim / 2 + FLOATS_OFFSET + LAST_SEEN] === victimSeen)
      ) {
        return this.take(victim, a, b, windowStart, now);
      }
      this.unlock(victim + LOCK);
    }
  }

  /** Writes the id and fresh counters into a locked, occupied slot; returns it still locked. */
  private take(base: number, a: number, b: number, windowStart: number, now: number): number {
    const words = this.words;
    const floats = this.floats;
    words[base + HASH_A] = a;
    words[base + HASH_B] = b;
    const f = base / 2 + FLOATS_OFFSET;
    floats[f + WINDOW_START] = windowStart;
    floats[f + PREV] = 0;
    floats[f + CURR] = 0;
    floats[f + LAST_SEEN] = now;
    return base;
  }

  /** One hit on a locked slot: roll its window, decide, record. */
  private count(base: number, limit: number, windowMs: number, now: number): RateLimitResult {
    const floats = this.floats;
    const f = base / 2 + FLOATS_OFFSET;
    let start = floats[f + WINDOW_START]!;
    let prev = floats[f + PREV]!;
    let curr = floats[f + CURR]!;
    if (now < start) now = start;
    const windowStart = now - (now % windowMs);
    if (start !== windowStart) {
      prev = rolledPrev(start, curr, windowStart, windowMs);
      curr = 0;
      start = windowStart;
      floats[f + WINDOW_START] = start;
      floats[f + PREV] = prev;
    }
    const result = decideWindow(this.algorithm, start, prev, curr, limit, windowMs, now);
    floats[f + CURR] = result.allowed ? curr + 1 : curr;
    if (now > floats[f + LAST_SEEN]!) floats[f + LAST_SEEN] = now;
    return result;
  }

  private lock(word: number): void {
    if (Atomics.compareExchange(this.words, word, UNLOCKED, LOCKED) !== UNLOCKED) this.wait(word);
  }

  /**
   * The lock is held elsewhere: spin (the holder runs a few instructions), then sleep in short
   * steps (the holder may have been descheduled), and take it over after LOCK_TAKEOVER_MS.
   */
  private wait(word: number): void {
    const words = this.words;
    let spins = 0;
    let since = 0;
    for (;;) {
      if (Atomics.load(words, word) === UNLOCKED && Atomics.compareExchange(words, word, UNLOCKED, LOCKED) === UNLOCKED) return;
      if (++spins < SPINS) continue;
      Atomics.wait(words, word, LOCKED, PAUSE_MS);
      const t = performance.now();
      if (since === 0) since = t;
      else if (t - since > LOCK_TAKEOVER_MS) return;
    }
  }

  private unlock(word: number): void {
    Atomics.store(this.words, word, UNLOCKED);
  }
}

/** Murmur3's finaliser: every input bit reaches every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** FNV-1a over the UTF-16 code units, mixed. */
function hashA(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix(h);
}

/** A multiply-shift hash with another multiplier and seed (independent of hashA), mixed. */
function hashB(s: string): number {
  let h = 0x9e3779b9 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    h = Math.imul(h ^ s.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return mix(h);
}
