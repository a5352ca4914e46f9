/**
 * How the DUST allocator table's numbers go in and out of its 32-bit words: 64-bit quantities
 * (values in SPECK, UTXO keys) as two unsigned halves, and the range checks on what is stored.
 */
import * as layout from './allocator-layout.js';

// Local consts, not imported bindings: isGeneration is on the release path (see allocator.ts).
const { GENERATION_MASK, HALF_RADIX } = layout;

/**
 * Splitting a bigint into 32-bit halves (and back) through one 8-byte scratch buffer is a
 * typed-array store and two loads; Number(bigint) and BigInt(number) are builtin calls, about
 * three times slower, and the fee split and value join sit on the reserve hot path.
 * The scratch is per thread (module state), and nothing runs between its write and its reads.
 */
export const scratch64 = new BigUint64Array(1);
export const scratch32 = new Uint32Array(scratch64.buffer);
/** Which half of the scratch holds the low 32 bits, on this platform's byte order. */
export const LOW_HALF = new Uint32Array(new BigUint64Array([1n]).buffer)[0] === 1 ? 0 : 1;
export const HIGH_HALF = 1 - LOW_HALF;

/** Rejects non-integers, negatives and values past the 30-bit counter in one comparison. */
export function isGeneration(value: number): boolean {
  return (value & GENERATION_MASK) === value;
}

/** 0 ≤ value < 2^64. BigInt.asUintN(64, …) is inlined by V8, unlike BigInt comparisons. */
export function isU64(value: bigint): boolean {
  return BigInt.asUintN(64, value) === value;
}

export function checkValue(value: bigint): void {
  if (typeof value !== 'bigint' || !isU64(value)) {
    throw new RangeError(`value must be a bigint from 0 to 2^64 - 1 SPECK, got ${String(value)}`);
  }
}

/** A 64-bit quantity from its unsigned halves, through the scratch buffer (no builtin call). */
export function joinHalves(hi: number, lo: number): bigint {
  scratch32[HIGH_HALF] = hi;
  scratch32[LOW_HALF] = lo;
  return scratch64[0]!;
}

export function sumHalves(hi: number, lo: number): bigint {
  return BigInt(hi) * BigInt(HALF_RADIX) + BigInt(lo);
}

export function storeU64(words: Int32Array, hiIndex: number, loIndex: number, value: bigint): void {
  scratch64[0] = value;
  Atomics.store(words, hiIndex, scratch32[HIGH_HALF]!);
  Atomics.store(words, loIndex, scratch32[LOW_HALF]!);
}

export function loadU64(words: Int32Array, hiIndex: number, loIndex: number): bigint {
  return joinHalves(Atomics.load(words, hiIndex) >>> 0, Atomics.load(words, loIndex) >>> 0);
}
