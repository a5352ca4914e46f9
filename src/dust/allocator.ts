import * as layout from './allocator-layout.js';
import type { SlotState } from './allocator-layout.js';

// V8 (Node 20) constant-folds a module's own top-level consts but not imported bindings: binding
// the layout to local consts here roughly doubles the reserve scan's speed (measured, bench/allocator.ts).
const {
  BYTES_PER_WORD,
  EMPTY,
  FREE,
  GENERATION_MASK,
  HALF_RADIX,
  HEADER_CAPACITY,
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
  SLOT_KEY_HI,
  SLOT_KEY_LO,
  SLOT_VALUE_HI,
  SLOT_VALUE_LO,
  SLOT_WALLET_INDEX,
  SLOT_WORDS,
  SPENT,
  STATE_BITS,
  STATE_MASK,
  TABLE_MAGIC,
  WORDS_PER_FLOAT64,
  controlGeneration,
  controlState,
  nextGeneration,
  packControl,
  slotBase,
  tableWords,
} = layout;

/** A DUST UTXO as the owner thread registers it: the table stores numbers only. */
export interface DustUtxoRef {
  /** Index of the server wallet that owns the UTXO (0 ≤ walletIndex < 2^31). */
  readonly walletIndex: number;
  /** The caller's key for the UTXO inside that wallet, e.g. its index or a nonce hash (0 ≤ key < 2^64). */
  readonly key: bigint | number;
  /** Current value in SPECK (0 ≤ value < 2^64). */
  readonly value: bigint;
}

/** What `release` and `confirm` need: plain data, so it survives postMessage between threads. */
export interface ReservationRef {
  readonly slot: number;
  /** The slot's generation while this reservation holds it. */
  readonly generation: number;
}

export interface Reservation extends ReservationRef {
  /** Value of the UTXO in SPECK when it was reserved (≥ the fee asked for). */
  readonly value: bigint;
  /** Deadline recorded in the table for `reclaimExpired`, ms since the epoch. */
  readonly deadline: number;
}

export interface ReserveOptions {
  /**
   * Refuse (null) rather than take a UTXO that would leave fewer than this many FREE UTXOs
   * unclaimed: the pool keeper's reserve, which request reservations keep and the keeper's own
   * reservations do not (so it can pay a split's fee when requests see nothing free). Default 0.
   */
  readonly keepFree?: number;
}

export interface AllocatorCounts {
  readonly free: number;
  readonly reserved: number;
  readonly spent: number;
  /** Slots holding a UTXO: always free + reserved + spent. */
  readonly total: number;
}

export type SlotStateName = 'free' | 'reserved' | 'spent';

export interface SlotEntry {
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
export interface AllocatorSnapshot extends AllocatorCounts {
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

const MAX_WALLET_INDEX = 2 ** 31 - 1;
/**
 * Splitting a bigint into 32-bit halves (and back) through one 8-byte scratch buffer is a
 * typed-array store and two loads; Number(bigint) and BigInt(number) are builtin calls, about
 * three times slower, and the fee split and value join sit on the reserve hot path.
 * The scratch is per thread (module state), and nothing runs between its write and its reads.
 */
const scratch64 = new BigUint64Array(1);
const scratch32 = new Uint32Array(scratch64.buffer);
/** Which half of the scratch holds the low 32 bits, on this platform's byte order. */
const LOW_HALF = new Uint32Array(new BigUint64Array([1n]).buffer)[0] === 1 ? 0 : 1;
const HIGH_HALF = 1 - LOW_HALF;
const STATE_NAMES: Record<SlotState, SlotStateName | null> = {
  [FREE]: 'free',
  [RESERVED]: 'reserved',
  [SPENT]: 'spent',
  [EMPTY]: null,
};

/**
 * The server wallets' DUST UTXOs in a SharedArrayBuffer (layout: allocator-layout.ts), shared by
 * the main thread and the piscina workers.
 *
 * Threads and roles:
 * - `reserve`, `release` and `confirm` are lock-free and safe from any thread, any number at once.
 * - `add`, `updateValue`, `markSpent`, `recycle` and `reclaimExpired` belong to ONE owner thread
 *   (the one running chain sync). They are safe against concurrent reservers, not against each
 *   other on two threads.
 * - The readers (`isLive`, `counts`, `totalValue`, `snapshot`, `slotEntry`) are safe from any
 *   thread; each slot is read consistently, the table as a whole is not frozen while read.
 *
 * Every transition changes the slot's control word (state + generation) with one
 * compareExchange, so a transition made from a stale view fails instead of overwriting a newer
 * one. The generation is bumped on every transition: a holder can only release the exact
 * reservation it was given (no ABA after reclaim, markSpent or a new reservation), until 2^30
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
 * The header's FREE_TOKENS word counts FREE slots that no operation has claimed (layout module).
 * With T that word, H the tokens reservers hold (taken, slot not yet won), P the tokens the
 * owner (or `reserveExact`) has taken for a withdrawal not yet done or undone, and I the slots
 * published FREE whose token is not yet added: T + H + P + I = FREE slots, at every step, because
 * each step moves one unit between two of these terms (or takes one from both sides: a slot won
 * with a held token, a withdrawal done). Hence T ≤ FREE slots always, with equality at rest.
 */
export class DustAllocatorTable {
  readonly buffer: SharedArrayBuffer;
  readonly capacity: number;
  private readonly words: Int32Array;
  /** The deadlines' view of the same buffer. */
  private readonly floats: Float64Array;

