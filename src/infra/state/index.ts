/**
 * Shared state for several instances: with `state.redisUrl` set, the stores that must agree across
 * instances live in Redis, each behind the interface its in-memory store already has (the memory
 * stores stay the default and are unchanged without it):
 *
 * | concern                         | interface (memory default)                                     | Redis                                       |
 * |---------------------------------|----------------------------------------------------------------|---------------------------------------------|
 * | per-key / per-IP rate limits    | RateLimitStore (core/guards/rate-limit.ts)                   | infra/state/rate-limit.ts                   |
 * | failed-login throttling         | AuthThrottle (core/guards/auth-throttle.ts)                  | infra/state/auth-throttle.ts                |
 * | per-key DUST budgets            | BudgetStore (features/sponsorship/admission/budget.ts)         | features/sponsorship/redis/budget.ts        |
 * | dedupe, per-key reservation cap | SponsorshipSharing (features/sponsorship/admission/sharing.ts) | features/sponsorship/redis/sponsorship.ts   |
 * | one owner per DUST wallet       | —                                                              | features/sponsorship/redis/wallet-leases.ts |
 * | /prove and /verify results      | ProofResults (features/proving/proof-results.ts)               | features/proving/shared-proof-cache.ts      |
 *
 * The features' stores register their Lua scripts when their modules load, which app.ts does
 * before calling `startSharedState` (the client sends scripts by EVALSHA). The counters of what
 * was done without Redis (`SharedState.counters()`, also in /health under components.state) are
 * what the metrics read.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { Config } from '../../core/config/index.js';
import { SharedAuthFailures } from './auth-throttle.js';
import { RedisRateLimitStore } from './rate-limit.js';
import { RedisState, type SharedStateCounters } from './redis.js';

export interface SharedState {
  readonly redis: RedisState;
  readonly rateLimit: RedisRateLimitStore;
  readonly authFailures: SharedAuthFailures;
  /** What the shared stores did without Redis since start (a plain getter for the metrics). */
  counters(): Readonly<SharedStateCounters>;
  close(): Promise<void>;
}

/** Connects (waiting up to `waitMs` for Redis; an instance starts without it and keeps trying). */
export async function startSharedState(config: Readonly<Config>, logger: Logger, _clock: Clock, waitMs = 3_000): Promise<SharedState> {
  const redis = new RedisState({ url: config.state.redisUrl, logger });
  await redis.start(waitMs);
  const rateLimit = new RedisRateLimitStore(redis, { algorithm: config.rateLimit.algorithm, maxEntries: config.rateLimit.maxEntries, logger });
  return {
    redis,
    rateLimit,
    authFailures: new SharedAuthFailures(redis),
    counters: () => redis.counters(),
    close: async () => {
      rateLimit.close();
      await redis.close();
    },
  };
}
