/**
 * The /prove, /verify and /k result cache shared through Redis: a retry that lands on
 * another instance is a HIT instead of a second proof. Each instance keeps its own cache in front
 * (src/core/result-cache.ts); a local miss asks Redis before proving, and a proof made here is
 * written there. Size-capped: at most `maxBytes` of values in Redis (the oldest go first, an
 * index sorted by expiry holds their sizes), no value above `maxEntryBytes`, each kept `ttlMs`.
 * Values are base64 (node-redis answers strings). Redis away: the local cache alone, as without
 * Redis; a failed read is a miss, a failed write is skipped.
 */
import { registerScript, type RedisState } from '../../infra/state/redis.js';

/**
 * KEYS: value, index (zset: key → expiry), sizes (hash: key → bytes), total bytes.
 * ARGV: value, now, ttl ms, size, max total bytes. Drops expired and then oldest entries to fit.
 */
const PUT = registerScript(
  'nightgateProofPut',
  4,
  `
local now = tonumber(ARGV[2])
local function drop(k)
  local size = tonumber(redis.call('HGET', KEYS[3], k) or '0')
  redis.call('DEL', k)
  redis.call('ZREM', KEYS[2], k)
  redis.call('HDEL', KEYS[3], k)
  redis.call('DECRBY', KEYS[4], size)
end
for _, k in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do drop(k) end
if redis.call('EXISTS', KEYS[1]) == 1 then drop(KEYS[1]) end
local size = tonumber(ARGV[4])
local cap = tonumber(ARGV[5])
while tonumber(redis.call('GET', KEYS[4]) or '0') + size > cap do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #oldest == 0 then break end
  drop(oldest[1])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], size)
redis.call('INCRBY', KEYS[4], size)
return 1
`,
);

interface SharedProofCacheOptions {
  ttlMs: number;
  /** Total bytes of values held in Redis. */
  maxBytes: number;
  /** A larger answer is not shared (a proof is a few KiB). */
  maxEntryBytes?: number;
  now?: () => number;
}

const PREFIX = 'proof:';

export class SharedProofCache {
  constructor(
    private readonly redis: RedisState,
    private readonly opts: SharedProofCacheOptions,
  ) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    if (!this.redis.available) return undefined;
    try {
      const v = await this.redis.command(['GET', `nightgate:${PREFIX}${key}`]);
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : undefined;
    } catch {
      return undefined;
    }
  }

  set(key: string, bytes: Uint8Array): void {
    if (!this.redis.available || this.opts.ttlMs === 0) return;
    const value = Buffer.from(bytes).toString('base64');
    if (value.length > (this.opts.maxEntryBytes ?? 1 << 20) || value.length > this.opts.maxBytes) return;
    const now = (this.opts.now ?? Date.now)();
    void this.redis
      .run(
        PUT,
        [`${PREFIX}${key}`, 'proofcache:index', 'proofcache:sizes', 'proofcache:bytes'],
        [value, now, this.opts.ttlMs, value.length, this.opts.maxBytes],
      )
      .catch(() => undefined);
  }
}
