/**
 * Per-key DUST budgets shared through Redis. A charge is one Lua script: it adds the
 * fee to the key's spend in the window only if the sum stays within the budget, so two instances
 * charging the same key at once can never pass the budget together. Amounts are SPECK, which
 * exceed 2^63 (a 40-digit budget is allowed), so the script adds and compares decimal strings.
 *
 * Every charge carries a token, stored beside the spend for the window's life:
 * - a charge whose answer was lost (timeout, connection dropped) is sent again with the same
 *   token and counts once;
 * - a refund names the token: a second refund of it changes nothing, and a refund of a charge
 *   Redis never saw leaves a tombstone so the charge, if it arrives late, is refused.
 * A charge that cannot be made exactly fails with 503 BUDGET_UNAVAILABLE (the sponsorship then
 * releases its UTXO, and a refund of the token is queued in case the charge did land). A refund
 * while Redis is away is kept and sent once it is back. Nothing is charged twice or lost.
 *
 * `spent()` answers from the last spend Redis reported to this instance (a pre-check only; the
 * charge is the exact one).
 */
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../../../core/errors.js';
import { MemoryBudgetStore, type BudgetCharge, type BudgetStore } from '../admission/budget.js';
import { windowStartOf } from '../common/fixed-window.js';
import { registerScript, StateUnavailableError, type RedisState } from '../../../infra/state/redis.js';

/** Decimal-string arithmetic for Lua (numbers there are doubles: exact only to 2^53). */
export const DECIMAL_LUA = `
local function dcmp(a, b)
  if #a ~= #b then return (#a < #b) and -1 or 1 end
  if a == b then return 0 end
  return (a < b) and -1 or 1
end
local function digits(out)
  local r = string.gsub(table.concat(out), '^0+', '')
  if r == '' then return '0' end
  return r
end
local function dadd(a, b)
  local out, carry, i, j = {}, 0, #a, #b
  while i > 0 or j > 0 or carry > 0 do
    local s = carry + (i > 0 and tonumber(string.sub(a, i, i)) or 0) + (j > 0 and tonumber(string.sub(b, j, j)) or 0)
    table.insert(out, 1, tostring(s % 10))
    carry = math.floor(s / 10)
    i = i - 1
    j = j - 1
  end
  return digits(out)
end
local function dsub(a, b)
  if dcmp(a, b) <= 0 then return '0' end
  local out, borrow, i, j = {}, 0, #a, #b
  while i > 0 do
    local d = tonumber(string.sub(a, i, i)) - borrow - (j > 0 and tonumber(string.sub(b, j, j)) or 0)
    if d < 0 then d = d + 10; borrow = 1 else borrow = 0 end
    table.insert(out, 1, tostring(d))
    i = i - 1
    j = j - 1
  end
  return digits(out)
end
`;

/** KEYS: spend, token. ARGV: amount, budget, ttl ms. → {1, spend} charged (or charged before), {0, spend} over budget, {-1, ''} refunded before. */
const CHARGE = registerScript(
  'nightgateBudgetCharge',
  2,
  `${DECIMAL_LUA}
local state = redis.call('GET', KEYS[2])
if state == 'c' then return {1, redis.call('GET', KEYS[1]) or '0'} end
if state then return {-1, ''} end
local spent = redis.call('GET', KEYS[1]) or '0'
local after = dadd(spent, ARGV[1])
if dcmp(after, ARGV[2]) > 0 then return {0, spent} end
redis.call('SET', KEYS[1], after, 'PX', ARGV[3])
redis.call('SET', KEYS[2], 'c', 'PX', ARGV[3])
return {1, after}
`,
);

/** KEYS: spend, token. ARGV: amount, ttl ms. → spend after (the token refunded once at most). */
const REFUND = registerScript(
  'nightgateBudgetRefund',
  2,
  `${DECIMAL_LUA}
local state = redis.call('GET', KEYS[2])
local spent = redis.call('GET', KEYS[1]) or '0'
if state == 'c' then
  spent = dsub(spent, ARGV[1])
  if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('SET', KEYS[1], spent, 'KEEPTTL') end
end
if state ~= 'r' then redis.call('SET', KEYS[2], 'r', 'PX', ARGV[2]) end
return spent
`,
);