  private constructor(buffer: SharedArrayBuffer, capacity: number) {
    this.buffer = buffer;
    this.capacity = capacity;
    this.words = new Int32Array(buffer);
    this.floats = new Float64Array(buffer);
  }

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
   * beforehand: before it claims a slot the reserver takes a free token, by compareExchange from
   * a token count above `keepFree` only. Tokens other reservers hold and the owner's withdrawals
   * under way are already out of the count, so reservations with a `keepFree` of k, however many
   * at once on however many threads, never bring the FREE UTXOs below k; only reservations with a
   * smaller one (the keeper's) and the owner's markSpent can. The token is taken after the scan
   * found a candidate, so a fee no UTXO covers never holds one; a token whose scans then find
   * nothing (the candidates were taken) is given back. A failed token exchange means the count
   * moved, i.e. another thread made progress: the reserve stays lock-free. A refusal means that
   * at its exchange at most `keepFree` FREE UTXOs were unclaimed by the operations then under way.
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
    // Refused before any scan when the reserve is all that is left (the common answer under a
    // flood that has taken the pool): one atomic load. The exchange below still decides.
    if (words[HEADER_FREE_TOKENS]! <= keepFree && Atomics.load(words, HEADER_FREE_TOKENS) <= keepFree) return null;
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
      if (best < 0) {
        if (token) Atomics.add(words, HEADER_FREE_TOKENS, 1);
        return null;
      }
      if (!token) {
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
      const generation = nextGeneration(bestControl >>> STATE_BITS);
      if (Atomics.compareExchange(words, base + SLOT_CONTROL, bestControl, packControl(generation, RESERVED)) !== bestControl) {
        // Keep the token: the next scan's candidate uses it, or it goes back with a null.
        continue;
      }
      // Won with our token: it now stands for this RESERVED slot, no longer for a FREE one.
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
        // The release adds the slot's token back; the next candidate takes a new one.
        this.release({ slot: best, generation });
        continue;
      }
      return { slot: best, generation, value: joinHalves(hi, lo), deadline };
    }
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
    const expected = packControl(entry.generation, FREE);
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
      const generation = control >>> STATE_BITS;
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

  /** True while the reservation holds its slot (RESERVED at its generation). */
  isLive(reservation: ReservationRef): boolean {
    const base = this.baseOf(reservation.slot);
    const generation = reservation.generation;
    return isGeneration(generation) && Atomics.load(this.words, base + SLOT_CONTROL) === packControl(generation, RESERVED);
  }

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
    Atomics.store(words, base + SLOT_CONTROL, packControl(nextGeneration(controlGeneration(control)), FREE));
    // After the slot is FREE (atomics are sequentially consistent): whoever takes this token
    // finds a FREE slot to spend it on.
    Atomics.add(words, HEADER_FREE_TOKENS, 1);
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
    Atomics.store(words, base + SLOT_CONTROL, packControl(nextGeneration(withdrawn), FREE));
    Atomics.add(words, HEADER_FREE_TOKENS, 1);
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

  counts(): AllocatorCounts {
    const { free, reserved, spent } = this.aggregate();
    return { free, reserved, spent, total: free + reserved + spent };
  }

