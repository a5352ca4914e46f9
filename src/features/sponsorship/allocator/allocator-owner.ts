/**
 * The DUST allocator table's operations that belong to the owner thread, the one running chain
 * sync (the roles and their guarantees: DustAllocatorTable, allocator.ts). The only writers of
 * values and identities, each while its slot is EMPTY.
 */
import {
  EMPTY,
  FREE,
  HEADER_FREE_TOKENS,
  HEADER_HIGH_WATER,
  NO_GENERATION,
  RESERVED,
  SLOT_AWAITED_GENERATION,
  SLOT_CONTROL,
  SLOT_DEADLINE,
  SLOT_DEADLINE_GENERATION,
  SLOT_KEY_HI,
  SLOT_KEY_LO,
  SLOT_VALUE_HI,
  SLOT_VALUE_LO,
  SLOT_WALLET_INDEX,
  SPENT,
  WORDS_PER_FLOAT64,
  controlGeneration,
  controlState,
  nextGeneration,
  packControl,
  packFree,
  slotBase,
} from './allocator-layout.js';
import { checkValue, isU64, storeU64 } from './allocator-encoding.js';
import { AllocatorReaders } from './allocator-readers.js';

/** A DUST UTXO as the owner thread registers it: the table stores numbers only. */
export interface DustUtxoRef {
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
    const base = slotBase(slot);
    const words = this.words;
    Atomics.store(words, base + SLOT_WALLET_INDEX, walletIndex);
    storeU64(words, base + SLOT_KEY_HI, base + SLOT_KEY_LO, key64);
    storeU64(words, base + SLOT_VALUE_HI, base + SLOT_VALUE_LO, value);
    const control = Atomics.load(words, base + SLOT_CONTROL);
    const counted = this.paysFloorAt(base);
    Atomics.store(words, base + SLOT_CONTROL, packFree(nextGeneration(controlGeneration(control)), counted));
    // After the slot is FREE (atomics are sequentially consistent): whoever takes this token
    // finds a COUNTED FREE slot to spend it on.
    if (counted) Atomics.add(words, HEADER_FREE_TOKENS, 1);
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
    const control = Atomics.load(words, base + SLOT_CONTROL);
    if (controlState(control) !== FREE) return false;
    const withdrawn = nextGeneration(controlGeneration(control));
    // A reserver may win the slot between the load and this exchange; then it keeps it.
    if (!this.withdrawFree(base, control, packControl(withdrawn, EMPTY))) return false;
    storeU64(words, base + SLOT_VALUE_HI, base + SLOT_VALUE_LO, value);
    const counted = this.paysFloorAt(base);
    Atomics.store(words, base + SLOT_CONTROL, packFree(nextGeneration(withdrawn), counted));
    if (counted) Atomics.add(words, HEADER_FREE_TOKENS, 1);
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
      const control = Atomics.load(words, base + SLOT_CONTROL);
      const state = controlState(control);
      if (state === SPENT || state === EMPTY) return false;
      const generation = controlGeneration(control);
      const spent = packControl(nextGeneration(generation), SPENT);
      if (state === FREE ? !this.withdrawFree(base, control, spent) : Atomics.compareExchange(words, base + SLOT_CONTROL, control, spent) !== control) {
        continue;
      }
      // A reserver between its compareExchange and its DEADLINE_GENERATION store has yet to
      // write the deadline words. Note the generation it will publish; `recycle` waits for it.
      const published = Atomics.load(words, base + SLOT_DEADLINE_GENERATION) === generation;
      Atomics.store(words, base + SLOT_AWAITED_GENERATION, state === RESERVED && !published ? generation : NO_GENERATION);
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
    const control = Atomics.load(words, base + SLOT_CONTROL);
    if (controlState(control) !== SPENT) return false;
    const awaited = Atomics.load(words, base + SLOT_AWAITED_GENERATION);
    if (awaited !== NO_GENERATION && Atomics.load(words, base + SLOT_DEADLINE_GENERATION) !== awaited) return false;
    // Only the owner moves a slot out of SPENT, so a store cannot lose a race here.
    Atomics.store(words, base + SLOT_CONTROL, packControl(nextGeneration(controlGeneration(control)), EMPTY));
    Atomics.store(words, base + SLOT_AWAITED_GENERATION, NO_GENERATION);
    return true;
  }

  /**
   * Owner thread: returns to FREE every reservation whose published deadline is ≤ `now`.
   * The timer wheel (reservations.ts) is the main reclaim path; this sweep catches reservations
   * nobody tracked, e.g. a worker that died before reporting one. Returns how many it reclaimed.
   */
  reclaimExpired(now: number): number {
    const words = this.words;
    const used = Atomics.load(words, HEADER_HIGH_WATER);
    let reclaimed = 0;
    for (let slot = 0; slot < used; slot++) {
      const base = slotBase(slot);
      const control = Atomics.load(words, base + SLOT_CONTROL);
      if (controlState(control) !== RESERVED) continue;
      const generation = controlGeneration(control);
      // An unpublished deadline belongs to a reserver still inside `reserve`: never expired.
      if (Atomics.load(words, base + SLOT_DEADLINE_GENERATION) !== generation) continue;
      if (this.floats[(base + SLOT_DEADLINE) / WORDS_PER_FLOAT64]! > now) continue;
      // Fails if the holder released or confirmed meanwhile; then the deadline read may have
      // been a newer holder's, which is why only the exchange decides.
      if (this.transition({ slot, generation }, FREE)) reclaimed++;
    }
    return reclaimed;
  }

  private takeEmptySlot(): number {
    const words = this.words;
    const used = Atomics.load(words, HEADER_HIGH_WATER);
    for (let slot = 0; slot < used; slot++) {
      if (controlState(Atomics.load(words, slotBase(slot) + SLOT_CONTROL)) === EMPTY) return slot;
    }
    if (used === this.capacity) {
      throw new RangeError(`DUST allocator table is full (${this.capacity} slots): recycle spent slots or raise the capacity`);
    }
    // Raised before the slot is published FREE; a reserver scanning with the old high water
    // simply misses the new UTXO for one call.
    Atomics.store(words, HEADER_HIGH_WATER, used + 1);
    return used;
  }
}
