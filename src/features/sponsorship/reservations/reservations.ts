import type { DustAllocatorTable, ReservationRef } from '../allocator/allocator.js';
import type { TimerHandle, TimerWheel } from './timer-wheel.js';

/** The timer wheel reclaims a reservation 5 minutes after it was made (docs/sponsorship.md, "What happens to a request"). */
export const DEFAULT_RESERVATION_TTL_MS = 300_000;

/** Ledger intent TTLs have whole-second resolution: ledger-v8 truncates the Date it is given. */
const LEDGER_TTL_RESOLUTION_MS = 1000;

type SettleOutcome = 'released' | 'spent';

/** How an answered reservation ended: its transaction landed, or its fee intent expired unlanded. */
export type ReservationOutcome = 'landed' | 'expired';

interface ReservationReclaimerOptions {
  /** Time from a reservation to its reclaim (default 300 000 ms). */
  reservationTtlMs?: number;
  /** A reservation with a known fee-intent TTL is looked at this long after it (default 10 000 ms). */
  expiryMarginMs?: number;
  /**
   * Whether the chain the DUST sync follows has a block after `t` and the sync has replayed what
   * the indexer had: then a fee intent with TTL `t` can no longer land, and if it landed, its
   * UTXO is marked SPENT already. Without it, nothing is released before the reclaim deadline.
   */
  chainPast?: (t: number) => boolean;
  /** While `chainPast` says no, the reservation is looked at again this often (default 1 000 ms). */
  recheckMs?: number;
}

/** What the reclaimer knows of an answered reservation's fee intent. */
interface ReservationExpiry {
  /** The fee intent's TTL (the answer's `expiresAt`), ms since the epoch. */
  expiresAt: number;
  /** Told once how the reservation ended (not for one released or settled by its holder). */
  onOutcome?: (outcome: ReservationOutcome) => void;
}

/** The deadline to pass to `DustAllocatorTable.reserve`, so its `reclaimExpired` agrees with the wheel. */
export function reclaimAt(reservedAtMs: number, reservationTtlMs: number = DEFAULT_RESERVATION_TTL_MS): number {
  return reservedAtMs + reservationTtlMs;
}

/**
 * The TTL to give the fee intent (`Intent.new(ttl)`) that spends a reserved DUST UTXO: at most
 * `lifeMs` after the reservation and strictly before its reclaim time, by at least
 * `safetyMarginMs`, rounded down to the ledger's whole seconds.
 *
 * Why: reclaim puts the UTXO back to FREE, and the next reservation builds another intent that
 * spends it. If the first intent could still be included after the reclaim, both could reach
 * the chain and one sponsored transaction would fail on an already spent DUST nullifier. With
 * the intent's TTL before the reclaim time, the first intent has expired when the UTXO becomes
 * reservable again, so a reclaimed UTXO is never spent twice. The margin covers the distance
 * between this server's clock and the block timestamps the ledger checks the TTL against.
 */
export function feeIntentTtl(reservedAtMs: number, reservationTtlMs: number, safetyMarginMs: number, lifeMs: number = Number.POSITIVE_INFINITY): Date {
  if (!Number.isFinite(reservedAtMs)) throw new RangeError(`reservedAtMs must be a finite number, got ${reservedAtMs}`);
  if (!Number.isFinite(safetyMarginMs) || safetyMarginMs <= 0) {
    throw new RangeError(`safetyMarginMs must be a positive number, got ${safetyMarginMs}`);
  }
  if (!Number.isFinite(reservationTtlMs) || reservationTtlMs <= safetyMarginMs + LEDGER_TTL_RESOLUTION_MS) {
    throw new RangeError(`reservationTtlMs (${reservationTtlMs}) must exceed safetyMarginMs (${safetyMarginMs}) by more than ${LEDGER_TTL_RESOLUTION_MS} ms`);
  }
  // A shorter life (`dust.feeTtlMs`) means fewer blocks of price rise for the fee to cover.
  const latest = Math.min(reclaimAt(reservedAtMs, reservationTtlMs) - safetyMarginMs, reservedAtMs + lifeMs);
  return new Date(Math.floor(latest / LEDGER_TTL_RESOLUTION_MS) * LEDGER_TTL_RESOLUTION_MS);
}

interface Tracked {
  readonly generation: number;
  timer: TimerHandle;
  /** The reclaim deadline: released then whatever the chain says. */
  readonly deadline: number;
  /** Called when the reclaim put the UTXO back unspent (its transaction never landed). */
  readonly onReclaimed: (() => void) | undefined;
  readonly expiry: ReservationExpiry | undefined;
}

/**
 * Main thread: gives every reservation a reclaim timer on the wheel, and takes it off when the
 * reservation settles. At most one reservation per slot is live, so tracking is keyed by slot;
 * the generation tells a live reservation from a stale one.
 */
