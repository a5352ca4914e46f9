/**
 * How well each key's sponsored transactions land, and the share of the DUST pool that earns it.
 *
 * A sponsored answer ends one of two ways: its transaction lands (the sync marks its DUST UTXO
 * spent) or its fee intent expires unlanded (the reservation is released, the key refunded). A key
 * whose answers keep expiring holds UTXOs the pool keeper then splits more NIGHT to replace, at
 * the operator's cost, for nothing. As ERC-4337 bundlers do with senders whose operations fail
 * (ERC-7562 reputation: throttled once `seen / 10 > included + slack`, counts decaying hourly),
 * such a key keeps a smaller share: each `slack` expirations beyond its landings halve it, down to
 * one UTXO (never zero, so a key that mends its ways can land again and earn its share back).
 *
 * Counts decay exponentially with time constant `windowMs`, so both the throttle and the recovery
 * follow the recent past, and an idle key forgets. One entry per key and network (two numbers and a
 * time), dropped once it has decayed to nothing; at most `maxKeys` entries, the stalest dropped first.
 */
import type { Clock } from '../../../core/clock.js';

type AnswerOutcome = 'landed' | 'expired';

interface KeyHealthOptions {
  clock: Clock;
  /** Time constant of the decay, ms (`dust.keyHealthWindowMs`). */
  windowMs: number;
  /** Expirations beyond landings tolerated at the full share; each further `slack` halves it (`dust.throttleSlack`). */
  slack: number;
  /** Entries kept at most (keys × networks). */
  maxKeys?: number;
}

export interface KeyShare {
  /** UTXOs the key may hold reserved on the network now. */
  limit: number;
  /** Expirations beyond landings (decayed), when the share is cut; undefined at the full share. */
  throttledBy?: number;
}

interface Counts {
  expired: number;
  landed: number;
  at: number;
}

/** Below this, a decayed entry holds no information: dropped. */
const FORGOTTEN = 0.05;

export class KeyHealth {
  private readonly entries = new Map<string, Counts>();
  private readonly maxKeys: number;

  constructor(private readonly opts: KeyHealthOptions) {
    if (!(opts.windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${opts.windowMs}`);
    if (!(opts.slack >= 1)) throw new RangeError(`slack must be at least 1, got ${opts.slack}`);
    this.maxKeys = opts.maxKeys ?? 100_000;
  }

  /** An answered sponsorship of `keyId` on `network` ended so. */
  record(network: string, keyId: string, outcome: AnswerOutcome): void {
    const id = `${network}|${keyId}`;
    const c = this.decayed(id) ?? { expired: 0, landed: 0, at: this.opts.clock.now() };
    if (outcome === 'landed') c.landed++;
    else c.expired++;
    // Re-inserted: the map's order is last use, so the stalest entry is the first.
    this.entries.delete(id);
    this.entries.set(id, c);
    if (this.entries.size > this.maxKeys) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The key's share of the network's pool, out of `full` (`dust.maxReservationsPerKey`). */
  share(network: string, keyId: string, full: number): KeyShare {
    const c = this.decayed(`${network}|${keyId}`);
    const debt = c ? c.expired - c.landed : 0;
    if (debt <= this.opts.slack) return { limit: full };
    const halvings = Math.ceil((debt - this.opts.slack) / this.opts.slack);
    return { limit: Math.max(1, Math.floor(full / 2 ** halvings)), throttledBy: debt };
  }

  /** Decayed counts of `landed` and `expired` (tests, status). */
  counts(network: string, keyId: string): { landed: number; expired: number } {
    const c = this.decayed(`${network}|${keyId}`);
    return { landed: c?.landed ?? 0, expired: c?.expired ?? 0 };
  }

  get size(): number {
    return this.entries.size;
  }

  private decayed(id: string): Counts | undefined {
    const c = this.entries.get(id);
    if (!c) return undefined;
    const now = this.opts.clock.now();
    if (now > c.at) {
      const f = Math.exp(-(now - c.at) / this.opts.windowMs);
      c.expired *= f;
      c.landed *= f;
      c.at = now;
    }
    if (c.expired < FORGOTTEN && c.landed < FORGOTTEN) {
      this.entries.delete(id);
      return undefined;
    }
    return c;
  }
}
