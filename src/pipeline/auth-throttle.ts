/**
 * Failed authentications, limited per client address (issue 18). A guesser gets `limit` wrong
 * answers per window; after that every keyed request from its address is refused with 429 before
 * the presented key is looked at, so a throttled address learns nothing about any key (a valid one
 * included) until the window lets it in again. Only failures are counted: clients with valid keys
 * never spend this budget, and the check they pass is one Map lookup. IPv6 addresses count by /64
 * (`rateLimitSubject`), like the public per-IP limit. Memory is bounded by the rate-limit store's
 * cap (least recently used addresses are forgotten first).
 */
import { MemoryRateLimitStore, type RateLimitResult } from './rate-limit.js';

export interface AuthThrottleOptions {
  /** Failures admitted per window per address. */
  limit: number;
  windowMs: number;
  algorithm: 'fixed' | 'sliding';
  /** Addresses tracked at most. */
  maxEntries: number;
}

export class AuthThrottle {
  private readonly failures: MemoryRateLimitStore;

  constructor(private readonly opts: AuthThrottleOptions) {
    this.failures = new MemoryRateLimitStore(opts.algorithm, opts.maxEntries);
  }

  /** The denial to answer if `subject` has used up its failures, else undefined. */
  refused(subject: string, now: number): RateLimitResult | undefined {
    const r = this.failures.peek('ip', subject, this.opts.limit, this.opts.windowMs, now);
    return r !== undefined && !r.allowed ? r : undefined;
  }

  /** Count one failed authentication of `subject`. */
  failed(subject: string, now: number): void {
    this.failures.hit('ip', subject, this.opts.limit, this.opts.windowMs, now);
  }

  /** Addresses tracked. */
  get size(): number {
    return this.failures.size;
  }
}
