/**
 * Per-user caps of a key's policy (`perUser`): sponsorships and DUST per end user per window.
 * Windows are fixed (aligned to multiples of `windowMs`, like the key budgets), so a user at the cap
 * knows when it opens again.
 *
 * A sponsorship holds one place in its user's count before anything is reserved (`hold`), so
 * concurrent requests of one user can never pass `maxSponsorships` together; the place is given
 * back if no answer is given (`release`). The answer's fee is added when it is known (`commit`),
 * which refuses a fee that would pass `maxDust` (the caller then releases the DUST reservation).
 * An answer whose reservation is reclaimed unspent (it never landed) gives back its place and fee
 * (`refund`), as the key's budget does: a user is counted for what lands or is pending.
 *
 * The store sits behind this interface: memory here, Redis for several instances
 * (src/features/sponsorship/redis/user-counters.ts).
 */
import { secondsToWindowEnd, windowStartOf } from '../common/fixed-window.js';

export interface UserLimits {
  readonly maxSponsorships?: number | undefined;
  readonly maxDust?: bigint | undefined;
  readonly windowMs: number;
}

export interface UserHold {
  readonly keyId: string;
  readonly user: string;
  readonly windowStart: number;
  readonly windowMs: number;
  /** Idempotency token of a shared hold (Redis): its release or refund counts once. */
  readonly token?: string;
}

type UserCapRule = 'perUser.maxSponsorships' | 'perUser.maxDust';

export type HoldResult = { readonly ok: true; readonly hold: UserHold } | { readonly ok: false; readonly rule: UserCapRule; readonly retryAfterS: number };

export interface UserCounterStore {
  /** One place in the user's count for this window, if the count and the DUST spent are under the caps. */
  hold(keyId: string, user: string, limits: UserLimits, now: number): HoldResult | Promise<HoldResult>;
  /** Adds the answer's fee to the user's DUST; false when that would pass `maxDust` (the place is then released). */
  commit(hold: UserHold, fee: bigint, maxDust: bigint | undefined): boolean | Promise<boolean>;
  /** Gives back a place whose sponsorship got no answer. */
  release(hold: UserHold): void | Promise<void>;
  /** Gives back an answered sponsorship (its place and fee) whose reservation was reclaimed unspent. */
  refund(hold: UserHold, fee: bigint): void | Promise<void>;
  /** The user's count and DUST in the window holding `now` (for /usage and tests). */
  read(keyId: string, user: string, windowMs: number, now: number): { count: number; dust: bigint } | Promise<{ count: number; dust: bigint }>;
}

interface Counter {
  /** When the counter may be forgotten: a window after its window ends, as in Redis. */
  expiresAt: number;
  count: number;
  dust: bigint;
}

interface KeyCounters {
  /** `${user}\u0000${windowStart}` → counter, least recently used first (Map keeps insertion order). */
  readonly counters: Map<string, Counter>;
  sweptAt: number;
}

/** Fewest ms between two sweeps of a full key's expired counters (a sweep scans them all). */
const SWEEP_GAP_MS = 1_000;

/**
 * One instance's counters, per key and user and window: an answer committed, released or refunded
 * after its window ended still counts in that window, as in Redis. A counter a release or refund
 * brings back to nothing is dropped (a refused request leaves nothing behind); the others are kept
 * a window past their window's end. At most `maxUsersPerKey` counters a key, so one key's users
 * never push out another's: beyond, the expired go first (swept at most once a second), then the
 * least recently used (a user forgotten that way starts the window afresh).
 */
export class MemoryUserCounters implements UserCounterStore {
  private readonly keys = new Map<string, KeyCounters>();

  constructor(private readonly maxUsersPerKey = 200_000) {}

  private idOf(user: string, windowStart: number): string {
    return `${user}\u0000${windowStart}`;
  }