export class ReservationReclaimer {
  readonly reservationTtlMs: number;
  private readonly table: DustAllocatorTable;
  private readonly wheel: TimerWheel;
  private readonly bySlot = new Map<number, Tracked>();
  private readonly expiryMarginMs: number;
  private readonly recheckMs: number;
  private readonly chainPast: ((t: number) => boolean) | undefined;
  private readonly expire = (reservation: ReservationRef): void => {
    const tracked = this.bySlot.get(reservation.slot);
    if (!tracked || tracked.generation !== reservation.generation) return;
    const now = this.wheel.now();
    if (now < tracked.deadline && tracked.expiry) {
      // Before the deadline only a reservation whose fee intent can no longer land goes back:
      // one the sync marked spent has landed (never released: the table refuses, SPENT wins);
      // one still RESERVED once the chain is past its TTL never will. Until the chain says
      // so (a stalled indexer, a sync behind), it stays reserved: looked at again shortly.
      if (this.table.isLive(reservation) && !this.chainPast?.(tracked.expiry.expiresAt)) {
        tracked.timer = this.wheel.scheduleAt(Math.min(now + this.recheckMs, tracked.deadline), this.expire, reservation);
        return;
      }
    }
    this.untrack(reservation.slot, reservation.generation);
    // The table decides: only a slot still RESERVED at this generation goes back to FREE. A
    // UTXO marked spent, released or reserved again since keeps its state.
    const released = this.table.release(reservation);
    if (released) tracked.onReclaimed?.();
    tracked.expiry?.onOutcome?.(released ? 'expired' : 'landed');
  };

  constructor(table: DustAllocatorTable, wheel: TimerWheel, options: ReservationReclaimerOptions = {}) {
    const ttl = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
    if (!Number.isFinite(ttl) || ttl <= 0) throw new RangeError(`reservationTtlMs must be a positive number, got ${ttl}`);
    this.table = table;
    this.wheel = wheel;
    this.reservationTtlMs = ttl;
    this.expiryMarginMs = options.expiryMarginMs ?? 10_000;
    this.recheckMs = options.recheckMs ?? 1_000;
    this.chainPast = options.chainPast;
    if (!(this.expiryMarginMs >= 0) || !(this.recheckMs > 0)) throw new RangeError('expiryMarginMs must be ≥ 0 and recheckMs positive');
  }

  /** Reservations waiting for their reclaim timer. */
  get tracked(): number {
    return this.bySlot.size;
  }

  /**
   * Schedules the reclaim at reservedAtMs + reservationTtlMs. `reservedAtMs` defaults to the
   * wheel's clock now: a reservation reported late is then reclaimed late, never early.
   * Returns false, scheduling nothing, when the reservation has already ended (reports from
   * workers may arrive after the holder released it).
   *
   * With `expiry` (an answered reservation whose fee intent's TTL is known), it is looked at
   * `expiryMarginMs` after that TTL instead: released then if the chain is past the TTL and the
   * UTXO is still unspent (the transaction can no longer land), so an answer never submitted
   * holds its UTXO for the fee intent's life, not for the whole reservation TTL.
   */
  track(reservation: ReservationRef, reservedAtMs: number = this.wheel.now(), onReclaimed?: () => void, expiry?: ReservationExpiry): boolean {
    const { slot, generation } = reservation;
    if (!this.table.isLive(reservation)) return false;
    if (this.bySlot.get(slot)?.generation === generation) return true;
    // This reservation is live, so any timer left for an older one of the same slot is moot.
    this.untrack(slot, undefined);
    const deadline = reclaimAt(reservedAtMs, this.reservationTtlMs);
    const first = expiry ? Math.min(expiry.expiresAt + this.expiryMarginMs, deadline) : deadline;
    const timer = this.wheel.scheduleAt(first, this.expire, { slot, generation });
    this.bySlot.set(slot, { generation, timer, deadline, onReclaimed, expiry });
    return true;
  }

  /**
   * The reservation ended before its deadline: its request failed ('released', the UTXO goes back
   * to FREE at once) or its transaction spent the UTXO ('spent'). Cancels the reclaim timer and
   * returns whether the table accepted the transition (false if it was already reclaimed or
   * marked spent by chain sync).
   */
  settle(reservation: ReservationRef, outcome: SettleOutcome): boolean {
    this.untrack(reservation.slot, reservation.generation);
    return outcome === 'released' ? this.table.release(reservation) : this.table.confirm(reservation);
  }

  /**
   * Chain sync saw the slot's UTXO spent: marks it SPENT in the table (this wins over a live
   * reservation) and drops the reclaim timer of whatever reservation held it.
   */
  markSpent(slot: number): boolean {
    this.untrack(slot, undefined);
    return this.table.markSpent(slot);
  }

  /** Drops the slot's timer; with a generation, only if it belongs to that reservation. */
  private untrack(slot: number, generation: number | undefined): void {
    const tracked = this.bySlot.get(slot);
    if (tracked === undefined || (generation !== undefined && tracked.generation !== generation)) return;
    // Cancelling the timer that is firing right now is a no-op, which `expire` relies on.
    this.wheel.cancel(tracked.timer);
    this.bySlot.delete(slot);
  }
}
