/**
 * Failed authentications counted over every instance. Each failure is added to the
 * address's count of the window in Redis (one atomic INCR, in a Lua script with its expiry); once
 * the total reaches the limit, this instance refuses the address until the window ends. The
 * check before the key is read stays a local lookup (no round trip on the keyed routes): an
 * instance learns that an address is throttled at that address's next failure on it, so a guesser
 * spread over N instances gets at most N - 1 extra guesses per window. While Redis is away,
 * each instance counts alone (AuthThrottle's own counters), counted in `localFallbacks`.
 */
import { registerScript, type RedisState } from './redis.js';

/** KEYS: the address's failure counter for the window. ARGV: ttl ms. → failures in the window, all instances. */
const FAIL = registerScript(
  'nightgateAuthFail',
  1,
  `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`,
);

export class SharedAuthFailures {
  constructor(private readonly redis: RedisState) {}

  /** Adds one failure; resolves to the window's total over all instances, or undefined when Redis is unavailable. */
  async failed(subject: string, windowStart: number, windowMs: number): Promise<number | undefined> {
    if (!this.redis.available) {
      this.redis.countFallback();
      return undefined;
    }
    try {
      return Number(await this.redis.run(FAIL, [`auth:{${subject}}:${windowStart}`], [windowMs + 1_000]));
    } catch {
      this.redis.countFallback();
      return undefined;
    }
  }
}
