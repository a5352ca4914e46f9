/**
 * Sponsorship policy (paymaster practice; docs/sponsorship.md, "What happens to a request"): a per-transaction fee cap
 * and a per-API-key DUST budget per window. The budget is charged when a fee is reserved and
 * refunded if the request fails, so only fees of transactions handed back to the client count.
 * The store sits behind an interface (memory here; Redis for several instances, src/features/sponsorship/redis/budget.ts);
 * anything that spends DUST fails closed: a store error refuses the sponsorship (a shared store
 * refuses with its own 503 BUDGET_UNAVAILABLE).
 */
import { GatewayError, isGatewayError } from '../../../core/errors.js';
import { secondsUntil, windowStartOf } from '../common/fixed-window.js';

export interface BudgetCharge {
  readonly keyId: string;
  readonly amount: bigint;
  readonly windowStart: number;
  /** Idempotency token of a shared charge (src/features/sponsorship/redis/budget.ts): a refund of it counts once. */
  readonly token?: string;
  readonly windowMs?: number;
}

export interface BudgetStore {
  /** Add `amount` to the key's spend in the window if it stays within `budget`; else undefined. */
  charge(keyId: string, amount: bigint, budget: bigint, windowMs: number, now: number): Promise<BudgetCharge | undefined> | BudgetCharge | undefined;
  refund(charge: BudgetCharge): void | Promise<void>;
  spent(keyId: string, windowMs: number, now: number): bigint;
}

export class MemoryBudgetStore implements BudgetStore {
  private readonly spend = new Map<string, { windowStart: number; amount: bigint }>();

  constructor(private readonly maxKeys = 100_000) {}

  charge(keyId: string, amount: bigint, budget: bigint, windowMs: number, now: number): BudgetCharge | undefined {
    const windowStart = windowStartOf(now, windowMs);
    let e = this.spend.get(keyId);
    if (e === undefined || e.windowStart !== windowStart) {
      if (e === undefined && this.spend.size >= this.maxKeys) this.evictStale(windowStart);
      e = { windowStart, amount: 0n };
      this.spend.set(keyId, e);
    }
    if (e.amount + amount > budget) return undefined;
    e.amount += amount;
    return { keyId, amount, windowStart };
  }

  refund(charge: BudgetCharge): void {
    const e = this.spend.get(charge.keyId);
    // A refund for a past window changes nothing: that window's budget is gone anyway.
    if (e && e.windowStart === charge.windowStart) e.amount = e.amount > charge.amount ? e.amount - charge.amount : 0n;
  }

  spent(keyId: string, windowMs: number, now: number): bigint {
    const e = this.spend.get(keyId);
    return e && e.windowStart === windowStartOf(now, windowMs) ? e.amount : 0n;
  }

  private evictStale(windowStart: number): void {
    for (const [k, e] of this.spend) if (e.windowStart !== windowStart) this.spend.delete(k);
  }
}

interface PolicyLimits {
  /** Global per-transaction cap (SPECK). */
  maxFee: bigint;
  /** Global per-key budget per window (SPECK). */
  budget: bigint;
  windowMs: number;
}

interface KeyLimits {
  id: string;
  maxFee?: bigint | undefined;
  dustBudget?: bigint | undefined;
}

export class SponsorshipPolicy {
  constructor(
    private readonly limits: PolicyLimits,
    private readonly store: BudgetStore,
  ) {}

  /** The cap for this key: its own if set (never above the global one), else the global cap. */
  capFor(key: KeyLimits): bigint {
    return key.maxFee !== undefined && key.maxFee < this.limits.maxFee ? key.maxFee : this.limits.maxFee;
  }

  budgetFor(key: KeyLimits): bigint {
    return key.dustBudget ?? this.limits.budget;
  }

  /** Throws FEE_CAP_EXCEEDED (403) or DUST_BUDGET_EXCEEDED (429); returns the charge to refund on failure. */
  async admit(key: KeyLimits, fee: bigint, now: number): Promise<BudgetCharge> {
    const cap = this.capFor(key);
    if (fee > cap) throw new GatewayError('FEE_CAP_EXCEEDED', `fee ${fee} SPECK exceeds the per-transaction cap of ${cap} SPECK`);
    let charge: BudgetCharge | undefined;
    try {
      charge = await this.store.charge(key.id, fee, this.budgetFor(key), this.limits.windowMs, now);
    } catch (err) {
      if (isGatewayError(err)) throw err;
      throw new GatewayError('INTERNAL', 'sponsorship budget store unavailable', { cause: err });
    }
    if (!charge) {
      const resetAt = this.windowEndsAt(now);
      throw new GatewayError(
        'DUST_BUDGET_EXCEEDED',
        `DUST budget of ${this.budgetFor(key)} SPECK per ${Math.round(this.limits.windowMs / 1000)} s is spent for this key`,
        {
          headers: { 'Retry-After': String(secondsUntil(resetAt, now)) },
        },
      );
    }
    return charge;
  }

  /**
   * When the budget window holding `now` ends, ms since the epoch: windows are fixed (every store
   * aligns them to multiples of `windowMs`), so a spent budget is whole again then and not before.
   */
  windowEndsAt(now: number): number {
    return windowStartOf(now, this.limits.windowMs) + this.limits.windowMs;
  }

  async refund(charge: BudgetCharge): Promise<void> {
    await this.store.refund(charge);
  }

  spent(keyId: string, now: number): bigint {
    return this.store.spent(keyId, this.limits.windowMs, now);
  }
}
