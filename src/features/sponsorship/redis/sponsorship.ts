/**
 * What several instances share about sponsorship: the dedupe of answers, each key's
 * share of the DUST pool (`dust.maxReservationsPerKey`), and the gate that refuses a
 * sponsorship this instance cannot account for exactly (Redis away: 503 BUDGET_UNAVAILABLE; its
 * wallets' lease not held: 503 WALLET_LEASE_LOST, src/features/sponsorship/redis/wallet-leases.ts).
 *
 * Dedupe: the first instance to see a key's bytes claims them in Redis (SET NX, with a
 * deadline); an instance that finds them claimed waits for the answer (polling Redis, bounded)
 * and serves it as a HIT, so a retry that lands elsewhere never takes a second UTXO. A claim
 * whose sponsorship fails is dropped, so the retry computes again.
 *
 * Share of the pool: a sorted set per network and key, one member per reservation (in flight or
 * answered), scored by when it ends at the latest (its reclaim deadline). Admission is one Lua
 * script: drop the ended members, refuse if the set is full, add. A member leaves when its
 * sponsorship fails, when this instance sees its UTXO spent or reclaimed, or at its deadline.
 */
import { randomBytes, createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock.js';
import { GatewayError } from '../../../core/errors.js';
import { KEY_PREFIX, registerScript, type RedisState } from '../../../infra/state/redis.js';
import type { SponsorshipSharing } from '../admission/sharing.js';
import type { WalletLeases } from './wallet-leases.js';

export { redisInputHolds } from './input-holds.js';

/** KEYS: claim. ARGV: pending value, ttl ms. → the value found (an answer or another's claim), or false when claimed now. */
const CLAIM = registerScript(
  'nightgateDedupeClaim',
  1,
  `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`,
);

/** KEYS: claim. ARGV: our pending value. Deletes the claim only if it is still ours. */
const ABANDON = registerScript(
  'nightgateDedupeAbandon',
  1,
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`,
);

/** KEYS: the key's reservations. ARGV: now, cap, member, until. → 1 admitted, 0 the share is full. */
const HOLD = registerScript(
  'nightgateHoldAcquire',
  1,
  `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], math.floor(tonumber(last[2])) + 1000)
return 1
`,
);

/** KEYS: the key's reservations. ARGV: member. */
const UNHOLD = registerScript(
  'nightgateHoldRelease',
  1,
  `
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`,
);

interface RedisSponsorshipOptions {
  redis: RedisState;
  leases: WalletLeases;
  clock: Clock;
  logger: Logger;
  dedupeWindowMs: number;
  /** How long a claim waits for its answer before another instance may compute it. */
  claimTtlMs?: number;
  /** Poll interval while waiting for another instance's answer. */
  pollMs?: number;
}

const ANSWER = 'a:';
const PENDING = 'p:';

export class RedisSponsorshipSharing implements SponsorshipSharing {
  /** Our pending claims: dedupe key → the value we wrote. */
  private readonly claims = new Map<string, string>();

  constructor(private readonly opts: RedisSponsorshipOptions) {}

  admit(network: string): void {
    if (!this.opts.redis.available) {
      this.opts.redis.countBudgetUnavailable();
      throw new GatewayError(
        'BUDGET_UNAVAILABLE',
        'the DUST budget of this key cannot be charged exactly now (shared state unavailable); nothing was reserved or charged, retry shortly',
        { headers: { 'Retry-After': '5' } },
      );
    }
    this.opts.leases.check(network);
  }

  owns(network: string): void {
    this.opts.leases.check(network);
  }

  private claimKey(dedupeKey: string): string {
    return `dedupe:${createHash('sha256').update(dedupeKey).digest('base64url')}`;
  }

  async lookup(dedupeKey: string, signal: AbortSignal): Promise<string | undefined> {
    const { redis } = this.opts;
    const key = this.claimKey(dedupeKey);
    const mine = `${PENDING}${redis.instanceId}:${randomBytes(6).toString('base64url')}`;
    const claimTtl = this.opts.claimTtlMs ?? 120_000;
    const deadline = this.opts.clock.now() + claimTtl;
    for (;;) {
      if (signal.aborted) throw signal.reason;
      let found: unknown;
      try {
        found = await redis.run(CLAIM, [key], [mine, claimTtl]);
      } catch {
        return undefined;
      }
      if (found === null || found === false) {
        this.claims.set(dedupeKey, mine);
        return undefined;
      }
      const v = String(found);
      if (v.startsWith(ANSWER)) return v.slice(ANSWER.length);
      // Another instance is computing it: wait for its answer (or for its claim to go).
      if (this.opts.clock.now() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, this.opts.pollMs ?? 50).unref());
    }
  }

  answered(dedupeKey: string, body: string): void {
    this.claims.delete(dedupeKey);
    void this.opts.redis.command(['SET', KEY_PREFIX + this.claimKey(dedupeKey), ANSWER + body, 'PX', String(this.opts.dedupeWindowMs)]).catch(() => undefined);
  }

  abandoned(dedupeKey: string): void {
    const mine = this.claims.get(dedupeKey);
    if (mine === undefined) return;
    this.claims.delete(dedupeKey);
    const key = this.claimKey(dedupeKey);
    void this.opts.redis.run(ABANDON, [key], [mine]).catch(() => undefined);
  }

  async hold(network: string, keyId: string, cap: number, until: number): Promise<string | false | undefined> {
    const member = `${this.opts.redis.instanceId}:${randomBytes(6).toString('base64url')}`;
    try {
      const ok = await this.opts.redis.run(HOLD, [`holds:{${keyId}}:${network}`], [this.opts.clock.now(), cap, member, until]);
      return Number(ok) === 1 ? member : false;
    } catch {
      // Redis away: the local share decides (and the sponsorship is refused at the budget anyway).
      this.opts.redis.countFallback();
      return undefined;
    }
  }

  release(network: string, keyId: string, member: string): void {
    const work = (): Promise<unknown> => this.opts.redis.run(UNHOLD, [`holds:{${keyId}}:${network}`], [member]);
    work().catch(() => this.opts.redis.later(`unhold:${member}`, work));
  }
}
