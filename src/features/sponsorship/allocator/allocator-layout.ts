/**
 * Shared-memory layout of the DUST UTXO allocator table (docs/DESIGN.md, "The mechanisms").
 *
 * The table is one SharedArrayBuffer viewed as a single Int32Array: a header followed by
 * fixed-size slots. Every index into that array is built from the names below, so the main
 * thread and the worker threads agree on the layout by importing this module and nothing else.
 *
 * 64-bit integers (values in SPECK, UTXO keys) are stored as two 32-bit halves (`*_HI`,
 * `*_LO`) rather than in a BigInt64Array: reading a BigInt64Array element allocates a BigInt,
 * which would put an allocation per scanned slot on the reserve hot path, while two Int32 reads
 * compare as plain numbers.
 */

/** Identifies a buffer laid out by this module ("NGDA": nightgate DUST allocator). */
export const TABLE_MAGIC = 0x4e474441;
/** Bumped whenever any offset below changes, so a stale worker bundle fails fast in `fromShared`. */
export const LAYOUT_VERSION = 3;

export const BYTES_PER_WORD = Int32Array.BYTES_PER_ELEMENT;
/** Cache-line size assumed for padding (x86-64 and most ARM64 cores). */
const CACHE_LINE_WORDS = 64 / BYTES_PER_WORD;

// Header words, as indices from the start of the buffer.
export const HEADER_MAGIC = 0;
export const HEADER_VERSION = 1;
export const HEADER_CAPACITY = 2;
/** Number of slots ever handed out by `add`; reservers scan `[0, HIGH_WATER)` only. */
export const HEADER_HIGH_WATER = 3;
/**
 * The reserve's floor: a FREE UTXO counts towards the pool keeper's reserve (carries COUNTED and
 * a free token) only if its value is at least this many units of 2^FLOOR_SHIFT value units. Kept
 * in one word so it is read whole; with the sponsorship's table unit of 10^6 SPECK a floor unit
 * is 6.6·10^10 SPECK, under a thousandth of a fee. 0: every FREE UTXO counts.
 */
export const HEADER_FLOOR = 4;
export const FLOOR_SHIFT = 16;
/**
 * Free tokens: the COUNTED FREE slots that no reserver or owner operation has claimed yet. A
 * reservation of a COUNTED slot takes one (compareExchange, refused at or below its `keepFree`)
 * before it claims the slot; every transition into COUNTED FREE adds one after publishing the
 * slot; every move of a COUNTED slot out of FREE (or out of COUNTED) takes one first. So the word
 * never exceeds the COUNTED FREE slots (see `reserve`), and equals them whenever no operation is
 * half done. May dip below zero while the owner withdraws. On its own cache line: it changes on
 * every reserve and release, while HIGH_WATER, read by every scan, almost never does.
 */
export const HEADER_FREE_TOKENS = CACHE_LINE_WORDS;
/** Two cache lines: the read-mostly words, then the free tokens; no slot shares a line with either. */
export const HEADER_WORDS = 2 * CACHE_LINE_WORDS;

// Slot words, as offsets from the start of a slot (`slotBase(slot)`).
/** State and generation packed into one word, so one compareExchange moves both. */
export const SLOT_CONTROL = 0;
/** UTXO value in SPECK, high and low unsigned 32-bit halves. Written only while the slot is EMPTY. */
export const SLOT_VALUE_HI = 1;
export const SLOT_VALUE_LO = 2;
/** Generation whose deadline is in SLOT_DEADLINE; `NO_GENERATION` until the first reservation. */
export const SLOT_DEADLINE_GENERATION = 3;
/**
 * Reservation deadline, ms since the epoch, as a float64 over two words (a safe integer, exact).
 * Written by the reserver that owns the slot, read through a Float64Array view of the same
 * buffer: its index there is the word index / WORDS_PER_FLOAT64. Even word offsets in a slot
 * and an even HEADER_WORDS and SLOT_WORDS keep it 8-byte aligned.
 */
