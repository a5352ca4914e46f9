/**
 * fast-check arbitraries for hostile bodies: random bytes, a known tag followed by random bytes,
 * and mutations of a real body (bit flips, byte overwrites, truncation, insertion, a cut-and-
 * repeat) — what a fuzzer needs to get past the first byte check into the real parsers.
 */
import fc from 'fast-check';

/** One mutation; only the fields its kind uses matter. */
export interface Mutation {
  kind: 'flip' | 'set' | 'truncate' | 'insert' | 'repeat';
  /** Where, as a fraction of the body's length. */
  at: number;
  bit: number;
  value: number;
  bytes: Uint8Array;
  length: number;
}

/**
 * Positions are fractions of the length, so one mutation applies to any body; unbiased, or
 * fast-check's preference for small values would put nearly every mutation in the tag.
 */
const at = fc.noBias(fc.integer({ min: 0, max: 0xffff })).map((i) => i / 0x10000);

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<Mutation['kind']>('flip', 'set', 'truncate', 'insert', 'repeat'),
  at,
  bit: fc.integer({ min: 0, max: 7 }),
  value: fc.constantFrom(0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x3f, 0x40),
  bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  length: fc.integer({ min: 1, max: 64 }),
});

export function applyMutation(body: Uint8Array, m: Mutation): Uint8Array {
  const out = Buffer.from(body);
  const i = Math.floor(m.at * Math.max(1, out.length));
  switch (m.kind) {
    case 'flip':
      if (out.length > 0) out[i] = out[i]! ^ (1 << m.bit);
      return out;
    case 'set':
      if (out.length > 0) out[i] = m.value;
      return out;
    case 'truncate':
      return out.subarray(0, i);
    case 'insert':
      return Buffer.concat([out.subarray(0, i), m.bytes, out.subarray(i)]);
    case 'repeat':
      return Buffer.concat([out.subarray(0, i + m.length), out.subarray(i)]);
  }
}

/** A body that is `base` with 1–3 mutations applied. */
export function mutated(base: Uint8Array): fc.Arbitrary<Uint8Array> {
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => ms.reduce((b, m) => applyMutation(b, m), base));
}

/** Random bytes, or a tag followed by random bytes. */
export function junk(tags: readonly string[]): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 512 }),
    fc.tuple(fc.constantFrom(...tags), fc.uint8Array({ maxLength: 512 })).map(([tag, rest]) => new Uint8Array(Buffer.concat([Buffer.from(tag), rest]))),
  );
}
