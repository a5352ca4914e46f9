/**
 * Rate limits shared through Redis.
 *
 * Per API key (scope `key`): exact. Every hit is one Lua script that reads the key's counters of
 * the current and previous window, decides as the in-memory store does (fixed or sliding window
 * counter) and counts the hit only if it is admitted, so the (limit+1)th request of a window is
 * refused whichever instance gets it. While Redis is unavailable the decision is taken on this
 * instance's own counters (the in-memory store), counted in `localFallbacks` and logged once.
 *
 * Per client IP (scope `ip`, the public routes): approximate, so the cached routes keep their
 * speed. Hits are counted locally (the in-memory store, synchronous as before); at least once a
 * second each instance adds its new hits to Redis and takes back the other instances' hits of
 * the same addresses, which it folds into its local counters (`MemoryRateLimitStore.absorb`).
 */
import type { Logger } from 'pino';
import { MemoryRateLimitStore, admitAt, type RateLimitResult, type RateLimitScope, type RateLimitStore } from '../../core/guards/rate-limit.js';
import { KEY_PREFIX, registerScript, type RedisState } from './redis.js';

/**
 * KEYS: current window, previous window. ARGV: limit, windowMs, now, windowStart, sliding (1/0).
 * → {admitted 1/0, current count after, previous count}.
 */
const HIT = registerScript(
  'nightgateRateHit',
  2,
  `
local limit = tonumber(ARGV[1])
local w = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local ws = tonumber(ARGV[4])
local curr = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = 0
local estimate = curr
if ARGV[5] == '1' then
  prev = tonumber(redis.call('GET', KEYS[2]) or '0')
  estimate = prev * (1 - (now - ws) / w) + curr
end
if estimate + 1 <= limit then
  curr = redis.call('INCR', KEYS[1])
  if curr == 1 then redis.call('PEXPIRE', KEYS[1], 2 * w + 1000) end
  return {1, curr, prev}
end
return {0, curr, prev}
`,
);

/**
 * Many addresses in one call (a second's worth of client IPs). ARGV: ttl ms, then per address its
 * window counter's key and this instance's new hits. → each window's total over all instances.
 * (The keys travel in ARGV, so this script is not for Redis Cluster; nightgate's is one Redis.)
 */
const ADD = registerScript(
  'nightgateRateAddMany',
  0,
  `
local out = {}
for i = 2, #ARGV, 2 do
  local total = redis.call('INCRBY', ARGV[i], ARGV[i + 1])
  redis.call('PEXPIRE', ARGV[i], ARGV[1])
  out[#out + 1] = total
end
return out
`,
);

/** Addresses per reconciliation call. */
const RECONCILE_BATCH = 500;

interface IpWindow {
  windowStart: number;
  windowMs: number;
  /** Hits on this instance not yet added to Redis. */
  unsent: number;
  /** Hits on this instance added to Redis in this window. */
  sent: number;
  /** Other instances' hits already folded into the local counter. */
  absorbed: number;
}

interface RedisRateLimitOptions {
  algorithm: 'fixed' | 'sliding';
  maxEntries: number;
  logger: Logger;
  /** How often per-IP counts are reconciled (≤ 1000 ms). */
  reconcileMs?: number;
}

export class RedisRateLimitStore implements RateLimitStore {
  /** This instance's own counters: the per-IP fast path, and per-key decisions while Redis is away. */
  readonly local: MemoryRateLimitStore;
  private readonly ipWindows = new Map<string, IpWindow>();
  private readonly timer: NodeJS.Timeout;
  private reconciling = false;
  private round: Promise<void> = Promise.resolve();
  private lastNow = 0;

  constructor(
    private readonly redis: RedisState,
    private readonly opts: RedisRateLimitOptions,
  ) {
    this.local = new MemoryRateLimitStore(opts.algorithm, opts.maxEntries);
    this.timer = setInterval(() => void this.reconcile(), Math.min(1_000, opts.reconcileMs ?? 1_000));
    this.timer.unref();
  }

  get size(): number {
    return this.local.size;
  }

  hit(scope: RateLimitScope, id: string, limit: number, windowMs: number, now: number): RateLimitResult | Promise<RateLimitResult> {
    if (scope === 'ip') {
      const r = this.local.hit('ip', id, limit, windowMs, now);
      if (r.allowed) this.noteIpHit(id, windowMs, now);
      return r;
    }
    if (!this.redis.available) return this.fallback(id, limit, windowMs, now);
    return this.shared(id, limit, windowMs, now);
  }