export const SLOT_DEADLINE = 4; // and word 5
export const WORDS_PER_FLOAT64 = Float64Array.BYTES_PER_ELEMENT / Int32Array.BYTES_PER_ELEMENT;
/** Caller's identity of the UTXO: a wallet index and a 64-bit key (halves) within that wallet. */
export const SLOT_WALLET_INDEX = 6;
export const SLOT_KEY_HI = 7;
export const SLOT_KEY_LO = 8;
/**
 * Set by `markSpent` when it takes a slot from a reserver that has not yet published its
 * deadline: `recycle` waits until DEADLINE_GENERATION reaches this generation, so that the
 * reserver's late deadline writes can never land on the slot's next UTXO.
 */
export const SLOT_AWAITED_GENERATION = 9;
/**
 * One slot per cache line: under contention a compareExchange on one slot does not
 * invalidate the line its neighbours are being scanned or reserved on.
 */
export const SLOT_WORDS = CACHE_LINE_WORDS;

// The control word: generation in the high bits, then the COUNTED flag, then the state.
export const STATE_MASK = 3;
/**
 * On a FREE slot only: its value pays the reserve's floor (HEADER_FLOOR_HI), so the slot holds a
 * free token. In the control word, so the flag moves with the state in one compareExchange.
 */
export const COUNTED = 4;
/** Bits below the generation: the state and COUNTED. */
export const GENERATION_SHIFT = 3;
const GENERATION_BITS = 32 - GENERATION_SHIFT;
const GENERATION_LIMIT = 2 ** GENERATION_BITS;
export const GENERATION_MASK = GENERATION_LIMIT - 1;

/** The UTXO can be reserved. */
export const FREE = 0;
/** One request holds the UTXO to pay a fee; nobody else may use it until release or reclaim. */
export const RESERVED = 1;
/** Chain sync (or a confirmed transaction) saw the UTXO spent: never FREE again, only recycled to EMPTY. */
export const SPENT = 2;
/** The slot holds no UTXO (never used, recycled, or being rewritten by the owner thread). */
export const EMPTY = 3;
export type SlotState = typeof FREE | typeof RESERVED | typeof SPENT | typeof EMPTY;

/** Marks "no generation" in the generation-valued words (generations are never negative). */
export const NO_GENERATION = -1;

/** Radix of the 32-bit halves of 64-bit quantities. */
export const HALF_RADIX = 2 ** 32;

/** Keeps the Int32Array length well inside what every engine allocates. */
export const MAX_CAPACITY = 2 ** 20;

export function tableWords(capacity: number): number {
  return HEADER_WORDS + capacity * SLOT_WORDS;
}

export function slotBase(slot: number): number {
  return HEADER_WORDS + slot * SLOT_WORDS;
}

export function packControl(generation: number, state: SlotState): number {
  return (generation << GENERATION_SHIFT) | state;
}

/** A FREE control word, COUNTED when `counted`. */
export function packFree(generation: number, counted: boolean): number {
  return (generation << GENERATION_SHIFT) | FREE | (counted ? COUNTED : 0);
}

/**
 * Whether a UTXO of value `valueHi`·2^32 + `valueLo` pays the floor word `floor` (all unsigned
 * halves). Exact in doubles: below 2^(32 + FLOOR_SHIFT) both sides are under 2^53.
 */
export function paysFloor(valueHi: number, valueLo: number, floor: number): boolean {
  const hi = valueHi >>> 0;
  if (hi >= 1 << FLOOR_SHIFT) return true;
  return hi * HALF_RADIX + (valueLo >>> 0) >= (floor >>> 0) * (1 << FLOOR_SHIFT);
}

export function controlState(control: number): SlotState {
  return (control & STATE_MASK) as SlotState;
}

export function controlGeneration(control: number): number {
  return control >>> GENERATION_SHIFT;
}

/** Generations wrap: a stale holder is only confused after 2^29 transitions of its slot. */
export function nextGeneration(generation: number): number {
  return (generation + 1) & GENERATION_MASK;
}
