/**
 * The DUST allocator table's readers: liveness, counts, sums and slot contents, safe from any
 * thread (the roles and their guarantees: DustAllocatorTable, allocator.ts).
 */
import * as layout from './allocator-layout.js';
import type { SlotState } from './allocator-layout.js';
import { isGeneration, loadU64, sumHalves } from './allocator-encoding.js';
import { AllocatorSlots, type ReservationRef } from './allocator-slots.js';

interface AllocatorCounts {
  readonly free: number;
  readonly reserved: number;
  readonly spent: number;
  /** Slots holding a UTXO: always free + reserved + spent. */
  readonly total: number;
}

type SlotStateName = 'free' | 'reserved' | 'spent';

interface SlotEntry {
  readonly slot: number;
  readonly state: SlotStateName;
  readonly generation: number;
  readonly walletIndex: number;
  readonly key: bigint;
  readonly value: bigint;
  /** Published deadline of the current reservation; null unless RESERVED and published. */
  readonly deadline: number | null;
}

/** JSON-safe summary for /health: SPECK amounts as decimal strings. */
interface AllocatorSnapshot extends AllocatorCounts {
  readonly capacity: number;
  readonly slotsInUse: number;
  /** Sum over UTXOs not yet spent (free and reserved). */
  readonly totalValue: string;
  readonly freeValue: string;
  /** Largest fee a single reservation could cover right now. */
  readonly largestFreeValue: string;
  /** Earliest published reservation deadline, ms since the epoch. */
  readonly nextDeadline: number | null;
}

const STATE_NAMES: Record<SlotState, SlotStateName | null> = {
  [layout.FREE]: 'free',
  [layout.RESERVED]: 'reserved',
  [layout.SPENT]: 'spent',
  [layout.EMPTY]: null,
};

export abstract class AllocatorReaders extends AllocatorSlots {
  /** True while the reservation holds its slot (RESERVED at its generation). */
  isLive(reservation: ReservationRef): boolean {
    const base = this.baseOf(reservation.slot);
    const generation = reservation.generation;
    return isGeneration(generation) && Atomics.load(this.words, base + layout.SLOT_CONTROL) === layout.packControl(generation, layout.RESERVED);
  }

  counts(): AllocatorCounts {
    const { free, reserved, spent } = this.aggregate();
    return { free, reserved, spent, total: free + reserved + spent };
  }

  /**
   * FREE UTXOs paying the reserve's floor (COUNTED) that no operation has claimed, in one atomic
   * load (no scan): what a reservation with `keepFree` compares against, and the splits' fees the
   * free pool can pay. Equals the COUNTED FREE slots whenever no operation is half done; while one
   * is, lower by the operations under way (never higher).
   */
  freeTokens(): number {
    return Math.max(0, Atomics.load(this.words, layout.HEADER_FREE_TOKENS));
  }

  /** FREE UTXOs below the reserve's floor: never held back for the keeper (a scan). */
  uncountedFree(): number {
    const words = this.words;
    const used = Atomics.load(words, layout.HEADER_HIGH_WATER);
    let n = 0;
    for (let slot = 0; slot < used; slot++) {
      const control = Atomics.load(words, layout.slotBase(slot) + layout.SLOT_CONTROL);
      if (layout.controlState(control) === layout.FREE && (control & layout.COUNTED) === 0) n++;
    }
    return n;
  }

  /** Sum of the values of UTXOs not yet spent (FREE and RESERVED), in SPECK. */
  totalValue(): bigint {
    const { totalHi, totalLo } = this.aggregate();
    return sumHalves(totalHi, totalLo);
  }

  snapshot(): AllocatorSnapshot {
    const a = this.aggregate();
    return {
      capacity: this.capacity,
      slotsInUse: Atomics.load(this.words, layout.HEADER_HIGH_WATER),
      free: a.free,
      reserved: a.reserved,
      spent: a.spent,
      total: a.free + a.reserved + a.spent,
      totalValue: sumHalves(a.totalHi, a.totalLo).toString(),
      freeValue: sumHalves(a.freeHi, a.freeLo).toString(),
      largestFreeValue: sumHalves(a.largestHi, a.largestLo).toString(),
      nextDeadline: a.nextDeadline,
    };
  }

  /** What the slot holds, so the caller can map it to its ledger UTXO; null for an EMPTY slot. */
  slotEntry(slot: number): SlotEntry | null {
    const base = this.baseOf(slot);
    const words = this.words;
    for (;;) {
      const control = Atomics.load(words, base + layout.SLOT_CONTROL);
      const state = STATE_NAMES[layout.controlState(control)];
      if (state === null) return null;
      const generation = layout.controlGeneration(control);
      const walletIndex = Atomics.load(words, base + layout.SLOT_WALLET_INDEX);
      const key = loadU64(words, base + layout.SLOT_KEY_HI, base + layout.SLOT_KEY_LO);
      const value = loadU64(words, base + layout.SLOT_VALUE_HI, base + layout.SLOT_VALUE_LO);
      const deadline = state === 'reserved' ? this.publishedDeadline(base, generation) : null;
      // Unchanged control word: nothing was rewritten while we read (writes need EMPTY).
      if (Atomics.load(words, base + layout.SLOT_CONTROL) !== control) continue;
      return { slot, state, generation, walletIndex, key, value, deadline };
    }
  }

  /** One pass for counts, sums and deadlines; each slot read until its control word is stable. */
  private aggregate() {
    const words = this.words;
    const used = Atomics.load(words, layout.HEADER_HIGH_WATER);
    let free = 0;
    let reserved = 0;
    let spent = 0;
    // Sums of halves stay exact as numbers: 2^20 slots × 2^32 < 2^53.
    let totalHi = 0;
    let totalLo = 0;
    let freeHi = 0;
    let freeLo = 0;
    let largestHi = 0;
    let largestLo = 0;
    let nextDeadline: number | null = null;
    for (let slot = 0; slot < used; slot++) {
      const base = layout.slotBase(slot);
      let control: number;
      let hi: number;
      let lo: number;
      let deadline: number | null;
      do {
        control = Atomics.load(words, base + layout.SLOT_CONTROL);
        hi = Atomics.load(words, base + layout.SLOT_VALUE_HI) >>> 0;
        lo = Atomics.load(words, base + layout.SLOT_VALUE_LO) >>> 0;
        deadline = layout.controlState(control) === layout.RESERVED ? this.publishedDeadline(base, layout.controlGeneration(control)) : null;
      } while (Atomics.load(words, base + layout.SLOT_CONTROL) !== control);
      const state = layout.controlState(control);
      if (state === layout.SPENT) spent++;
      if (state !== layout.FREE && state !== layout.RESERVED) continue;
      totalHi += hi;
      totalLo += lo;
      if (state === layout.RESERVED) {
        reserved++;
        if (deadline !== null && (nextDeadline === null || deadline < nextDeadline)) nextDeadline = deadline;
        continue;
      }
      free++;
      freeHi += hi;
      freeLo += lo;
      if (hi > largestHi || (hi === largestHi && lo > largestLo)) {
        largestHi = hi;
        largestLo = lo;
      }
    }
    return { free, reserved, spent, totalHi, totalLo, freeHi, freeLo, largestHi, largestLo, nextDeadline };
  }
}