  private fallback(id: string, limit: number, windowMs: number, now: number): RateLimitResult {
    this.redis.countFallback();
    return this.local.hit('key', id, limit, windowMs, now);
  }

  private async shared(id: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult> {
    const windowStart = now - (now % windowMs);
    const sliding = this.opts.algorithm === 'sliding';
    let reply: [number, number, number];
    try {
      reply = (await this.redis.run(
        HIT,
        [`rl:key:{${id}}:${windowStart}`, `rl:key:{${id}}:${windowStart - windowMs}`],
        [limit, windowMs, now, windowStart, sliding ? 1 : 0],
      )) as [number, number, number];
    } catch {
      return this.fallback(id, limit, windowMs, now);
    }
    const [admitted, curr, prev] = reply;
    return decide(sliding, admitted === 1, curr, prev, limit, windowStart, windowMs, now);
  }

  private noteIpHit(id: string, windowMs: number, now: number): void {
    this.lastNow = now;
    const windowStart = now - (now % windowMs);
    let w = this.ipWindows.get(id);
    if (w === undefined || w.windowStart !== windowStart) {
      if (w === undefined && this.ipWindows.size >= this.opts.maxEntries) return;
      w = { windowStart, windowMs, unsent: 0, sent: 0, absorbed: 0 };
      this.ipWindows.set(id, w);
    }
    w.unsent++;
  }

  /** Adds this instance's new per-IP hits to Redis and folds the other instances' into the local counters. */
  async reconcile(): Promise<void> {
    // One round at a time; a call during a round waits for it and then runs its own.
    while (this.reconciling) await this.round;
    this.round = this.reconcileOnce();
    await this.round;
  }

  private async reconcileOnce(): Promise<void> {
    if (this.ipWindows.size === 0) return;
    // Local only meanwhile; the hits kept are added once Redis is back.
    if (!this.redis.available) return;
    this.reconciling = true;
    try {
      const batch: Array<[string, IpWindow, number]> = [];
      for (const [id, w] of this.ipWindows) {
        if (w.windowStart + w.windowMs <= this.lastNow) {
          this.ipWindows.delete(id);
          continue;
        }
        // Also with nothing new to add: the other instances' hits are taken back.
        batch.push([id, w, w.unsent]);
        w.unsent = 0;
      }
      const calls: Array<Promise<void>> = [];
      for (let i = 0; i < batch.length; i += RECONCILE_BATCH) {
        const part = batch.slice(i, i + RECONCILE_BATCH);
        const ttl = 2 * Math.max(...part.map(([, w]) => w.windowMs)) + 1_000;
        const args: Array<string | number> = [ttl];
        for (const [id, w, delta] of part) args.push(`${KEY_PREFIX}rl:ip:{${id}}:${w.windowStart}`, delta);
        calls.push(
          this.redis.run(ADD, [], args).then((totals) => {
            part.forEach(([id, w, delta], j) => {
              w.sent += delta;
              const others = Number((totals as unknown[])[j]) - w.sent - w.absorbed;
              if (others > 0) {
                // A no-op if the window rolled meanwhile.
                this.local.absorb('ip', id, w.windowStart, others);
                w.absorbed += others;
              }
            });
          }),
        );
      }
      await Promise.all(calls);
    } catch {
      // Redis went away mid-way: those hits stay unknown to the other instances (approximate by design).
    } finally {
      this.reconciling = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The in-memory store's answer for the counts Redis returned (guards/rate-limit.ts, decideWindow). */
function decide(
  sliding: boolean,
  admitted: boolean,
  curr: number,
  prev: number,
  limit: number,
  windowStart: number,
  windowMs: number,
  now: number,
): RateLimitResult {
  const windowEnd = windowStart + windowMs;
  if (!sliding) {
    return admitted
      ? { allowed: true, limit, remaining: Math.max(0, limit - curr), windowMs, resetAt: windowEnd }
      : { allowed: false, limit, remaining: 0, windowMs, resetAt: windowEnd };
  }
  const weight = 1 - (now - windowStart) / windowMs;
  if (admitted) {
    // `curr` counts this hit: the estimate before it was prev*weight + curr - 1.
    const before = prev * weight + curr - 1;
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - before - 1)), windowMs, resetAt: windowEnd };
  }
  return { allowed: false, limit, remaining: 0, windowMs, resetAt: admitAt(windowStart, prev, curr, limit, windowMs, now) };
}
