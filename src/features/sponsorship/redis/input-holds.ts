/**
 * The inputs' holds in Redis (src/features/sponsorship/reservations/input-holds.ts), shared by every instance:
 * one key per network and input, holding the holder's id, with a TTL of the answer's life.
 * Loaded with shared/sponsorship.ts, so its scripts are registered before the client exists.
 */
import { registerScript, type RedisState } from '../../../infra/state/redis.js';
import type { SharedInputHolds } from '../reservations/input-holds.js';

/**
 * KEYS: the network's holds (their common prefix, one hash tag). ARGV: holder, ttl ms, then the
 * inputs. → {0, 0} held now (or already the holder's), else {the 1-based index of the first input
 * another holds, its ms left}.
 */
const ACQUIRE = registerScript(
  'nightgateInputHoldAcquire',
  1,
  `
for i = 3, #ARGV do
  local v = redis.call('GET', KEYS[1] .. ':' .. ARGV[i])
  if v and v ~= ARGV[1] then return {i - 2, redis.call('PTTL', KEYS[1] .. ':' .. ARGV[i])} end
end
for i = 3, #ARGV do redis.call('SET', KEYS[1] .. ':' .. ARGV[i], ARGV[1], 'PX', ARGV[2]) end
return {0, 0}
`,
);

/** KEYS: as ACQUIRE. ARGV: holder, ttl ms (0: drop), then the inputs. Extends or drops only the holds still the holder's. */
const RENEW = registerScript(
  'nightgateInputHoldRenew',
  1,
  `
for i = 3, #ARGV do
  local k = KEYS[1] .. ':' .. ARGV[i]
  if redis.call('GET', k) == ARGV[1] then
    if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', k, ARGV[2]) else redis.call('DEL', k) end
  end
end
return 1
`,
);

export function redisInputHolds(redis: RedisState): SharedInputHolds {
  // One hash tag per network: a transaction's inputs are on one network, so its holds are in one slot.
  const keyOf = (network: string): string => `inputs:{${network}}`;
  return {
    async acquire(network, ids, holder, ttlMs) {
      let res: unknown;
      try {
        res = await redis.run(ACQUIRE, [keyOf(network)], [holder, Math.max(1, Math.ceil(ttlMs)), ...ids]);
      } catch {
        // Redis away: the local holds decide (the sponsorship is refused at the shared budget anyway).
        redis.countFallback();
        return undefined;
      }
      const [index, left] = (res as [number, number]).map(Number) as [number, number];
      return index > 0 ? { id: ids[index - 1]!, leftMs: Math.max(0, left) } : undefined;
    },
    renew(network, ids, holder, ttlMs) {
      const work = (): Promise<unknown> => redis.run(RENEW, [keyOf(network)], [holder, Math.max(0, Math.ceil(ttlMs)), ...ids]);
      work().catch(() => {
        if (ttlMs === 0) redis.later(`inputs:${holder}`, work);
      });
    },
  };
}
