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
  FREE,
  HEADER_FREE_TOKENS,
  RESERVED,
  SLOT_CONTROL,
  SLOT_DEADLINE,
  SLOT_DEADLINE_GENERATION,
  SPENT,
  WORDS_PER_FLOAT64,
  nextGeneration,
  packControl,
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
    if (Atomics.compareExchange(this.words, base + SLOT_CONTROL, expected, packControl(nextGeneration(generation), to)) !== expected) return false;
    // Back to FREE: its token follows the publication (see `add`).
    if (to === FREE) Atomics.add(this.words, HEADER_FREE_TOKENS, 1);
    return true;
  }

  /**
   * Moves a slot out of FREE for the owner (markSpent, updateValue) or `reserveExact`: takes the
   * slot's token first, unconditionally (the count may dip below zero for the instant), then
   * exchanges the control word, and gives the token back if that fails. Taking it after the
   * exchange would let the count exceed the FREE slots for an instant, and a reserver keeping a
   * reserve could take the token of a slot already gone.
   */
  protected withdrawFree(base: number, expected: number, replacement: number): boolean {
    const words = this.words;
    Atomics.sub(words, HEADER_FREE_TOKENS, 1);
    if (Atomics.compareExchange(words, base + SLOT_CONTROL, expected, replacement) === expected) return true;
    Atomics.add(words, HEADER_FREE_TOKENS, 1);
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
