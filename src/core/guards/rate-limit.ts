/**
 * Rate limiting: a store behind an interface (memory now; a shared store such as Redis can
 * implement the same `hit`), fixed or sliding window, and the response headers.
 *
 * Headers: the de-facto `X-RateLimit-Limit/Remaining/Reset` (Reset is a Unix timestamp in
 * seconds) plus the IETF draft's structured fields (draft-ietf-httpapi-ratelimit-headers-09 §4,§5):
 * `RateLimit-Policy: "<name>";q=<quota>;w=<window s>` and `RateLimit: "<name>";r=<remaining>;t=<s to reset>`.
 * A 429 carries `Retry-After` (RFC 9110 §10.2.3) in seconds, never earlier than the moment a
 * request would be admitted again.
 */
export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  windowMs: number;
  /** When the next request is admitted (if denied) or when the current window ends (if allowed), ms. */
  resetAt: number;
}

/**
 * What is counted: an API key, or a client IP on public routes. Scopes are counted apart, so a
 * churn of client IPs can never evict a real API key's counter.
 */
export type RateLimitScope = 'key' | 'ip';

export interface RateLimitStore {
  hit(scope: RateLimitScope, id: string, limit: number, windowMs: number, now: number): RateLimitResult | Promise<RateLimitResult>;
  /** Tracked clients over all scopes (for health and for the bounded-memory tests). */
  readonly size: number;
}

interface Entry {
  windowStart: number;
  prev: number;
  curr: number;
  /** Recency: the scope's `seq` when the entry was inserted or last moved to the recent end. */
  seq: number;
}

/**
 * One scope's counters, bounded. A Map iterates in insertion order, so it doubles as the recency
 * list: the first entry is the least recently used. Moving an entry to the end on every hit would
 * cost a delete and an insert per request; it is moved only once it has fallen into the older half
 * (more than cap/2 insertions or moves ago). So a client seen at least once per cap/2 new clients is
 * never evicted, and a full table costs one extra Map operation per cap/2 requests of a client.
 */
class Counters {
  readonly entries = new Map<string, Entry>();
  seq = 0;
  lastSweep = 0;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly scopes: Record<RateLimitScope, Counters> = { key: new Counters(), ip: new Counters() };
  private readonly half: number;

  constructor(
    private readonly algorithm: 'fixed' | 'sliding',
    /** Cap per scope. */
    private readonly maxEntries: number,
  ) {
    this.half = maxEntries >> 1;
  }

  get size(): number {
    return this.scopes.key.entries.size + this.scopes.ip.entries.size;
  }

  hit(scope: RateLimitScope, id: string, limit: number, windowMs: number, now: number): RateLimitResult {
    const windowStart = now - (now % windowMs);
    const counters = this.scopes[scope];
    const entries = counters.entries;
    let e = entries.get(id);
    if (e === undefined) {
      // Full: drop what no longer counts, else the least recently used entry. A new client always
      // gets a counter of its own (a shared overflow counter would lock every new client out).
      if (entries.size >= this.maxEntries) this.sweep(counters, now, windowMs);
      if (entries.size >= this.maxEntries) entries.delete(entries.keys().next().value!);
      e = { windowStart, prev: 0, curr: 0, seq: ++counters.seq };
      entries.set(id, e);
    } else if (counters.seq - e.seq > this.half) {
      entries.delete(id);
      entries.set(id, e);
      e.seq = ++counters.seq;
    }
    if (e.windowStart !== windowStart) {
      // Roll the window.
      e.prev = rolledPrev(e.windowStart, e.curr, windowStart, windowMs);
      e.curr = 0;
      e.windowStart = windowStart;
    }
    const result = decideWindow(this.algorithm, e.windowStart, e.prev, e.curr, limit, windowMs, now);
    if (result.allowed) e.curr++;
    return result;
  }

  /**
   * What `hit` would answer, without counting anything or touching recency; undefined for a
   * client not tracked (it has its whole budget).
   */
  peek(scope: RateLimitScope, id: string, limit: number, windowMs: number, now: number): RateLimitResult | undefined {
    const e = this.scopes[scope].entries.get(id);
    if (e === undefined) return undefined;
    const windowStart = now - (now % windowMs);
    if (e.windowStart !== windowStart) {
      return decideWindow(this.algorithm, windowStart, rolledPrev(e.windowStart, e.curr, windowStart, windowMs), 0, limit, windowMs, now);
    }
    return decideWindow(this.algorithm, e.windowStart, e.prev, e.curr, limit, windowMs, now);
  }

