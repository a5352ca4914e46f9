/**
 * Per-user caps of a key's policy (`perUser`) shared through Redis, so that several instances
 * count one end user once. Each operation is one Lua script, so two instances holding places for
 * the same user at once can never pass `maxSponsorships` together, nor commit fees past
 * `maxDust`. Fees are SPECK (past 2^53): the scripts add and compare decimal strings (DECIMAL_LUA).
 *
 * One hash per key, user and fixed window, `peruser:{<hash of key id and user>}:<window start>`
 * (`n` places held or answered, `d` DUST committed); it expires a window after its window ends. Every hold carries a token, stored beside the counter
 * for the same time, whose state says what the hold did: `h` held, `c<fee>` committed, `r`
 * given back (or refused at commit). So:
 * - a hold or commit whose answer was lost is sent again with the same token and counts once;
 * - a release or refund names the token and undoes what the hold did (its place, and its fee
 *   once committed) exactly once; a second one changes nothing, and one of a hold Redis never
 *   saw leaves a tombstone so the hold, if it arrives late, is refused.
 *
 * Failure: a hold or commit that cannot be made exactly fails closed with 503 BUDGET_UNAVAILABLE
 * (the sponsorship is refused, nothing is reserved), and the undo of its token is queued in case
 * it did land (a failed commit's undo also gives back the place its hold took). A release or refund while Redis is away is kept and sent once it is back.
 * `read()`
 * without Redis is a 503 as well (it answers nothing it cannot know).
 */
import { createHash, randomBytes } from 'node:crypto';
import { GatewayError } from '../../../core/errors.js';
import { KEY_PREFIX, registerScript, StateUnavailableError, type RedisState } from '../../../infra/state/redis.js';
import { secondsToWindowEnd, windowStartOf } from '../common/fixed-window.js';
import type { HoldResult, UserCounterStore, UserHold, UserLimits } from '../policy/user-counters.js';
import { DECIMAL_LUA } from './budget.js';

/**
 * KEYS: counter, token. ARGV: maxSponsorships ('' none), maxDust ('' none), ttl ms.
 * → {1} held (now, or before with this token), {0, 'n' | 'd'} at a cap, {-1} the token was given back before.
 */
const HOLD = registerScript(
  'nightgateUserHold',
  2,
  `${DECIMAL_LUA}
local state = redis.call('GET', KEYS[2])
if state == 'r' then return {-1} end
if state then return {1} end
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if ARGV[1] ~= '' and n >= tonumber(ARGV[1]) then return {0, 'n'} end
if ARGV[2] ~= '' and dcmp(redis.call('HGET', KEYS[1], 'd') or '0', ARGV[2]) >= 0 then return {0, 'd'} end
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], 'h', 'PX', ARGV[3])
return {1}
`,
);

/**
 * KEYS: counter, token. ARGV: fee, maxDust ('' none).
 * → 1 counted (now, or before with this token; or the window's counter is gone: it counts in none),
 *   0 over maxDust (the place is given back) or the hold was given back before.
 */
const COMMIT = registerScript(
  'nightgateUserCommit',
  2,
  `${DECIMAL_LUA}
local state = redis.call('GET', KEYS[2])
if not state then return 1 end
if state == 'r' then return 0 end
if state ~= 'h' then return 1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 1 end
local after = dadd(redis.call('HGET', KEYS[1], 'd') or '0', ARGV[1])
if ARGV[2] ~= '' and dcmp(after, ARGV[2]) > 0 then
  if tonumber(redis.call('HGET', KEYS[1], 'n') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'n', -1) end
  redis.call('SET', KEYS[2], 'r', 'KEEPTTL')
  return 0
end
redis.call('HSET', KEYS[1], 'd', after)
redis.call('SET', KEYS[2], 'c' .. ARGV[1], 'KEEPTTL')
return 1
`,
);

/**
 * KEYS: counter, token. ARGV: tombstone ttl ms. Undoes what the token did (its place, and its
 * committed fee), once; a token Redis never saw is left as a tombstone. → 1 undone now, 0 nothing to undo.
 */
const UNDO = registerScript(
  'nightgateUserUndo',
  2,
  `${DECIMAL_LUA}
local state = redis.call('GET', KEYS[2])
if state == 'r' then return 0 end
local undone = 0
if state and redis.call('EXISTS', KEYS[1]) == 1 then
  if tonumber(redis.call('HGET', KEYS[1], 'n') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'n', -1) end
  if string.sub(state, 1, 1) == 'c' then
    redis.call('HSET', KEYS[1], 'd', dsub(redis.call('HGET', KEYS[1], 'd') or '0', string.sub(state, 2)))
  end
  undone = 1
end
redis.call('SET', KEYS[2], 'r', 'PX', ARGV[1])
return undone
`,
);

/**
 * The hash-tagged part of a user's keys: any key id and user string (a hash of both, so a brace,
 * a colon or a very long user id cannot change the key's shape; the user's id is not stored).
 */
const tagOf = (keyId: string, user: string): string =>
  createHash('sha256')
    .update(JSON.stringify([keyId, user]))
    .digest('base64url');

