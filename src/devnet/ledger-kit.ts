// The slice of ledger-v8 the devnet builds on: strictness presets, block contexts, the transaction
// type the chain handles, and decoding of submitted bytes. Only worker-side modules import this
// (ledger-v8 costs ≈ 85 MB per thread that loads it).
import * as L from '@midnight-ntwrk/ledger-v8';
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';
import { strictness } from '../ledger-checks.js';

export { L };

/** Any transaction variant the chain applies (finalized submissions, genesis claims and mints). */
export type AnyTransaction = L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>;

export const NIGHT_TOKEN = L.nativeToken().raw;
export const SHIELDED_TOKEN = L.shieldedToken().raw;
export const STAR_PER_NIGHT = 1_000_000n;

// Made once per thread: `wellFormed` only reads its strictness, and a new one per block would be
// one more WASM object to free.
let full: L.WellFormedStrictness | undefined;
let genesis: L.WellFormedStrictness | undefined;

const LIVE_CHECKS = { signatures: true, balancing: true, limits: true } as const;

/** What `/health` says a live block checks: the strictness below, and why proofs are not checked. */
export const LIVE_CHECKS_REPORT = { ...LIVE_CHECKS, proofs: 'not verified (dev proofs)' } as const;

/** Every live block: balancing, limits and signatures checked, proofs not. */
export const fullChecks = (): L.WellFormedStrictness => (full ??= strictness(LIVE_CHECKS));

/** Genesis only: reward claims and the shielded mint create value from nothing. */
export const genesisChecks = (): L.WellFormedStrictness => (genesis ??= strictness({ balancing: false, limits: false, signatures: false }));

export function ledgerSeconds(timeMs: number): bigint {
  return BigInt(Math.floor(timeMs / 1000));
}

/** The ledger works in whole seconds; block timestamps keep their milliseconds for the indexer. */
export function ledgerDate(timeMs: number): Date {
  return new Date(Math.floor(timeMs / 1000) * 1000);
}

export function blockContext(timeMs: number, parentHash: string, parentTimeMs: number | undefined): L.BlockContext {
  const now = ledgerSeconds(timeMs);
  return {
    secondsSinceEpoch: now,
    secondsSinceEpochErr: 1,
    parentBlockHash: parentHash,
    lastBlockTime: parentTimeMs === undefined ? now - 1n : ledgerSeconds(parentTimeMs),
  };
}

const FINALIZED_TAG = 'midnight:transaction[v9](signature[v1],proof,pedersen-schnorr[v1]):';
const TAG_PATTERN = /^midnight:transaction\[v\d+\]\((.*?)\):/;

/**
 * Decodes a submitted transaction. A node accepts only finalized transactions (signed, proven,
 * bound), so other variants are named and refused rather than guessed at.
 */
export function decodeFinalized(bytes: Uint8Array): L.FinalizedTransaction {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 128)).toString('latin1');
  const match = TAG_PATTERN.exec(head);
  if (match && !head.startsWith(FINALIZED_TAG)) {
    throw new DevnetError(
      DevnetErrorCode.TX_NOT_FINALIZED,
      400,
      `only finalized transactions (signature, proof, binding) are accepted; got variant (${match[1]})`,
    );
  }
  try {
    return L.Transaction.deserialize('signature', 'proof', 'binding', bytes);
  } catch (err) {
    throw new DevnetError(DevnetErrorCode.TX_MALFORMED, 400, reasonOf(err));
  }
}

export function zeroCost(): L.SyntheticCost {
  return { readTime: 0n, computeTime: 0n, blockUsage: 0n, bytesWritten: 0n, bytesChurned: 0n };
}

export function addCost(a: L.SyntheticCost, b: L.SyntheticCost): L.SyntheticCost {
  return {
    readTime: a.readTime + b.readTime,
    computeTime: a.computeTime + b.computeTime,
    blockUsage: a.blockUsage + b.blockUsage,
    bytesWritten: a.bytesWritten + b.bytesWritten,
    bytesChurned: a.bytesChurned + b.bytesChurned,
  };
}

// Freeing ledger objects at once (issue #8): shared with the DUST sync and the workers.
export { release } from '../infra/ledger/release.js';