  /**
   * Reconciliation hook for a shared store (src/infra/state/rate-limit.ts): adds `count` hits made on
   * other instances to a tracked client's counter of the window starting at `windowStart`. A
   * client not tracked, or tracked in another window, is left alone.
   */
  absorb(scope: RateLimitScope, id: string, windowStart: number, count: number): void {
    const e = this.scopes[scope].entries.get(id);
    if (e !== undefined && e.windowStart === windowStart) e.curr += count;
  }

  /** Drop entries that no longer influence any decision (older than two windows). At most once per window. */
  private sweep(counters: Counters, now: number, windowMs: number): void {
    if (now - counters.lastSweep < windowMs) return;
    counters.lastSweep = now;
    const horizon = now - (now % windowMs) - windowMs;
    for (const [k, e] of counters.entries) if (e.windowStart < horizon) counters.entries.delete(k);
  }
}

/**
 * The previous window's count once a counter moves to the window starting at `windowStart`: the
 * old current count if it was the adjacent window, else nothing.
 */
export function rolledPrev(counterStart: number, curr: number, windowStart: number, windowMs: number): number {
  return counterStart === windowStart - windowMs ? curr : 0;
}

/**
 * Admit or deny one more request of a counter already in the current window (`windowStart`,
 * with `prev` and `curr` hits). Counts nothing: a store that records the hit adds one to `curr`
 * when the answer is allowed.
 */
export function decideWindow(
  algorithm: 'fixed' | 'sliding',
  windowStart: number,
  prev: number,
  curr: number,
  limit: number,
  windowMs: number,
  now: number,
): RateLimitResult {
  const windowEnd = windowStart + windowMs;
  if (algorithm === 'fixed') {
    if (curr < limit) return { allowed: true, limit, remaining: limit - curr - 1, windowMs, resetAt: windowEnd };
    return { allowed: false, limit, remaining: 0, windowMs, resetAt: windowEnd };
  }
  // Sliding window counter: the previous window's count weighted by how much of it still
  // overlaps the sliding window, plus the current window's count.
  const weight = 1 - (now - windowStart) / windowMs;
  const estimate = prev * weight + curr;
  if (estimate + 1 <= limit) {
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - estimate - 1)), windowMs, resetAt: windowEnd };
  }
  return { allowed: false, limit, remaining: 0, windowMs, resetAt: admitAt(windowStart, prev, curr, limit, windowMs, now) };
}

/** Sliding window: earliest time at which one more request fits, assuming no other request arrives meanwhile. */
export function admitAt(windowStart: number, prev: number, curr: number, limit: number, windowMs: number, now: number): number {
  const room = limit - 1;
  if (curr <= room && prev > 0) {
    // Within this window, once prev's weight has decayed enough: prev*(1 - x) + curr <= room.
    const x = 1 - (room - curr) / prev;
    return Math.max(now + 1, Math.ceil(windowStart + x * windowMs));
  }
  // Next window: curr becomes prev: curr*(1 - x) <= room.
  const x = curr === 0 ? 0 : Math.max(0, 1 - room / curr);
  return Math.ceil(windowStart + windowMs + x * windowMs);
}

/** `RateLimit-Policy: "<name>";q=<quota>;w=<window s>` (draft-ietf-httpapi-ratelimit-headers-09 §5). */
export function policyField(name: string, limit: number, windowMs: number): string {
  return `"${name}";q=${limit};w=${Math.ceil(windowMs / 1000)}`;
}

/** `RateLimit: "<name>";r=<remaining>;t=<seconds to reset>` (same draft, §4). */
export function rateLimitField(name: string, remaining: number, resetAt: number, now: number): string {
  return `"${name}";r=${remaining};t=${Math.max(0, Math.ceil((resetAt - now) / 1000))}`;
}

/** `X-RateLimit-Reset`: Unix time in seconds, rounded up so it is never early. */
export function resetSeconds(resetAt: number): number {
  return Math.ceil(resetAt / 1000);
}

/** `Retry-After` (RFC 9110 §10.2.3) counts from now to the reset second: never before X-RateLimit-Reset. */
export function retryAfterSeconds(resetAt: number, now: number): number {
  return Math.max(1, resetSeconds(resetAt) - Math.floor(now / 1000));
}