/** The counter of `user` under `keyId` in the window starting at `windowStart` (without KEY_PREFIX, which `run` adds). */
export const userCounterKey = (keyId: string, user: string, windowStart: number): string => `peruser:{${tagOf(keyId, user)}}:${windowStart}`;
/** The state of one hold's token (`h`, `c<fee>` or the tombstone `r`), beside its user's counters. */
export const userTokenKey = (keyId: string, user: string, token: string): string => `peruser:{${tagOf(keyId, user)}}:t:${token}`;

interface RedisUserCountersOptions {
  /** Tries of one hold or commit (same token) before it is refused with 503. */
  attempts?: number;
}

export class RedisUserCounters implements UserCounterStore {
  constructor(
    private readonly redis: RedisState,
    private readonly opts: RedisUserCountersOptions = {},
  ) {}

  async hold(keyId: string, user: string, limits: UserLimits, now: number): Promise<HoldResult> {
    const { windowMs } = limits;
    const windowStart = windowStartOf(now, windowMs);
    const token = randomBytes(12).toString('base64url');
    const hold: UserHold = { keyId, user, windowStart, windowMs, token };
    const keys = [userCounterKey(keyId, user, windowStart), userTokenKey(keyId, user, token)];
    // Kept a window after its window ends (a late commit or undo still finds it).
    const ttl = windowStart + windowMs - now + windowMs;
    const args = [
      limits.maxSponsorships === undefined ? '' : String(limits.maxSponsorships),
      limits.maxDust === undefined ? '' : limits.maxDust.toString(),
      ttl,
    ];
    let last: unknown;
    let sent = false;
    for (let i = 0; i < (this.opts.attempts ?? 3); i++) {
      // Redis known away: nothing is sent (so nothing can land and need undoing).
      if (!this.redis.available) break;
      sent = true;
      try {
        const [ok, rule] = (await this.redis.run(HOLD, keys, args)) as [number, string?];
        if (ok === -1) break;
        if (ok === 1) return { ok: true, hold };
        return { ok: false, rule: rule === 'd' ? 'perUser.maxDust' : 'perUser.maxSponsorships', retryAfterS: secondsToWindowEnd(now, windowMs) };
      } catch (err) {
        last = err;
      }
    }
    // Unknown whether the hold landed: the undo of its token (idempotent) gives the place back if it did.
    if (sent) this.undoLater(hold);
    throw this.unavailable(last);
  }

  async commit(hold: UserHold, fee: bigint, maxDust: bigint | undefined): Promise<boolean> {
    if (hold.token === undefined) return true;
    const keys = [userCounterKey(hold.keyId, hold.user, hold.windowStart), userTokenKey(hold.keyId, hold.user, hold.token)];
    const args = [fee.toString(), maxDust === undefined ? '' : maxDust.toString()];
    let last: unknown;
    for (let i = 0; i < (this.opts.attempts ?? 3); i++) {
      if (!this.redis.available && i > 0) break;
      try {
        return Number(await this.redis.run(COMMIT, keys, args)) === 1;
      } catch (err) {
        last = err;
      }
    }
    // Unknown whether the fee was counted (or nothing was sent): the undo gives back the place and,
    // if the commit landed, the fee; the caller need not release this hold.
    this.undoLater(hold);
    throw this.unavailable(last);
  }

  async release(hold: UserHold): Promise<void> {
    await this.undo(hold);
  }

  /** As `release`: the token's undo gives back the fee it committed (the fee Redis counted, so `_fee` is not needed). */
  async refund(hold: UserHold, _fee: bigint): Promise<void> {
    await this.undo(hold);
  }

  async read(keyId: string, user: string, windowMs: number, now: number): Promise<{ count: number; dust: bigint }> {
    try {
      const [n, d] = (await this.redis.command(['HMGET', KEY_PREFIX + userCounterKey(keyId, user, windowStartOf(now, windowMs)), 'n', 'd'])) as [
        unknown,
        unknown,
      ];
      return { count: n == null ? 0 : Number(n), dust: d == null ? 0n : BigInt(String(d)) };
    } catch (err) {
      throw this.unavailable(err, 'the per-user counters of this key cannot be read now (shared state unavailable); retry shortly', false);
    }
  }

  private async undo(hold: UserHold): Promise<void> {
    if (hold.token === undefined) return;
    try {
      await this.sendUndo(hold);
    } catch {
      this.undoLater(hold);
    }
  }

  private undoLater(hold: UserHold): void {
    this.redis.later(`peruser:${hold.token}`, () => this.sendUndo(hold));
  }

  private async sendUndo(hold: UserHold): Promise<void> {
    const ttl = Math.max(60_000, 2 * hold.windowMs);
    await this.redis.run(UNDO, [userCounterKey(hold.keyId, hold.user, hold.windowStart), userTokenKey(hold.keyId, hold.user, hold.token!)], [ttl]);
  }

  private unavailable(
    cause: unknown,
    message = 'the per-user counters of this key cannot be updated exactly now (shared state unavailable); nothing was counted, retry shortly',
    refusal = true,
  ): GatewayError {
    // Counted with the budget refusals: a sponsorship refused because shared state was away.
    if (refusal) this.redis.countBudgetUnavailable();
    return new GatewayError('BUDGET_UNAVAILABLE', message, {
      headers: { 'Retry-After': '5' },
      cause: cause instanceof StateUnavailableError ? cause : undefined,
    });
  }
}
