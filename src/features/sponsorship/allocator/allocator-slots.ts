/**
 * The base of the DUST allocator table: the views of its SharedArrayBuffer and the slot steps
 * that several of its roles share. The roles build on it, one class each: the readers
 * (allocator-readers.ts), the owner thread's operations (allocator-owner.ts), and the table with
 * its lock-free reservations (allocator.ts, whose doc states the algorithm and its invariants).
 */
import * as layout from './allocator-layout.js';
import { isGeneration } from './allocator-encoding.js';

// Local consts, not imported bindings: `transition` is on the release path (see allocator.ts).
const {
  COUNTED,
  FREE,
  HEADER_FLOOR,
  HEADER_FREE_TOKENS,
  RESERVED,
  SLOT_CONTROL,
  SLOT_DEADLINE,
  SLOT_DEADLINE_GENERATION,
  SLOT_VALUE_HI,
  SLOT_VALUE_LO,
  SPENT,
  WORDS_PER_FLOAT64,
  nextGeneration,
  packControl,
  packFree,
  paysFloor,
  slotBase,
} = layout;

/** What `release` and `confirm` need: plain data, so it survives postMessage between threads. */
export interface ReservationRef {
  readonly slot: number;
  /** The slot's generation while this reservation holds it. */
  readonly generation: number;
}

export abstract class AllocatorSlots {
  readonly buffer: SharedArrayBuffer;
  readonly capacity: number;
  protected readonly words: Int32Array;
  /** The deadlines' view of the same buffer. */
  protected readonly floats: Float64Array;

  protected constructor(buffer: SharedArrayBuffer, capacity: number) {
    this.buffer = buffer;
    this.capacity = capacity;
    this.words = new Int32Array(buffer);
    this.floats = new Float64Array(buffer);
  }

  protected transition(reservation: ReservationRef, to: typeof FREE | typeof SPENT): boolean {
    const base = this.baseOf(reservation.slot);
    const generation = reservation.generation;
    if (!isGeneration(generation)) return false;
    const expected = packControl(generation, RESERVED);
    const words = this.words;
    // The holder's value is stable (values are written only while EMPTY): it decides COUNTED.
    const counted = to === FREE && this.paysFloorAt(base);
    const replacement = to === FREE ? packFree(nextGeneration(generation), counted) : packControl(nextGeneration(generation), to);
    if (Atomics.compareExchange(words, base + SLOT_CONTROL, expected, replacement) !== expected) return false;
    // Back to COUNTED FREE: its token follows the publication (see `add`).
    if (counted) Atomics.add(words, HEADER_FREE_TOKENS, 1);
    return true;
  }

  /**
   * Whether the slot's value pays the reserve's floor as it stands now. Plain loads: the caller
   * holds the slot (RESERVED, or EMPTY for the owner's write), so its value cannot change, and
   * the floor word read whole is some floor it held.
   */
  protected paysFloorAt(base: number): boolean {
    const words = this.words;
    return paysFloor(words[base + SLOT_VALUE_HI]!, words[base + SLOT_VALUE_LO]!, words[HEADER_FLOOR]!);
  }

  /**
   * Moves a slot out of FREE (or out of COUNTED) for the owner (markSpent, updateValue),
   * `reserveExact` or the floor's recount: takes the slot's token first when it is COUNTED,
   * unconditionally (the count may dip below zero for the instant), then exchanges the control
   * word, and gives the token back if that fails. Taking it after the exchange would let the count
   * exceed the COUNTED FREE slots for an instant, and a reserver keeping a reserve could take the
   * token of a slot already gone.
   */
  protected withdrawFree(base: number, expected: number, replacement: number): boolean {
    const words = this.words;
    const counted = (expected & COUNTED) !== 0;
    if (counted) Atomics.sub(words, HEADER_FREE_TOKENS, 1);
    if (Atomics.compareExchange(words, base + SLOT_CONTROL, expected, replacement) === expected) return true;
    if (counted) Atomics.add(words, HEADER_FREE_TOKENS, 1);
    return false;
  }

  protected baseOf(slot: number): number {
    if (slot >>> 0 !== slot || slot >= this.capacity) {
      throw new RangeError(`slot must be an integer from 0 to ${this.capacity - 1}, got ${slot}`);
    }
    return slotBase(slot);
  }

  protected publishedDeadline(base: number, generation: number): number | null {
    if (Atomics.load(this.words, base + SLOT_DEADLINE_GENERATION) !== generation) return null;
    return this.floats[(base + SLOT_DEADLINE) / WORDS_PER_FLOAT64]!;
  }
}
