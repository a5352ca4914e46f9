/**
 * Failed authentications, limited per client address. A guesser gets `limit` wrong
 * answers per window; after that every keyed request from its address is refused with 429 before
 * the presented key is looked at, so a throttled address learns nothing about any key (a valid one
 * included) until the window lets it in again. Only failures are counted: clients with valid keys
 * never spend this budget, and the check they pass is one Map lookup. IPv6 addresses count by /64
 * (`rateLimitSubject`), like the public per-IP limit. Memory is bounded by the rate-limit store's
 * cap (least recently used addresses are forgotten first).
 *
 * With several instances (`state.redisUrl`) failures are also counted in Redis
 * (src/infra/state/auth-throttle.ts): an address whose failures over all instances reach the limit is
 * refused here too, until the window ends.
 */
import { MemoryRateLimitStore, type RateLimitResult } from './rate-limit.js';

/**
 * Failed authentications counted over every instance (src/infra/state/auth-throttle.ts): the total of the window, or undefined when the count is unavailable.
 */
interface SharedAuthFailures {
  failed(subject: string, windowStart: number, windowMs: number): Promise<number | undefined>;
}

interface AuthThrottleOptions {
  /** Failures admitted per window per address. */
  limit: number;
  windowMs: number;
  algorithm: 'fixed' | 'sliding';
  /** Addresses tracked at most. */
  maxEntries: number;
  /** Failures over every instance (Redis); absent: this process alone. */
  shared?: SharedAuthFailures | undefined;
}

export class AuthThrottle {
  private readonly failures: MemoryRateLimitStore;
  /** Addresses the shared count has throttled: until when (ms). Bounded like the local counters. */
  private readonly blocked = new Map<string, number>();

  constructor(private readonly opts: AuthThrottleOptions) {
    this.failures = new MemoryRateLimitStore(opts.algorithm, opts.maxEntries);
  }

  /** The denial to answer if `subject` has used up its failures, else undefined. */
  refused(subject: string, now: number): RateLimitResult | undefined {
    const r = this.failures.peek('ip', subject, this.opts.limit, this.opts.windowMs, now);
    if (r !== undefined && !r.allowed) return r;
    if (this.blocked.size === 0) return undefined;
    const until = this.blocked.get(subject);
    if (until === undefined) return undefined;
    if (until <= now) {
      this.blocked.delete(subject);
      return undefined;
    }
    return { allowed: false, limit: this.opts.limit, remaining: 0, windowMs: this.opts.windowMs, resetAt: until };
  }

  /** Count one failed authentication of `subject`. */
  failed(subject: string, now: number): void {
    this.failures.hit('ip', subject, this.opts.limit, this.opts.windowMs, now);
    const shared = this.opts.shared;
    if (shared === undefined) return;
    const { windowMs, limit } = this.opts;
    const windowStart = now - (now % windowMs);
    void shared.failed(subject, windowStart, windowMs).then((total) => {
      if (total === undefined || total < limit) return;
      if (this.blocked.size >= this.opts.maxEntries) this.blocked.delete(this.blocked.keys().next().value!);
      this.blocked.set(subject, windowStart + windowMs);
    });
  }

  /** Addresses tracked. */
  get size(): number {
    return this.failures.size;
  }
}
