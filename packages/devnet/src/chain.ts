// The devnet's chain: a real LedgerState of the network's ledger era advanced one block at a time. Every candidate is
// checked with `wellFormed` against the state it is applied to (so two transactions in one block
// cannot spend the same input), packed while the block stays within the ledger's limits, applied,
// and the block is closed with `postBlockUpdate` — a valid ledger history, proofs aside.
//
// `wellFormed` runs on the transaction as submitted. The ledger skips signature verification on a
// proof-erased transaction (measured on ledger 8, notes/LEDGER.md), so erasing proofs first
// would let a transfer with a forged signature land. The mock-shaped dev proofs pass because the
// strictness turns proof verification off (ledger-kit.ts) — except Zswap proofs, which the ledger
// verifies regardless: a transaction with a Zswap offer is checked proof-erased and its signatures
// separately (signatures.ts). Genesis transactions, never proven (an unproven mint,
// signature-erased reward claims), are checked proof-erased.
import { addCost, blockContext, ledgerDate, release, zeroCost, type AnyTransaction, type L, type LedgerKit } from './ledger-kit.js';
import { reasonOf } from './errors.js';
import { sha256Hex } from './keys.js';
import { hasZswapOffer, verifyIntentSignatures } from './signatures.js';

type CandidateOrigin = 'genesis' | 'devnet' | 'faucet' | 'submitted';

export interface Candidate {
  tx: AnyTransaction;
  raw: Uint8Array;
  hash: string;
  origin: CandidateOrigin;
}

export interface AppliedTx {
  candidate: Candidate;
  result: L.TransactionResult;
  before: L.LedgerState;
  after: L.LedgerState;
}

export interface ProducedBlock {
  height: number;
  hash: string;
  parentHash: string | null;
  timestampMs: number;
  applied: AppliedTx[];
  /** Valid, but the block was full: try again in the next block. */
  deferred: Candidate[];
  rejected: Array<{ candidate: Candidate; reason: string }>;
  /** Ledger objects nothing needs once the block is indexed: the states it went through, the results. */
  retired: unknown[];
}

export interface ChainHead {
  state: L.LedgerState;
  height: number;
  hash: string;
  timestampMs: number;
}

const NO_PARENT = '0'.repeat(64);

export function candidateOf(tx: AnyTransaction, origin: CandidateOrigin): Candidate {
  const raw = tx.serialize();
  let hash: string;
  try {
    hash = tx.transactionHash();
  } catch {
    // Genesis reward claims and the shielded mint are never proven and bound, so the ledger gives
    // them no transaction hash; the devnet names them by the SHA-256 of their bytes.
    hash = sha256Hex(raw);
  }
  return { tx, raw, hash, origin };
}

function fullness(cost: L.NormalizedCost): number {
  return Math.max(cost.readTime, cost.computeTime, cost.blockUsage, cost.bytesWritten, cost.bytesChurned);
}

export class Chain {
  readonly kit: LedgerKit;
  state: L.LedgerState;
  height: number;
  hash: string;
  timestampMs: number | undefined;

  /** Without a state, a blank one of the kit's era; a head without state continues another era's chain from it. */
  constructor(kit: LedgerKit, networkId: string, head?: Partial<ChainHead>) {
    this.kit = kit;
    this.state = head?.state ?? kit.L.LedgerState.blank(networkId);
    this.height = head?.height ?? -1;
    this.hash = head?.hash ?? NO_PARENT;
    this.timestampMs = head?.timestampMs;
  }

  /**
   * Throws the ledger's reason when `tx` could not go into a block at `timeMs` on the current state:
   * well-formed, and applied without failure (a spent DUST nullifier shows only when applied).
   */
  validate(tx: AnyTransaction, timeMs: number, strictness: L.WellFormedStrictness): void {
    const verified = Chain.#wellFormed(this.kit, tx, 'submitted', this.state, strictness, ledgerDate(timeMs));
    const context = new this.kit.L.TransactionContext(this.state, blockContext(timeMs, this.hash, this.timestampMs));
    const [next, result] = this.state.apply(verified, context);
    const failure = result.type === 'failure' ? (result.error ?? 'transaction failed') : undefined;
    release(verified, context, next, result);
    if (failure !== undefined) throw new Error(failure);
  }

