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
 * (src/features/sponsorship/shared/user-counters.ts).
 */
import { secondsToWindowEnd, windowStartOf } from '../fixed-window.js';

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

export type UserCapRule = 'perUser.maxSponsorships' | 'perUser.maxDust';

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
  windowStart: number;
  count: number;
  dust: bigint;
}

/**
 * One instance's counters. At most `maxUsers` (key, user) pairs: beyond, counters of past windows
 * go first, then the least recently used (a user forgotten that way starts the window afresh).
 */
export class MemoryUserCounters implements UserCounterStore {
  private readonly counters = new Map<string, Counter>();

  constructor(private readonly maxUsers = 1_000_000) {}

  private counter(keyId: string, user: string, windowMs: number, now: number, create: boolean): Counter | undefined {
    const id = `${keyId}\u0000${user}`;
    const windowStart = windowStartOf(now, windowMs);
    let c = this.counters.get(id);
    if (c !== undefined) {
      // Most recently used last: Map keeps insertion order.
      this.counters.delete(id);
      this.counters.set(id, c);
      if (c.windowStart !== windowStart) {
        if (c.windowStart > windowStart) return c;
        c.windowStart = windowStart;
        c.count = 0;
        c.dust = 0n;
      }
      return c;
    }
    if (!create) return undefined;
    if (this.counters.size >= this.maxUsers) this.evict(windowStart);
    c = { windowStart, count: 0, dust: 0n };
    this.counters.set(id, c);
    return c;
  }

  private evict(windowStart: number): void {
    for (const [id, c] of this.counters) if (c.windowStart < windowStart) this.counters.delete(id);
    if (this.counters.size < this.maxUsers) return;
    const oldest = this.counters.keys().next();
    if (!oldest.done) this.counters.delete(oldest.value);
  }

  hold(keyId: string, user: string, limits: UserLimits, now: number): HoldResult {
    const c = this.counter(keyId, user, limits.windowMs, now, true)!;
    const retryAfterS = secondsToWindowEnd(now, limits.windowMs);
    if (limits.maxSponsorships !== undefined && c.count >= limits.maxSponsorships) return { ok: false, rule: 'perUser.maxSponsorships', retryAfterS };
    if (limits.maxDust !== undefined && c.dust >= limits.maxDust) return { ok: false, rule: 'perUser.maxDust', retryAfterS };
    c.count++;
    return { ok: true, hold: { keyId, user, windowStart: c.windowStart, windowMs: limits.windowMs } };
  }

  private sameWindow(hold: UserHold): Counter | undefined {
    const c = this.counters.get(`${hold.keyId}\u0000${hold.user}`);
    return c?.windowStart === hold.windowStart ? c : undefined;
  }

  commit(hold: UserHold, fee: bigint, maxDust: bigint | undefined): boolean {
    const c = this.sameWindow(hold);
    // The window ended while the sponsorship was built: the answer counts in none (as a budget's).
    if (!c) return true;
    if (maxDust !== undefined && c.dust + fee > maxDust) {
      c.count = Math.max(0, c.count - 1);
      return false;
    }
    c.dust += fee;
    return true;
  }

  release(hold: UserHold): void {
    const c = this.sameWindow(hold);
    if (c) c.count = Math.max(0, c.count - 1);
  }

  refund(hold: UserHold, fee: bigint): void {
    const c = this.sameWindow(hold);
    if (!c) return;
    c.count = Math.max(0, c.count - 1);
    c.dust = c.dust > fee ? c.dust - fee : 0n;
  }

  read(keyId: string, user: string, windowMs: number, now: number): { count: number; dust: bigint } {
    const c = this.counters.get(`${keyId}\u0000${user}`);
    return c?.windowStart === windowStartOf(now, windowMs) ? { count: c.count, dust: c.dust } : { count: 0, dust: 0n };
  }
}
