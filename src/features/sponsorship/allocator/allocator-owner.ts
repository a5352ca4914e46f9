/**
 * The DUST allocator table's operations that belong to the owner thread, the one running chain
 * sync (the roles and their guarantees: DustAllocatorTable, allocator.ts). The only writers of
 * values and identities, each while its slot is EMPTY.
 */
import * as layout from './allocator-layout.js';
import { checkValue, isU64, storeU64 } from './allocator-encoding.js';
import { AllocatorReaders } from './allocator-readers.js';

/** A DUST UTXO as the owner thread registers it: the table stores numbers only. */
interface DustUtxoRef {
  /** Index of the server wallet that owns the UTXO (0 ≤ walletIndex < 2^31). */
  readonly walletIndex: number;
  /** The caller's key for the UTXO inside that wallet, e.g. its index or a nonce hash (0 ≤ key < 2^64). */
  readonly key: bigint | number;
  /** Current value in SPECK (0 ≤ value < 2^64). */
  readonly value: bigint;
}

const MAX_WALLET_INDEX = 2 ** 31 - 1;

export abstract class AllocatorOwner extends AllocatorReaders {
  /** Owner thread, at sync time: registers a UTXO in an EMPTY slot and makes it FREE. */
  add(utxo: DustUtxoRef): number {
    const { walletIndex, key, value } = utxo;
    if (!Number.isInteger(walletIndex) || walletIndex < 0 || walletIndex > MAX_WALLET_INDEX) {
      throw new RangeError(`walletIndex must be an integer from 0 to ${MAX_WALLET_INDEX}, got ${walletIndex}`);
    }
    const key64 = typeof key === 'number' && Number.isSafeInteger(key) ? BigInt(key) : key;
    if (typeof key64 !== 'bigint' || !isU64(key64)) {
      throw new RangeError(`key must be a non-negative safe integer or a bigint below 2^64, got ${String(key)}`);
    }
    checkValue(value);
    const slot = this.takeEmptySlot();
    const base = layout.slotBase(slot);
    const words = this.words;
    Atomics.store(words, base + layout.SLOT_WALLET_INDEX, walletIndex);
    storeU64(words, base + layout.SLOT_KEY_HI, base + layout.SLOT_KEY_LO, key64);
    storeU64(words, base + layout.SLOT_VALUE_HI, base + layout.SLOT_VALUE_LO, value);
    const control = Atomics.load(words, base + layout.SLOT_CONTROL);
    const counted = this.paysFloorAt(base);
    Atomics.store(words, base + layout.SLOT_CONTROL, layout.packFree(layout.nextGeneration(layout.controlGeneration(control)), counted));
    // After the slot is FREE (atomics are sequentially consistent): whoever takes this token
    // finds a COUNTED FREE slot to spend it on.
    if (counted) Atomics.add(words, layout.HEADER_FREE_TOKENS, 1);
    return slot;
  }

  /**
   * Owner thread: refreshes a FREE UTXO's value (DUST grows, and decays once its NIGHT moves).
   * The UTXO is withdrawn (EMPTY) for the two-word write, so no reserver can read half of it.
   * Returns false, changing nothing, when the slot is not FREE: a reserved UTXO is refreshed at
   * a later sync, once released; a spent one has no value worth keeping.
   */
  updateValue(slot: number, value: bigint): boolean {
    checkValue(value);
    const base = this.baseOf(slot);
    const words = this.words;
    const control = Atomics.load(words, base + layout.SLOT_CONTROL);
    if (layout.controlState(control) !== layout.FREE) return false;
    const withdrawn = layout.nextGeneration(layout.controlGeneration(control));
    // A reserver may win the slot between the load and this exchange; then it keeps it.
    if (!this.withdrawFree(base, control, layout.packControl(withdrawn, layout.EMPTY))) return false;
    storeU64(words, base + layout.SLOT_VALUE_HI, base + layout.SLOT_VALUE_LO, value);
    const counted = this.paysFloorAt(base);
    Atomics.store(words, base + layout.SLOT_CONTROL, layout.packFree(layout.nextGeneration(withdrawn), counted));
    if (counted) Atomics.add(words, layout.HEADER_FREE_TOKENS, 1);
    return true;
  }

