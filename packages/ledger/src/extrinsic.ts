/**
 * The extrinsic by which a Midnight node takes a transaction: a bare (unsigned) extrinsic calling
 * `Midnight::send_mn_transaction(tx)`, SCALE-encoded, the parameter of JSON-RPC
 * `author_submitExtrinsic`:
 *
 *   compact(length of the rest) ‖ format byte ‖ pallet index ‖ call index ‖ compact(len(tx)) ‖ tx
 *
 * The format byte of a bare extrinsic is its version (4, or 5 on the newer format); the transaction
 * bytes (`midnight:transaction[…]`, as `Transaction.serialize` writes them) go in unchanged.
 */
import { compactDecode, compactEncode } from './scale.js';

export interface ExtrinsicFraming {
  /** Index of the Midnight pallet in the runtime (5 on today's networks). */
  pallet: number;
  /** Index of `send_mn_transaction` in that pallet (0). */
  call: number;
  /** Format version of the bare extrinsic: 4 or 5. */
  version: 4 | 5;
}

export const MIDNIGHT_EXTRINSIC: ExtrinsicFraming = Object.freeze({ pallet: 5, call: 0, version: 4 });

export function encodeSubmitExtrinsic(tx: Uint8Array, framing: ExtrinsicFraming = MIDNIGHT_EXTRINSIC): Uint8Array {
  const txLength = compactEncode(tx.length);
  const body = new Uint8Array(3 + txLength.length + tx.length);
  body[0] = framing.version;
  body[1] = framing.pallet;
  body[2] = framing.call;
  body.set(txLength, 3);
  body.set(tx, 3 + txLength.length);
  const prefix = compactEncode(body.length);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

export class ExtrinsicError extends Error {
  override name = 'ExtrinsicError';
}

/** The transaction a submitted extrinsic carries, and its framing; throws ExtrinsicError on anything else. */
export function decodeSubmitExtrinsic(bytes: Uint8Array): ExtrinsicFraming & { tx: Uint8Array } {
  let outer: { value: bigint; length: number };
  try {
    outer = compactDecode(bytes, 0);
  } catch (err) {
    throw new ExtrinsicError(`not a SCALE-encoded extrinsic: ${(err as Error).message}`);
  }
  if (outer.value !== BigInt(bytes.length - outer.length))
    throw new ExtrinsicError(`the extrinsic says it has ${outer.value} bytes, ${bytes.length - outer.length} follow its length`);
  let at = outer.length;
  const version = bytes[at];
  if (version !== 4 && version !== 5)
    throw new ExtrinsicError(
      `not a bare extrinsic of format 4 or 5 (format byte 0x${(version ?? 0).toString(16).padStart(2, '0')}` +
        `; a signed or general extrinsic has the top bits set)`,
    );
  const pallet = bytes[at + 1];
  const call = bytes[at + 2];
  if (pallet === undefined || call === undefined) throw new ExtrinsicError('the extrinsic ends before its call');
  at += 3;
  let inner: { value: bigint; length: number };
  try {
    inner = compactDecode(bytes, at);
  } catch (err) {
    throw new ExtrinsicError(`the call's argument has no length: ${(err as Error).message}`);
  }
  at += inner.length;
  if (inner.value !== BigInt(bytes.length - at)) throw new ExtrinsicError(`the transaction says it has ${inner.value} bytes, ${bytes.length - at} follow`);
  return { version, pallet, call, tx: bytes.subarray(at) };
}