  private find(hold: UserHold): { k: KeyCounters; id: string; c: Counter } | undefined {
    const k = this.keys.get(hold.keyId);
    const id = this.idOf(hold.user, hold.windowStart);
    const c = k?.counters.get(id);
    return k && c ? { k, id, c } : undefined;
  }

  /** Drops a counter with nothing in it, and its key's map once empty. */
  private dropIfEmpty(keyId: string, k: KeyCounters, id: string, c: Counter): void {
    if (c.count > 0 || c.dust > 0n) return;
    k.counters.delete(id);
    if (k.counters.size === 0) this.keys.delete(keyId);
  }

  private makeRoom(k: KeyCounters, now: number): void {
    if (k.counters.size < this.maxUsersPerKey) return;
    if (now - k.sweptAt >= SWEEP_GAP_MS) {
      k.sweptAt = now;
      for (const [id, c] of k.counters) if (c.expiresAt <= now) k.counters.delete(id);
    }
    while (k.counters.size >= this.maxUsersPerKey) {
      const oldest = k.counters.keys().next();
      if (oldest.done) break;
      k.counters.delete(oldest.value);
    }
  }

  hold(keyId: string, user: string, limits: UserLimits, now: number): HoldResult {
    const windowStart = windowStartOf(now, limits.windowMs);
    let k = this.keys.get(keyId);
    if (k === undefined) this.keys.set(keyId, (k = { counters: new Map(), sweptAt: -Infinity }));
    const id = this.idOf(user, windowStart);
    let c = k.counters.get(id);
    if (c !== undefined)
      k.counters.delete(id); // used now: to the end
    else {
      this.makeRoom(k, now);
      c = { expiresAt: windowStart + 2 * limits.windowMs, count: 0, dust: 0n };
    }
    k.counters.set(id, c);
    const retryAfterS = secondsToWindowEnd(now, limits.windowMs);
    let refused: UserCapRule | undefined;
    if (limits.maxSponsorships !== undefined && c.count >= limits.maxSponsorships) refused = 'perUser.maxSponsorships';
    else if (limits.maxDust !== undefined && c.dust >= limits.maxDust) refused = 'perUser.maxDust';
    if (refused !== undefined) {
      this.dropIfEmpty(keyId, k, id, c);
      return { ok: false, rule: refused, retryAfterS };
    }
    c.count++;
    return { ok: true, hold: { keyId, user, windowStart, windowMs: limits.windowMs } };
  }

  commit(hold: UserHold, fee: bigint, maxDust: bigint | undefined): boolean {
    const f = this.find(hold);
    // The window's counter is gone (forgotten a window after it ended): the answer counts in none.
    if (!f) return true;
    if (maxDust !== undefined && f.c.dust + fee > maxDust) {
      f.c.count = Math.max(0, f.c.count - 1);
      this.dropIfEmpty(hold.keyId, f.k, f.id, f.c);
      return false;
    }
    f.c.dust += fee;
    return true;
  }

  release(hold: UserHold): void {
    const f = this.find(hold);
    if (!f) return;
    f.c.count = Math.max(0, f.c.count - 1);
    this.dropIfEmpty(hold.keyId, f.k, f.id, f.c);
  }

  refund(hold: UserHold, fee: bigint): void {
    const f = this.find(hold);
    if (!f) return;
    f.c.count = Math.max(0, f.c.count - 1);
    f.c.dust = f.c.dust > fee ? f.c.dust - fee : 0n;
    this.dropIfEmpty(hold.keyId, f.k, f.id, f.c);
  }

  read(keyId: string, user: string, windowMs: number, now: number): { count: number; dust: bigint } {
    const c = this.keys.get(keyId)?.counters.get(this.idOf(user, windowStartOf(now, windowMs)));
    return c ? { count: c.count, dust: c.dust } : { count: 0, dust: 0n };
  }

  /** Counters held now, all keys (tests). */
  get size(): number {
    let n = 0;
    for (const k of this.keys.values()) n += k.counters.size;
    return n;
  }
}