  /**
   * Owner thread: chain sync saw the UTXO spent. Wins over a reservation: a RESERVED slot goes
   * to SPENT, and its holder's later release or confirm fails on the generation. Returns false
   * when the slot was already SPENT or EMPTY.
   */
  markSpent(slot: number): boolean {
    const base = this.baseOf(slot);
    const words = this.words;
    for (;;) {
      const control = Atomics.load(words, base + layout.SLOT_CONTROL);
      const state = layout.controlState(control);
      if (state === layout.SPENT || state === layout.EMPTY) return false;
      const generation = layout.controlGeneration(control);
      const spent = layout.packControl(layout.nextGeneration(generation), layout.SPENT);
      if (
        state === layout.FREE
          ? !this.withdrawFree(base, control, spent)
          : Atomics.compareExchange(words, base + layout.SLOT_CONTROL, control, spent) !== control
      ) {
        continue;
      }
      // A reserver between its compareExchange and its DEADLINE_GENERATION store has yet to
      // write the deadline words. Note the generation it will publish; `recycle` waits for it.
      const published = Atomics.load(words, base + layout.SLOT_DEADLINE_GENERATION) === generation;
      Atomics.store(words, base + layout.SLOT_AWAITED_GENERATION, state === layout.RESERVED && !published ? generation : layout.NO_GENERATION);
      return true;
    }
  }

  /**
   * Owner thread: empties a SPENT slot so `add` can reuse it. Returns false when the slot is not
   * SPENT, or while a reserver that markSpent overtook is still writing its deadline (try again
   * at the next sync; this lasts a few instructions unless that worker died there).
   */
  recycle(slot: number): boolean {
    const base = this.baseOf(slot);
    const words = this.words;
    const control = Atomics.load(words, base + layout.SLOT_CONTROL);
    if (layout.controlState(control) !== layout.SPENT) return false;
    const awaited = Atomics.load(words, base + layout.SLOT_AWAITED_GENERATION);
    if (awaited !== layout.NO_GENERATION && Atomics.load(words, base + layout.SLOT_DEADLINE_GENERATION) !== awaited) return false;
    // Only the owner moves a slot out of SPENT, so a store cannot lose a race here.
    Atomics.store(words, base + layout.SLOT_CONTROL, layout.packControl(layout.nextGeneration(layout.controlGeneration(control)), layout.EMPTY));
    Atomics.store(words, base + layout.SLOT_AWAITED_GENERATION, layout.NO_GENERATION);
    return true;
  }

  /**
   * Owner thread: returns to FREE every reservation whose published deadline is ≤ `now`.
   * The timer wheel (reservations.ts) is the main reclaim path; this sweep catches reservations
   * nobody tracked, e.g. a worker that died before reporting one. Returns how many it reclaimed.
   */
  reclaimExpired(now: number): number {
    const words = this.words;
    const used = Atomics.load(words, layout.HEADER_HIGH_WATER);
    let reclaimed = 0;
    for (let slot = 0; slot < used; slot++) {
      const base = layout.slotBase(slot);
      const control = Atomics.load(words, base + layout.SLOT_CONTROL);
      if (layout.controlState(control) !== layout.RESERVED) continue;
      const generation = layout.controlGeneration(control);
      // An unpublished deadline belongs to a reserver still inside `reserve`: never expired.
      if (Atomics.load(words, base + layout.SLOT_DEADLINE_GENERATION) !== generation) continue;
      if (this.floats[(base + layout.SLOT_DEADLINE) / layout.WORDS_PER_FLOAT64]! > now) continue;
      // Fails if the holder released or confirmed meanwhile; then the deadline read may have
      // been a newer holder's, which is why only the exchange decides.
      if (this.transition({ slot, generation }, layout.FREE)) reclaimed++;
    }
    return reclaimed;
  }

  private takeEmptySlot(): number {
    const words = this.words;
    const used = Atomics.load(words, layout.HEADER_HIGH_WATER);
    for (let slot = 0; slot < used; slot++) {
      if (layout.controlState(Atomics.load(words, layout.slotBase(slot) + layout.SLOT_CONTROL)) === layout.EMPTY) return slot;
    }
    if (used === this.capacity) {
      throw new RangeError(`DUST allocator table is full (${this.capacity} slots): recycle spent slots or raise the capacity`);
    }
    // Raised before the slot is published FREE; a reserver scanning with the old high water
    // simply misses the new UTXO for one call.
    Atomics.store(words, layout.HEADER_HIGH_WATER, used + 1);
    return used;
  }
}