interface RedisBudgetOptions {
  /** Keys whose budget stays in this process (the server's own pool key: its splits pay from its own wallets). */
  local?: (keyId: string) => boolean;
  /** Tries of one charge (same token) before it is refused with 503. */
  attempts?: number;
}

const keyOf = (keyId: string, windowStart: number): string => `budget:{${keyId}}:${windowStart}`;
const tokenKey = (keyId: string, token: string): string => `budget:{${keyId}}:t:${token}`;

export class RedisBudgetStore implements BudgetStore {
  private readonly memory = new MemoryBudgetStore();
  /** Last spend Redis reported, per key and window (for the sync pre-check). */
  private readonly known = new Map<string, { windowStart: number; amount: bigint }>();

  constructor(
    private readonly redis: RedisState,
    private readonly opts: RedisBudgetOptions = {},
  ) {}

  async charge(keyId: string, amount: bigint, budget: bigint, windowMs: number, now: number): Promise<BudgetCharge | undefined> {
    if (this.opts.local?.(keyId)) return this.memory.charge(keyId, amount, budget, windowMs, now);
    const windowStart = windowStartOf(now, windowMs);
    const token = randomBytes(12).toString('base64url');
    const keys = [keyOf(keyId, windowStart), tokenKey(keyId, token)];
    const ttl = windowStart + windowMs - now + windowMs;
    const attempts = this.opts.attempts ?? 3;
    let last: unknown;
    for (let i = 0; i < attempts; i++) {
      if (!this.redis.available && i > 0) break;
      try {
        const [ok, spent] = (await this.redis.run(CHARGE, keys, [amount.toString(), budget.toString(), ttl])) as [number, string];
        if (ok === -1) break;
        this.remember(keyId, windowStart, BigInt(spent));
        return ok === 1 ? { keyId, amount, windowStart, token } : undefined;
      } catch (err) {
        last = err;
      }
    }
    // Unknown whether the charge landed: a refund of its token (idempotent) undoes it if it did.
    const refund = { keyId, amount, windowStart, token };
    this.redis.later(`refund:${keyId}:${token}`, () => this.sendRefund(refund, windowMs));
    this.redis.countBudgetUnavailable();
    throw new GatewayError(
      'BUDGET_UNAVAILABLE',
      'the DUST budget of this key cannot be charged exactly now (shared state unavailable); nothing was charged, retry shortly',
      {
        headers: { 'Retry-After': '5' },
        cause: last instanceof StateUnavailableError ? last : undefined,
      },
    );
  }

  async refund(charge: BudgetCharge): Promise<void> {
    if (charge.token === undefined) return this.memory.refund(charge);
    const windowMs = charge.windowMs ?? 0;
    try {
      await this.sendRefund(charge, windowMs);
    } catch {
      this.redis.later(`refund:${charge.keyId}:${charge.token}`, () => this.sendRefund(charge, windowMs));
    }
  }

  private async sendRefund(charge: BudgetCharge, windowMs: number): Promise<void> {
    const ttl = Math.max(60_000, 2 * windowMs);
    const spent = (await this.redis.run(
      REFUND,
      [keyOf(charge.keyId, charge.windowStart), tokenKey(charge.keyId, charge.token!)],
      [charge.amount.toString(), ttl],
    )) as string;
    this.remember(charge.keyId, charge.windowStart, BigInt(spent));
  }

  spent(keyId: string, windowMs: number, now: number): bigint {
    if (this.opts.local?.(keyId)) return this.memory.spent(keyId, windowMs, now);
    const e = this.known.get(keyId);
    return e && e.windowStart === windowStartOf(now, windowMs) ? e.amount : 0n;
  }

  private remember(keyId: string, windowStart: number, amount: bigint): void {
    const e = this.known.get(keyId);
    if (e && e.windowStart > windowStart) return;
    if (!e && this.known.size >= 100_000) this.known.clear();
    this.known.set(keyId, { windowStart, amount });
  }
}
