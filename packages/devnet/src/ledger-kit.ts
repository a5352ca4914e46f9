// What the devnet's chain side builds on, per ledger era: the era's package (from the ledger
// boundary), its strictness presets, decoding of submitted bytes and the calls whose shape differs
// between the eras. One worker thread may host networks of both eras (and a network changes era at
// its switch height), so nothing here is thread-global: every chain-side object is given the kit of
// its era. Only worker-side modules use this (a ledger package costs ≈ 85 MB per thread that loads it).
import {
  DEVNET_PROTOCOL_VERSION,
  ERA_TABLE,
  eraName,
  eraOfBytes,
  ledger,
  signOffer,
  signatureOfEntry,
  type Era,
  type L,
  type Ledger,
  type ProvingProviderParts,
} from '@nightgate/ledger';
import { strictness } from '@nightgate/ledger/checks';
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';

export type { Era, L, Ledger };
export { release } from '@nightgate/ledger/release';

/** Any transaction variant the chain applies (finalized submissions, genesis claims and mints). */
export type AnyTransaction = L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>;

/** NIGHT and the shielded test token: the zero token type in both eras (measured, ledger 8 and 9). */
export const NIGHT_TOKEN = '0'.repeat(64);
export const SHIELDED_TOKEN = '0'.repeat(64);
export const STAR_PER_NIGHT = 1_000_000n;

const LIVE_CHECKS = { signatures: true, balancing: true, limits: true } as const;

/** What `/health` says a live block checks: the strictness below, and why proofs are not checked. */
export const LIVE_CHECKS_REPORT = { ...LIVE_CHECKS, proofs: 'not verified (dev proofs)' } as const;

/** One era's ledger, as every chain-side object of a network of that era takes it. */
export interface LedgerKit {
  readonly era: Era;
  readonly L: Ledger;
  /** What blocks, transactions and events of this era report. */
  readonly protocolVersion: number;
  /** Every live block: balancing, limits and signatures checked, proofs not. */
  fullChecks(): L.WellFormedStrictness;
  /** Genesis only: reward claims and the shielded mint create value from nothing. */
  genesisChecks(): L.WellFormedStrictness;
  /** A signature as `UnshieldedOffer.addSignatures` takes it. */
  signOffer<S extends L.Signaturish>(offer: L.UnshieldedOffer<S>, signatures: readonly L.Signature[]): L.UnshieldedOffer<S>;
  /** The signature inside an offer's signature entry. */
  signatureOfEntry(entry: unknown): L.Signature;
  /** What `Transaction.prove` takes in this era. */
  provingProvider(provider: ProvingProviderParts): L.ProvingProvider;
}

function makeKit(era: Era): LedgerKit {
  const L = ledger(era);
  // Made once per era and thread: `wellFormed` only reads a strictness.
  let full: L.WellFormedStrictness | undefined;
  let genesis: L.WellFormedStrictness | undefined;
  return {
    era,
    L,
    protocolVersion: DEVNET_PROTOCOL_VERSION[era],
    fullChecks: () => (full ??= strictness(era, LIVE_CHECKS)),
    genesisChecks: () => (genesis ??= strictness(era, { balancing: false, limits: false, signatures: false })),
    signOffer: (offer, signatures) => signOffer(era, offer, signatures),
    signatureOfEntry: (entry) => signatureOfEntry(era, entry),
    provingProvider: (provider) => ERA_TABLE[era].provingProvider(provider),
  };
}

const kits: Partial<Record<Era, LedgerKit>> = {};

/** The era's kit (its package is loaded on first use on this thread). */
export function kitFor(era: Era): LedgerKit {
  return (kits[era] ??= makeKit(era));
}

function ledgerSeconds(timeMs: number): bigint {
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

const TAG_PATTERN = /^midnight:transaction\[v\d+\]\((.*?)\):/;
/** The markers of a finalized transaction (signature, proof, binding) in each era's header tag. */
const FINALIZED_MARKERS = /^(signature\[v\d+\]),proof,pedersen-schnorr\[v\d+\]$/;

/**
 * Decodes a submitted transaction of `kit`'s era. A node accepts only finalized transactions
 * (signed, proven, bound) of the era it runs, so other variants and the other era's bytes are
 * named and refused rather than guessed at.
 */
export function decodeFinalized(kit: LedgerKit, bytes: Uint8Array, switchNote = ''): L.FinalizedTransaction {
  const era = eraOfBytes(bytes);
  if (era !== undefined && era !== kit.era) {
    throw new DevnetError(
      DevnetErrorCode.LEDGER_ERA_MISMATCH,
      400,
      `a ${eraName(era)} transaction cannot go into a ${eraName(kit.era)} block: this network runs ${eraName(kit.era)}${switchNote}`,
    );
  }
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 128)).toString('latin1');
  const match = TAG_PATTERN.exec(head);
  if (match && !FINALIZED_MARKERS.test(match[1] ?? '')) {
    throw new DevnetError(
      DevnetErrorCode.TX_NOT_FINALIZED,
      400,
      `only finalized transactions (signature, proof, binding) are accepted; got variant (${match[1]})`,
    );
  }
  try {
    return kit.L.Transaction.deserialize('signature', 'proof', 'binding', bytes);
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
