/**
 * Query-parameter parsing for the statistics routes. Every rejection is a 400 INVALID_PARAMETER
 * whose message names the parameter, before anything is sent upstream.
 */
import { GatewayError } from '../../core/errors.js';
import { bech32mDecode, bech32mEncode } from '../../infra/ledger/index.js';

/** GraphQL `Int` is a signed 32-bit integer: larger heights cannot even be asked for. */
const MAX_HEIGHT = 2_147_483_647;
export const MAX_LIMIT = 100;
const HEX64 = /^[0-9a-f]{64}$/;
const HEX = /^(?:[0-9a-f]{2})+$/;
/** Contract addresses and transaction identifiers are serialized values: 32 bytes or a little more. */
const MAX_SERIALIZED_HEX = 256;
const ADDRESS_BYTES = 32;
/** Integers as written in a query: decimal digits with no sign, no leading zero and no space around. */
const CANONICAL_INT = /^(?:0|[1-9][0-9]*)$/;

function invalid(message: string): GatewayError {
  return new GatewayError('INVALID_PARAMETER', message);
}

function required(value: string | null, name: string): string {
  if (value === null || value.trim() === '') throw invalid(`${name} is required`);
  return value.trim();
}

function stripHexPrefix(v: string): string {
  return v.startsWith('0x') || v.startsWith('0X') ? v.slice(2).toLowerCase() : v.toLowerCase();
}

/** A height is written canonically: `01`, `+1`, ` 1` or `1.0` are refused, not read as 1. */
export function parseHeight(value: string | null, name = 'height'): number {
  const v = required(value, name);
  if (v !== value || !CANONICAL_INT.test(v)) throw invalid(`${name} must be a non-negative integer: decimal digits, no sign, leading zero or space`);
  const n = Number(v);
  if (n > MAX_HEIGHT) throw invalid(`${name} must be at most ${MAX_HEIGHT}`);
  return n;
}

export function parseLimit(value: string | null, fallback: number): number {
  if (value === null) return fallback;
  const n = value.length <= 3 && CANONICAL_INT.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_LIMIT)) throw invalid(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  return n;
}

/** A block or transaction hash: 32 bytes as 64 hex characters (an `0x` prefix is tolerated). */
export function parseHash(value: string | null, name: string): string {
  const v = stripHexPrefix(required(value, name));
  if (!HEX64.test(v)) throw invalid(`${name} must be 64 hexadecimal characters`);
  return v;
}

/** A serialized contract address or transaction identifier: even-length hex, 32 to 128 bytes. */
export function parseSerializedHex(value: string | null, name: string): string {
  const v = stripHexPrefix(required(value, name));
  if (v.length < 64 || v.length > MAX_SERIALIZED_HEX || !HEX.test(v)) throw invalid(`${name} must be hexadecimal, 64 to ${MAX_SERIALIZED_HEX} characters`);
  return v;
}

/** Unshielded addresses are Bech32m `mn_addr` + `_<network id>` (none on mainnet). */
export function addressHrp(networkId: string): string {
  return networkId === 'mainnet' ? 'mn_addr' : `mn_addr_${networkId}`;
}

export interface UnshieldedAddress {
  /** The 32-byte address, lower-case hex. */
  hex: string;
  /** Its Bech32m form for this network, as the indexer expects it. */
  bech32: string;
}

export function hexToAddress(hex: string, networkId: string): UnshieldedAddress {
  return { hex, bech32: bech32mEncode(addressHrp(networkId), Buffer.from(hex, 'hex')) };
}

/** Parse `mn_addr…` text; `undefined` if it is not Bech32m with an `mn_addr` prefix. */
export function decodeAddress(text: string, networkId: string, name: string): UnshieldedAddress | undefined {
  const decoded = bech32mDecode(text);
  if (!decoded || (decoded.hrp !== 'mn_addr' && !decoded.hrp.startsWith('mn_addr_'))) return undefined;
  const expected = addressHrp(networkId);
  // The indexer rejects addresses of another network; say so precisely instead of a 500.
  if (decoded.hrp !== expected) throw invalid(`${name} is an address for ${decoded.hrp}, this network uses ${expected}`);
  if (decoded.bytes.length !== ADDRESS_BYTES) throw invalid(`${name} must encode ${ADDRESS_BYTES} bytes`);
  return { hex: Buffer.from(decoded.bytes).toString('hex'), bech32: text.toLowerCase() };
}

/** A public identifier: a 64-hex unshielded address or its Bech32m `mn_addr…` form. */
export function parseIdentifier(value: string | null, networkId: string, name = 'identifier'): UnshieldedAddress {
  const v = required(value, name);
  const hex = stripHexPrefix(v);
  if (HEX64.test(hex)) return hexToAddress(hex, networkId);
  const address = decodeAddress(v, networkId, name);
  if (!address) throw invalid(`${name} must be a 64-hex address or a Bech32m ${addressHrp(networkId)}… address`);
  return address;
}

/** What a search query looks like, before anything is asked upstream. */
export type SearchQuery = { kind: 'height'; height: number } | { kind: 'hex'; hex: string } | { kind: 'address'; address: UnshieldedAddress };

export function parseSearch(value: string | null, networkId: string): SearchQuery {
  const v = required(value, 'q');
  // All-digit text is a height unless it is long enough to be hex (a hash may be all digits).
  if (/^[0-9]+$/.test(v) && v.length < 64) return { kind: 'height', height: parseHeight(v, 'q') };
  const hex = stripHexPrefix(v);
  if (hex.length >= 64 && hex.length <= MAX_SERIALIZED_HEX && HEX.test(hex)) return { kind: 'hex', hex };
  const address = decodeAddress(v, networkId, 'q');
  if (address) return { kind: 'address', address };
  throw invalid(`q must be a block height, a hex hash, identifier or contract address, or a Bech32m ${addressHrp(networkId)}… address`);
}
