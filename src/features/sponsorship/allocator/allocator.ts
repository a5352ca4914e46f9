import * as layout from './allocator-layout.js';
import * as encoding from './allocator-encoding.js';
import { AllocatorOwner } from './allocator-owner.js';
import type { ReservationRef } from './allocator-slots.js';

// The table's public types, with the table: its methods take and return them.
export type { ReservationRef } from './allocator-slots.js';

// V8 (Node 20) constant-folds a module's own top-level consts but not imported bindings: binding
// the layout to local consts here roughly doubles the reserve scan's speed (measured, bench/allocator.ts).
// The other modules on the reserve and release path (allocator-encoding.ts, allocator-slots.ts)
// bind what they use in the same way; the readers and the owner's operations, off that path, read
// the layout through its namespace (`layout.FREE`).
const {
  BYTES_PER_WORD,
  COUNTED,
  EMPTY,
  FREE,
  HALF_RADIX,
  HEADER_CAPACITY,
  HEADER_FLOOR,
  FLOOR_SHIFT,
  HEADER_FREE_TOKENS,
  HEADER_HIGH_WATER,
  HEADER_MAGIC,
  HEADER_VERSION,
  HEADER_WORDS,
  LAYOUT_VERSION,
  MAX_CAPACITY,
  NO_GENERATION,
  RESERVED,
  SLOT_AWAITED_GENERATION,
  SLOT_CONTROL,
  SLOT_DEADLINE,
  SLOT_DEADLINE_GENERATION,
  SLOT_VALUE_HI,
  SLOT_VALUE_LO,
  SLOT_WORDS,
  SPENT,
  GENERATION_SHIFT,
  STATE_MASK,
  TABLE_MAGIC,
  WORDS_PER_FLOAT64,
  nextGeneration,
  packControl,
  packFree,
  paysFloor,
  slotBase,
  tableWords,
} = layout;
const { HIGH_HALF, LOW_HALF, isGeneration, isU64, joinHalves, loadU64, scratch32, scratch64 } = encoding;

export interface Reservation extends ReservationRef {
  /** Value of the UTXO in SPECK when it was reserved (≥ the fee asked for). */
  readonly value: bigint;
  /** Deadline recorded in the table for `reclaimExpired`, ms since the epoch. */
  readonly deadline: number;
}

interface ReserveOptions {
  /**
   * Refuse (null) rather than take a COUNTED UTXO (one paying the reserve's floor,
   * `setReserveFloor`) that would leave fewer than this many COUNTED FREE UTXOs unclaimed: the
   * pool keeper's reserve, which request reservations keep and the keeper's own reservations do
   * not (so it can pay a split's fee when requests see nothing free). UTXOs below the floor could
   * not pay a split and are never held back. Default 0.
   */
  readonly keepFree?: number;
}

