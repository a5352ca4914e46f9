/**
 * SCALE compact integers, the length and field-element encoding of Midnight's `serialize` crate
 * (observed in ledger-v8's own payloads: `createProvingPayload`, `parseCheckResult`). The low two
 * bits of the first byte select the mode:
 *   00 → one byte, value = b >> 2 (< 2^6)
 *   01 → two bytes LE, value >> 2 (< 2^14)
 *   10 → four bytes LE, value >> 2 (< 2^30)
 *   11 → (b >> 2) + 4 following bytes, little-endian (big-integer mode)
 * Used only to walk and validate payloads and to write the one response the ledger offers no
 * encoder for (`/check` results); everything else is built and parsed by the ledger itself.
 */

export class WireError extends Error {
  override name = 'WireError';
}

/** A bounds-checked cursor over a byte array. */
export class Reader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
  ) {
    this.pos = start;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  byte(what: string): number {
    if (this.pos >= this.bytes.length) throw new WireError(`truncated: expected ${what} at byte ${this.pos}`);
    return this.bytes[this.pos++]!;
  }

  /** Skip `n` bytes, returning where they started. */
  take(n: number, what: string): number {
    if (n > this.remaining) throw new WireError(`truncated: ${what} needs ${n} bytes at byte ${this.pos}, ${this.remaining} left`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** A compact integer as bigint; `maxBytes` bounds big-integer mode (32 for a field element). */
  compactBig(what: string, maxBytes = 32): bigint {
    const b0 = this.byte(what);
    switch (b0 & 3) {
      case 0:
        return BigInt(b0 >> 2);
      case 1:
        return BigInt((b0 | (this.byte(what) << 8)) >> 2);
      case 2: {
        const at = this.take(3, what);
        const v = (b0 | (this.bytes[at]! << 8) | (this.bytes[at + 1]! << 16) | (this.bytes[at + 2]! << 24)) >>> 2;
        return BigInt(v);
      }
      default: {
        const n = (b0 >> 2) + 4;
        if (n > maxBytes) throw new WireError(`${what} at byte ${this.pos - 1} is ${n} bytes long, more than ${maxBytes}`);
        const at = this.take(n, what);
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.bytes[at + i]!);
        return v;
      }
    }
  }

  /** A compact length that must fit in the rest of the buffer. */
  length(what: string): number {
    const v = this.compactBig(`length of ${what}`, 8);
    if (v > BigInt(this.remaining)) throw new WireError(`truncated: ${what} claims ${v} bytes at byte ${this.pos}, ${this.remaining} left`);
    return Number(v);
  }

  /** A compact count of elements (each at least one byte), bounded by what is left. */
  count(what: string): number {
    const v = this.compactBig(`length of ${what}`, 8);
    if (v > BigInt(this.remaining)) throw new WireError(`truncated: ${what} claims ${v} elements at byte ${this.pos}, ${this.remaining} bytes left`);
    return Number(v);
  }
}

/** Encode a non-negative integer in SCALE compact form. */
export function encodeCompact(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError('compact integers are unsigned');
  if (value < 1n << 6n) return Uint8Array.of(Number(value << 2n));
  if (value < 1n << 14n) {
    const v = Number(value << 2n) | 1;
    return Uint8Array.of(v & 0xff, v >> 8);
  }
  if (value < 1n << 30n) {
    const v = (Number(value) * 4 + 2) >>> 0;
    return Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24);
  }
  const bytes: number[] = [];
  for (let v = value; v > 0n; v >>= 8n) bytes.push(Number(v & 0xffn));
  return Uint8Array.of(((bytes.length - 4) << 2) | 3, ...bytes);
}
