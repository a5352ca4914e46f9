/**
 * SCALE's compact integer encoding (the Substrate codec), as Midnight uses it for a DUST address's
 * public key and for the length prefixes of an extrinsic: one byte below 2^6, two below 2^14, four
 * below 2^30, else a length byte and the value's little-endian bytes.
 */
export function compactEncode(value: bigint | number): Uint8Array {
  const v = BigInt(value);
  if (v < 0n) throw new RangeError('SCALE compact encodes unsigned integers');
  if (v < 1n << 6n) return Uint8Array.of(Number(v) << 2);
  if (v < 1n << 14n) {
    const n = (Number(v) << 2) | 0b01;
    return Uint8Array.of(n & 0xff, n >>> 8);
  }
  if (v < 1n << 30n) {
    const n = ((Number(v) << 2) | 0b10) >>> 0;
    return Uint8Array.of(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
  }
  const bytes: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) bytes.push(Number(x & 0xffn));
  if (bytes.length > 67) throw new RangeError('SCALE compact encodes at most 536 bits');
  return Uint8Array.of(((bytes.length - 4) << 2) | 0b11, ...bytes);
}

/** Reads one compact integer at `offset`: its value and how many bytes it took. */
export function compactDecode(bytes: Uint8Array, offset = 0): { value: bigint; length: number } {
  const first = bytes[offset];
  if (first === undefined) throw new RangeError('SCALE compact: no bytes');
  const need = (n: number) => {
    if (offset + n > bytes.length) throw new RangeError('SCALE compact: truncated');
  };
  switch (first & 0b11) {
    case 0b00:
      return { value: BigInt(first >>> 2), length: 1 };
    case 0b01:
      need(2);
      return { value: BigInt((first | (bytes[offset + 1]! << 8)) >>> 2), length: 2 };
    case 0b10:
      need(4);
      return { value: BigInt(((first | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 24)) >>> 0) >>> 2), length: 4 };
    default: {
      const n = (first >>> 2) + 4;
      need(1 + n);
      let value = 0n;
      for (let i = n; i >= 1; i--) value = (value << 8n) | BigInt(bytes[offset + i]!);
      return { value, length: 1 + n };
    }
  }
}