/**
 * The server wallets' DUST UTXOs in a SharedArrayBuffer (layout: allocator-layout.ts), shared by
 * the main thread and the piscina workers.
 *
 * Threads and roles (one class each, this one extending them in turn):
 * - `reserve`, `release` and `confirm` (here) are lock-free and safe from any thread, any number
 *   at once.
 * - `add`, `updateValue`, `markSpent`, `recycle` and `reclaimExpired` (allocator-owner.ts) belong
 *   to ONE owner thread (the one running chain sync). They are safe against concurrent
 *   reservers, not against each other on two threads.
 * - The readers (`isLive`, `counts`, `totalValue`, `snapshot`, `slotEntry`; allocator-readers.ts)
 *   are safe from any thread; each slot is read consistently, the table as a whole is not frozen
 *   while read.
 * - The slot steps they share (allocator-slots.ts), and the 64-bit halves (allocator-encoding.ts).
 *
 * Every transition changes the slot's control word (state + generation) with one
 * compareExchange, so a transition made from a stale view fails instead of overwriting a newer
 * one. The generation is bumped on every transition: a holder can only release the exact
 * reservation it was given (no ABA after reclaim, markSpent or a new reservation), until 2^29
 * transitions of the same slot wrap the counter.
 *
 * Values and identities are written only while a slot is EMPTY (by `add`, and by `updateValue`,
 * which withdraws the UTXO for the rewrite). A reserver that wins the compareExchange from FREE
 * therefore reads them after the write that published FREE, and nobody can write them while it
 * holds the slot.
 *
 * The deadline is written by the reserver just after it wins the slot, then published by storing
 * its generation in DEADLINE_GENERATION; readers trust a deadline only under that generation.
 * The one way a reserver can lose the slot before publishing is `markSpent`, and `recycle` then
 * waits for the publication, so the late write never lands on the slot's next UTXO.
 *
 * The keeper's reserve counts value, not UTXOs: a FREE slot whose value pays the reserve's floor
 * (a split's fee, with margin) carries the COUNTED flag in its control word, set by whichever
 * transition publishes it FREE, and only COUNTED slots hold free tokens. Decayed UTXOs too small
 * for a split therefore never stand in for the reserve, and requests may still take them.
 *
 * The header's FREE_TOKENS word counts COUNTED FREE slots that no operation has claimed (layout
 * module). With T that word, H the tokens reservers hold (taken, slot not yet won), P the tokens
 * the owner, `reserveExact` or a recount has taken for a withdrawal not yet done or undone, and I
 * the slots published COUNTED FREE whose token is not yet added: T + H + P + I = COUNTED FREE
 * slots, at every step, because each step moves one unit between two of these terms (or takes
 * one from both sides: a slot won with a held token, a withdrawal done). Hence T ≤ COUNTED FREE
 * slots always, with equality at rest.
 */