  /**
   * FREE UTXOs no operation has claimed, in one atomic load (no scan): what a reservation with
   * `keepFree` compares against. Equals `counts().free` whenever no operation is half done; while
   * one is, lower by the operations under way (never higher than the FREE slots).
   */
  freeTokens(): number {
    return Math.max(0, Atomics.load(this.words, HEADER_FREE_TOKENS));
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
      slotsInUse: Atomics.load(this.words, HEADER_HIGH_WATER),
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
      const control = Atomics.load(words, base + SLOT_CONTROL);
      const state = STATE_NAMES[controlState(control)];
      if (state === null) return null;
      const generation = controlGeneration(control);
      const walletIndex = Atomics.load(words, base + SLOT_WALLET_INDEX);
      const key = loadU64(words, base + SLOT_KEY_HI, base + SLOT_KEY_LO);
      const value = loadU64(words, base + SLOT_VALUE_HI, base + SLOT_VALUE_LO);
      const deadline = state === 'reserved' ? this.publishedDeadline(base, generation) : null;
      // Unchanged control word: nothing was rewritten while we read (writes need EMPTY).
      if (Atomics.load(words, base + SLOT_CONTROL) !== control) continue;
      return { slot, state, generation, walletIndex, key, value, deadline };
    }
  }

  private transition(reservation: ReservationRef, to: typeof FREE | typeof SPENT): boolean {
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
  private withdrawFree(base: number, expected: number, replacement: number): boolean {
    const words = this.words;
    Atomics.sub(words, HEADER_FREE_TOKENS, 1);
    if (Atomics.compareExchange(words, base + SLOT_CONTROL, expected, replacement) === expected) return true;
    Atomics.add(words, HEADER_FREE_TOKENS, 1);
    return false;
  }

  private baseOf(slot: number): number {
    if (slot >>> 0 !== slot || slot >= this.capacity) {
      throw new RangeError(`slot must be an integer from 0 to ${this.capacity - 1}, got ${slot}`);
    }
    return slotBase(slot);
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

  private publishedDeadline(base: number, generation: number): number | null {
    if (Atomics.load(this.words, base + SLOT_DEADLINE_GENERATION) !== generation) return null;
    return this.floats[(base + SLOT_DEADLINE) / WORDS_PER_FLOAT64]!;
  }

  /** One pass for counts, sums and deadlines; each slot read until its control word is stable. */
  private aggregate() {
    const words = this.words;
    const used = Atomics.load(words, HEADER_HIGH_WATER);
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
      const base = slotBase(slot);
      let control: number;
      let hi: number;
      let lo: number;
      let deadline: number | null;
      do {
        control = Atomics.load(words, base + SLOT_CONTROL);
        hi = Atomics.load(words, base + SLOT_VALUE_HI) >>> 0;
        lo = Atomics.load(words, base + SLOT_VALUE_LO) >>> 0;
        deadline = controlState(control) === RESERVED ? this.publishedDeadline(base, controlGeneration(control)) : null;
      } while (Atomics.load(words, base + SLOT_CONTROL) !== control);
      const state = controlState(control);
      if (state === SPENT) spent++;
      if (state !== FREE && state !== RESERVED) continue;
      totalHi += hi;
      totalLo += lo;
      if (state === RESERVED) {
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

function checkKeepFree(keepFree: number | undefined): number {
  if (keepFree === undefined) return 0;
  if (!Number.isSafeInteger(keepFree) || keepFree < 0) throw new RangeError(`keepFree must be a non-negative integer, got ${keepFree}`);
  return keepFree;
}

/** Rejects non-integers, negatives and values past the 30-bit counter in one comparison. */
function isGeneration(value: number): boolean {
  return (value & GENERATION_MASK) === value;
}

/** 0 ≤ value < 2^64. BigInt.asUintN(64, …) is inlined by V8, unlike BigInt comparisons. */
function isU64(value: bigint): boolean {
  return BigInt.asUintN(64, value) === value;
}

function checkValue(value: bigint): void {
  if (typeof value !== 'bigint' || !isU64(value)) {
    throw new RangeError(`value must be a bigint from 0 to 2^64 - 1 SPECK, got ${String(value)}`);
  }
}

/** A 64-bit quantity from its unsigned halves, through the scratch buffer (no builtin call). */
function joinHalves(hi: number, lo: number): bigint {
  scratch32[HIGH_HALF] = hi;
  scratch32[LOW_HALF] = lo;
  return scratch64[0]!;
}

function sumHalves(hi: number, lo: number): bigint {
  return BigInt(hi) * BigInt(HALF_RADIX) + BigInt(lo);
}

function storeU64(words: Int32Array, hiIndex: number, loIndex: number, value: bigint): void {
  scratch64[0] = value;
  Atomics.store(words, hiIndex, scratch32[HIGH_HALF]!);
  Atomics.store(words, loIndex, scratch32[LOW_HALF]!);
}

function loadU64(words: Int32Array, hiIndex: number, loIndex: number): bigint {
  return joinHalves(Atomics.load(words, hiIndex) >>> 0, Atomics.load(words, loIndex) >>> 0);
}
