/**
 * Bech32m (BIP-350) over BIP-173's character set, for Midnight unshielded addresses
 * (`mn_addr…`). BIP-173's 90-character limit is not applied: Midnight's longer address kinds
 * exceed it; a generous cap still bounds the work on hostile input.
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
/** BIP-350: the constant that distinguishes Bech32m from Bech32 (which uses 1). */
const BECH32M_CONST = 0x2bc830a3;
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3] as const;
const MAX_LENGTH = 1023;
const CHECKSUM_LENGTH = 6;

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATORS[i]!;
  }
  return chk >>> 0;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >>> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

/** Regroup bits (BIP-173 `convertbits`); `undefined` when the padding is not canonical. */
function convertBits(data: ArrayLike<number>, from: number, to: number, pad: boolean): number[] | undefined {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const maxv = (1 << to) - 1;
  for (let i = 0; i < data.length; i++) {
    acc = (acc << from) | data[i]!;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >>> bits) & maxv);
    }
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & maxv);
  } else if (bits >= from || ((acc << (to - bits)) & maxv) !== 0) {
    return undefined;
  }
  return out;
}

export function bech32mEncode(hrp: string, bytes: Uint8Array): string {
  const data = convertBits(bytes, 8, 5, true)!;
  const mod = polymod([...hrpExpand(hrp), ...data, 0, 0, 0, 0, 0, 0]) ^ BECH32M_CONST;
  let out = `${hrp}1`;
  for (const d of data) out += CHARSET[d];
  for (let i = 0; i < CHECKSUM_LENGTH; i++) out += CHARSET[(mod >>> (5 * (5 - i))) & 31];
  return out;
}

/** Decode to 5-bit words; `undefined` for anything that is not valid Bech32m (BIP-350 rules). */
export function bech32mDecodeWords(text: string): { hrp: string; words: number[] } | undefined {
  if (text.length > MAX_LENGTH) return undefined;
  // BIP-173: mixed case is invalid; the checksum is computed over the lower-case form.
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return undefined;
  const s = text.toLowerCase();
  const sep = s.lastIndexOf('1');
  if (sep < 1 || sep + CHECKSUM_LENGTH + 1 > s.length) return undefined;
  const hrp = s.slice(0, sep);
  for (let i = 0; i < hrp.length; i++) {
    const c = hrp.charCodeAt(i);
    if (c < 33 || c > 126) return undefined;
  }
  const data: number[] = [];
  for (let i = sep + 1; i < s.length; i++) {
    const v = CHARSET.indexOf(s[i]!);
    if (v < 0) return undefined;
    data.push(v);
  }
  if (polymod([...hrpExpand(hrp), ...data]) !== BECH32M_CONST) return undefined;
  return { hrp, words: data.slice(0, -CHECKSUM_LENGTH) };
}

/** Decode to bytes; `undefined` when not valid Bech32m or the padding is not canonical. */
export function bech32mDecode(text: string): { hrp: string; bytes: Uint8Array } | undefined {
  const decoded = bech32mDecodeWords(text);
  if (!decoded) return undefined;
  const bytes = convertBits(decoded.words, 5, 8, false);
  return bytes ? { hrp: decoded.hrp, bytes: Uint8Array.from(bytes) } : undefined;
}