export class DustAllocatorTable extends AllocatorOwner {
  /** A new, empty table with room for `capacity` UTXOs (main thread, at start). */
  static create(capacity: number): DustAllocatorTable {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_CAPACITY) {
      throw new RangeError(`DUST allocator capacity must be an integer from 1 to ${MAX_CAPACITY}, got ${capacity}`);
    }
    const buffer = new SharedArrayBuffer(tableWords(capacity) * BYTES_PER_WORD);
    const words = new Int32Array(buffer);
    for (let slot = 0; slot < capacity; slot++) {
      const base = slotBase(slot);
      words[base + SLOT_CONTROL] = packControl(0, EMPTY);
      words[base + SLOT_DEADLINE_GENERATION] = NO_GENERATION;
      words[base + SLOT_AWAITED_GENERATION] = NO_GENERATION;
    }
    words[HEADER_CAPACITY] = capacity;
    words[HEADER_VERSION] = LAYOUT_VERSION;
    // Posting the buffer to a worker happens after this store, so workers see a complete table.
    Atomics.store(words, HEADER_MAGIC, TABLE_MAGIC);
    return new DustAllocatorTable(buffer, capacity);
  }

  /** The same table seen from another thread, from the buffer the creator posted to it. */
  static fromShared(buffer: SharedArrayBuffer): DustAllocatorTable {
    if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength < HEADER_WORDS * BYTES_PER_WORD) {
      throw new TypeError('DustAllocatorTable.fromShared needs the SharedArrayBuffer of a DustAllocatorTable');
    }
    const words = new Int32Array(buffer);
    if (Atomics.load(words, HEADER_MAGIC) !== TABLE_MAGIC) {
      throw new TypeError('DustAllocatorTable.fromShared: the buffer is not a DUST allocator table');
    }
    const version = Atomics.load(words, HEADER_VERSION);
    if (version !== LAYOUT_VERSION) {
      throw new TypeError(`DustAllocatorTable.fromShared: table layout version ${version}, this code reads ${LAYOUT_VERSION}`);
    }
    const capacity = Atomics.load(words, HEADER_CAPACITY);
    if (buffer.byteLength !== tableWords(capacity) * BYTES_PER_WORD) {
      throw new TypeError('DustAllocatorTable.fromShared: buffer size does not match the capacity in its header');
    }
    return new DustAllocatorTable(buffer, capacity);
  }

  /**
   * Reserves the smallest FREE UTXO whose value covers `fee` (best fit, LEDGER.md: one in-flight
   * sponsored transaction per DUST UTXO), recording `deadline` (ms since the epoch) for
   * `reclaimExpired`. Returns null when no FREE UTXO covers the fee.
   *
   * The scan uses plain loads (an Atomics.load per word costs several times more in V8) and
   * treats what it reads as hints: aligned Int32 reads never tear, so each is a value the word
   * held, perhaps stale. The compareExchange from the control word the scan saw is what claims
   * the slot; if anything changed the slot since (another reserver, the owner), it fails and the
   * scan runs again over the current table, which yields the next best candidate. A failed
   * compareExchange means another thread made progress, so the loop is lock-free.
   *
   * `keepFree` (the pool keeper's reserve) is enforced here, atomically, not by a count taken
   * beforehand: before it claims a COUNTED slot the reserver takes a free token, by
   * compareExchange from a token count above `keepFree` only. Tokens other reservers hold and the
   * withdrawals under way are already out of the count, so reservations with a `keepFree` of k,
   * however many at once on however many threads, never bring the COUNTED FREE UTXOs below k; only
   * reservations with a smaller one (the keeper's) and the owner's markSpent can. The token is
   * taken after the scan found a candidate, so a fee no UTXO covers never holds one; a token whose
   * scans then find nothing, or only a slot below the floor (which needs none), is given back. The
   * best fit is COUNTED only when every UTXO covering the fee pays the floor, so a refusal leaves
   * no uncounted UTXO that would have done. A failed token exchange means the count moved, i.e.
   * another thread made progress: the reserve stays lock-free. A refusal means that at its
   * exchange at most `keepFree` COUNTED FREE UTXOs were unclaimed by the operations then under way.
   */
  reserve(fee: bigint, deadline: number, options?: ReserveOptions): Reservation | null {
    if (typeof fee !== 'bigint') throw new TypeError(`fee must be a bigint (SPECK), got ${typeof fee}`);
    if (!isU64(fee)) throw new RangeError(`fee must be from 0 to 2^64 - 1 SPECK, got ${fee}`);
    if (!Number.isSafeInteger(deadline) || deadline < 0) {
      throw new RangeError(`deadline must be a non-negative integer (ms since the epoch), got ${deadline}`);
    }
    const keepFree = options === undefined ? 0 : checkKeepFree(options.keepFree);
    scratch64[0] = fee;
    const feeHi = scratch32[HIGH_HALF]!;
    const feeLo = scratch32[LOW_HALF]!;
    // Indices below stay inside the table by construction (slot < high water ≤ capacity), so
    // the non-null assertions only silence noUncheckedIndexedAccess.
    const words = this.words;
    let token = false;
    for (;;) {
      const used = words[HEADER_HIGH_WATER]!;
      let best = -1;
      let bestControl = 0;
      let bestHi = HALF_RADIX;
      let bestLo = 0;
      for (let slot = 0; slot < used; slot++) {
        const base = HEADER_WORDS + slot * SLOT_WORDS;
        const control = words[base + SLOT_CONTROL]!;
        if ((control & STATE_MASK) !== FREE) continue;
        // The high half settles almost every comparison; the low half is read only on a tie.
        const hi = words[base + SLOT_VALUE_HI]! >>> 0;
        if (hi < feeHi || hi > bestHi) continue;
        const lo = words[base + SLOT_VALUE_LO]! >>> 0;
        if ((hi === feeHi && lo < feeLo) || (hi === bestHi && lo >= bestLo)) continue;
        best = slot;
        bestControl = control;
        bestHi = hi;
        bestLo = lo;
      }
      const counted = (bestControl & COUNTED) !== 0;
      if (best < 0 || (token && !counted)) {
        // Nothing covers the fee, or the candidate is below the floor and needs no token.
        if (token) Atomics.add(words, HEADER_FREE_TOKENS, 1);
        token = false;
        if (best < 0) return null;
      }
      if (counted && !token) {
        // Inline, not a method: this is the hot path's one extra atomic pair.
        let tokens = words[HEADER_FREE_TOKENS]!;
        for (;;) {
          if (tokens <= keepFree && (tokens = Atomics.load(words, HEADER_FREE_TOKENS)) <= keepFree) return null;
          const seen = Atomics.compareExchange(words, HEADER_FREE_TOKENS, tokens, tokens - 1);
          if (seen === tokens) break;
          tokens = seen;
        }
        token = true;
      }

      const base = HEADER_WORDS + best * SLOT_WORDS;
      const generation = nextGeneration(bestControl >>> GENERATION_SHIFT);
      if (Atomics.compareExchange(words, base + SLOT_CONTROL, bestControl, packControl(generation, RESERVED)) !== bestControl) {
        // Keep the token: the next scan's COUNTED candidate uses it, or it goes back.
        continue;
      }
      // Won (with our token if COUNTED): it now stands for this RESERVED slot, no longer for a FREE one.
      token = false;
      // The slot is ours. Publish the deadline before anything else: the atomic store of
      // DEADLINE_GENERATION comes after the plain float64 store, so a reader that sees our
      // generation there also sees our deadline. Written inline, not through a method: a call is
      // a point where a terminated thread stops, and `releaseWithDeadline` relies on none
      // between the compareExchange and this publication.
      this.floats[(base + SLOT_DEADLINE) / WORDS_PER_FLOAT64] = deadline;
      Atomics.store(words, base + SLOT_DEADLINE_GENERATION, generation);
      // Re-read the value now that the compareExchange has ordered us after the write that
      // published FREE: the scan's plain loads may have raced an owner rewrite.
      const hi = words[base + SLOT_VALUE_HI]! >>> 0;
      const lo = words[base + SLOT_VALUE_LO]! >>> 0;
      if (hi < feeHi || (hi === feeHi && lo < feeLo)) {
        // The release adds the slot's token back if it is COUNTED; the next candidate takes a new one.
        this.release({ slot: best, generation });
        continue;
      }
      return { slot: best, generation, value: joinHalves(hi, lo), deadline };
    }
  }

  /**
   * Sets the reserve's floor: from now on a FREE UTXO counts towards `keepFree` only if its value
   * is at least `value` (rounded up to a multiple of 2^FLOOR_SHIFT), and recounts the FREE slots
   * against it. Any thread, lock-free: each slot whose COUNTED flag disagrees with the new floor is
   * flipped by one compareExchange of its control word (its generation unchanged), the token
   * moving as in a withdrawal or a publication. A slot published FREE by a transition that read the
   * old floor while the recount passed keeps its old flag until its next transition (a FREE value
   * is rewritten at every sync that changes it); the counts stay exact either way. 0: every FREE
   * UTXO counts.
   */
  setReserveFloor(value: bigint): void {
    checkFloor(value);
    const step = 1n << BigInt(FLOOR_SHIFT);
    const units = (value + step - 1n) / step;
    const floor = units >= HALF_RADIX_BIG ? HALF_RADIX - 1 : Number(units);
    const words = this.words;
    Atomics.store(words, HEADER_FLOOR, floor | 0);
    const used = Atomics.load(words, HEADER_HIGH_WATER);
    for (let slot = 0; slot < used; slot++) {
      const base = HEADER_WORDS + slot * SLOT_WORDS;
      for (;;) {
        const control = Atomics.load(words, base + SLOT_CONTROL);
        if ((control & STATE_MASK) !== FREE) break;
        const counted = (control & COUNTED) !== 0;
        const pays = paysFloor(Atomics.load(words, base + SLOT_VALUE_HI), Atomics.load(words, base + SLOT_VALUE_LO), floor);
        if (counted === pays) break;
        const flipped = packFree(control >>> GENERATION_SHIFT, pays);
        if (counted) {
          if (this.withdrawFree(base, control, flipped)) break;
        } else if (Atomics.compareExchange(words, base + SLOT_CONTROL, control, flipped) === control) {
          Atomics.add(words, HEADER_FREE_TOKENS, 1);
          break;
        }
      }
    }
  }

  /** The reserve's floor (a multiple of 2^FLOOR_SHIFT): the least value a FREE UTXO counts towards `keepFree` with. */
  reserveFloor(): bigint {
    return BigInt(Atomics.load(this.words, HEADER_FLOOR) >>> 0) << BigInt(FLOOR_SHIFT);
  }

  /**
   * Reserves one particular UTXO: the slot must still be FREE at the generation the caller read
   * (from `slotEntry`), so it is the UTXO the caller identified and nobody took it since. For
   * restoring reservations made before a restart (reservation-journal.ts); requests use
   * `reserve`. Returns null when the slot changed. Keeps no reserve: it restores reservations
   * already answered, which the keeper's reserve never held back.
   */
  reserveExact(entry: ReservationRef, deadline: number): Reservation | null {
    if (!Number.isSafeInteger(deadline) || deadline < 0) {
      throw new RangeError(`deadline must be a non-negative integer (ms since the epoch), got ${deadline}`);
    }
    const base = this.baseOf(entry.slot);
    if (!isGeneration(entry.generation)) return null;
    // FREE at that generation, COUNTED or not (the floor's recount keeps the generation).
    const expected = Atomics.load(this.words, base + SLOT_CONTROL);
    if ((expected & STATE_MASK) !== FREE || expected >>> GENERATION_SHIFT !== entry.generation) return null;
    const generation = nextGeneration(entry.generation);
    if (!this.withdrawFree(base, expected, packControl(generation, RESERVED))) return null;
    this.floats[(base + SLOT_DEADLINE) / WORDS_PER_FLOAT64] = deadline;
    Atomics.store(this.words, base + SLOT_DEADLINE_GENERATION, generation);
    const value = loadU64(this.words, base + SLOT_VALUE_HI, base + SLOT_VALUE_LO);
    return { slot: entry.slot, generation, value, deadline };
  }

  /**
   * Releases every reservation whose published deadline is exactly `deadline`; returns how many.
   * The main thread gives each sponsorship task a deadline no other task has, so this finds a
   * reservation whose task ended before recording it anywhere (a worker thread ended between
   * `reserve` and recording the slot). `reserve` publishes the deadline right after its
   * compareExchange, with no call in between where a thread could be stopped. Lock-free like
   * `release`: a slot that changed meanwhile is left alone.
   */
  releaseWithDeadline(deadline: number): number {
    const words = this.words;
    const used = Atomics.load(words, HEADER_HIGH_WATER);
    let released = 0;
    for (let slot = 0; slot < used; slot++) {
      const base = HEADER_WORDS + slot * SLOT_WORDS;
      const control = Atomics.load(words, base + SLOT_CONTROL);
      if ((control & STATE_MASK) !== RESERVED) continue;
      const generation = control >>> GENERATION_SHIFT;
      if (this.publishedDeadline(base, generation) !== deadline) continue;
      if (this.release({ slot, generation })) released++;
    }
    return released;
  }

  /**
   * Returns a reservation's UTXO to FREE. Only the exact reservation can: once the slot was
   * reclaimed, marked spent, or reserved again, its generation differs and this returns false
   * without touching the slot.
   */
  release(reservation: ReservationRef): boolean {
    return this.transition(reservation, FREE);
  }

  /** The holder's transaction spent the UTXO: RESERVED → SPENT, for this exact reservation only. */
  confirm(reservation: ReservationRef): boolean {
    return this.transition(reservation, SPENT);
  }
}

const HALF_RADIX_BIG = BigInt(HALF_RADIX);

function checkFloor(value: bigint): void {
  if (typeof value !== 'bigint' || !isU64(value)) throw new RangeError(`the reserve's floor must be a bigint from 0 to 2^64 - 1, got ${String(value)}`);
}

function checkKeepFree(keepFree: number | undefined): number {
  if (keepFree === undefined) return 0;
  if (!Number.isSafeInteger(keepFree) || keepFree < 0) throw new RangeError(`keepFree must be a non-negative integer, got ${keepFree}`);
  return keepFree;
}