  /** `wellFormed` with signatures checked whatever the transaction carries (see the top). */
  static #wellFormed(
    kit: LedgerKit,
    tx: AnyTransaction,
    origin: CandidateOrigin,
    state: L.LedgerState,
    strictness: L.WellFormedStrictness,
    time: Date,
  ): L.VerifiedTransaction {
    if (origin !== 'genesis' && !hasZswapOffer(tx)) return tx.wellFormed(state, strictness, time);
    if (origin !== 'genesis' && strictness.verifySignatures) verifyIntentSignatures(kit, tx);
    const erased = tx.eraseProofs();
    try {
      return erased.wellFormed(state, strictness, time);
    } finally {
      release(erased);
    }
  }

  /** The fullness `cost` would take in a block, per the state's parameters (throws when over a limit). */
  static #normalized(state: L.LedgerState, cost: L.SyntheticCost): L.NormalizedCost {
    const params = state.parameters;
    try {
      return params.normalizeFullness(cost);
    } finally {
      release(params);
    }
  }

  produce(candidates: Candidate[], timestampMs: number, strictness: L.WellFormedStrictness): ProducedBlock {
    const time = ledgerDate(timestampMs);
    const context = blockContext(timestampMs, this.hash, this.timestampMs);
    const applied: AppliedTx[] = [];
    const deferred: Candidate[] = [];
    const rejected: ProducedBlock['rejected'] = [];
    const previous = this.state;
    let state = previous;
    let cost = zeroCost();
    // Faucet payouts pay requests in arrival order: once one is not paid in full in this block, the
    // ones after it wait too, even if a smaller one would still fit (faucet.ts).
    let faucetHeld = false;
    const hold = (candidate: Candidate): void => {
      if (candidate.origin === 'faucet') faucetHeld = true;
    };
    for (const candidate of candidates) {
      if (candidate.origin === 'faucet' && faucetHeld) {
        deferred.push(candidate);
        continue;
      }
      let verified: L.VerifiedTransaction;
      try {
        verified = Chain.#wellFormed(this.kit, candidate.tx, candidate.origin, state, strictness, time);
      } catch (err) {
        rejected.push({ candidate, reason: reasonOf(err) });
        hold(candidate);
        continue;
      }
      const params = state.parameters;
      const total = addCost(cost, candidate.tx.cost(params));
      release(params);
      try {
        Chain.#normalized(state, total);
      } catch (err) {
        release(verified);
        if (applied.length === 0) rejected.push({ candidate, reason: reasonOf(err) });
        else deferred.push(candidate);
        hold(candidate);
        continue;
      }
      const txContext = new this.kit.L.TransactionContext(state, context);
      const [next, result] = state.apply(verified, txContext);
      release(verified, txContext);
      if (result.type === 'failure') {
        rejected.push({ candidate, reason: result.error ?? 'transaction failed' });
        release(next, result);
        hold(candidate);
        continue;
      }
      if (result.type !== 'success') hold(candidate);
      applied.push({ candidate, result, before: state, after: next });
      state = next;
      cost = total;
    }
    const normalized = Chain.#normalized(state, cost);
    this.state = state.postBlockUpdate(time, normalized, fullness(normalized));
    const parentHash = this.height < 0 ? null : this.hash;
    this.height += 1;
    this.hash = sha256Hex(this.hash, String(this.height), String(timestampMs), ...applied.map((a) => a.candidate.hash));
    this.timestampMs = timestampMs;
    // Every state the block went through ends in `after` of one transaction, or is `previous`.
    const retired = [previous, ...applied.flatMap((a) => [a.after, a.result])];
    return { height: this.height, hash: this.hash, parentHash, timestampMs, applied, deferred, rejected, retired };
  }

  head(): ChainHead {
    return { state: this.state, height: this.height, hash: this.hash, timestampMs: this.timestampMs ?? 0 };
  }
}
