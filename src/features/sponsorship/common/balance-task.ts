/** The `admission` and `balance` worker tasks' arguments and results (both threads import this; no ledger here). */
import type { ProverBackendName } from '../../../core/config/index.js';
import type { Era } from '../../../infra/ledger/index.js';
import type { TxEffects } from './effects.js';

/** One unshielded input of a user's transaction, as the worker reads it (all plain data). */
export interface UnshieldedInput {
  /** The address of the key that signs the input (its owner), 64 hex. */
  owner: string;
  intentHash: string;
  outputNo: number;
  /** Token type, hex. */
  type: string;
  /** Value, decimal string. */
  value: string;
}

/** How a balance task decides its fee intent's life as it reserves (SponsorArgs.queue). */
export interface QueueArgs {
  network: string;
  /** A sponsored transaction's share of a block, at the main thread's running estimate. */
  share: number;
  /** Refuse past what the intent outlasts (not the server's own splits). */
  refuse: boolean;
  /** `dust.feeTtlMs`: a fixed life; 0, by the queue. */
  fixedTtlMs: number;
}

export type SponsorKind = 'prove-and-balance' | 'balance-only';

export interface SponsorArgs {
  kind: SponsorKind;
  /** The ledger era the network runs, as the DUST sync last read it from the chain. */
  era: Era;
  /** Ledger network id of the network served (the fee part is built for it). */
  networkId: string;
  /** Server DUST wallet seeds, in the sync's wallet-index order. */
  seeds: string[];
  /**
   * Blocks of price rise added to those between the parameters' block and the fee intent's TTL
   * (src/features/sponsorship/common/fee-margin.ts).
   */
  margin: number;
  /** The network's block time, ms: the unit of the fee margin and the least life an intent needs. */
  blockTimeMs: number;
  /** The fee intent's life, ms from `now` (capped by the reservation's safety edge). */
  feeTtlMs: number;
  /** When set, `feeTtlMs` is decided again as the UTXO is reserved, from the queue then (backlog.ts). */
  queue?: QueueArgs;
  /** Per-transaction cap and what is left of the key's budget, SPECK, decimal strings. */
  maxFee: string;
  budgetLeft: string;
  /** When the key's budget window ends and its budget is whole again, ms since the epoch (the 429's Retry-After). */
  budgetResetAt?: number;
  /**
   * FREE DUST UTXOs the reservation must leave: the pool keeper's reserve while it grows the pool,
   * enforced by the allocator's reserve itself (0 or absent: none, e.g. the keeper's own splits).
   */
  keepFree?: number;
  /** Wall-clock ms of the request. */
  now: number;
  /** When the main thread reclaims an unspent reservation, ms from `now`. */
  reservationTtlMs: number;
  /** The fee intent expires this long before the reclaim. */
  ttlSafetyMs: number;
  /**
   * The reservation's deadline (ms since the epoch), at or after `now + reservationTtlMs`. The main
   * thread gives every task its own, so a reservation its task never recorded can be found by it
   * (`DustAllocatorTable.releaseWithDeadline`). Absent: `now + reservationTtlMs`.
   */
  reclaimAt?: number;
  /**
   * Set when an `admission` task has judged these bytes already, and the main thread has then
   * checked their inputs and the key's policy: the earliest TTL of their intents (ms since the
   * epoch). The task does not judge them again. Absent: the task judges them first.
   */
  admittedTtl?: number;
}

/** What an `admission` task reads a transaction with: the part of `SponsorArgs` that judges it. */
export type AdmissionArgs = Pick<SponsorArgs, 'kind' | 'era' | 'networkId' | 'now' | 'blockTimeMs'> & {
  /**
   * The key has a policy: the transaction's effects are read too (worker/effects.ts), with the
   * user's part's fee (`'withFee'`) when the key owner's webhook is to be told it.
   */
  effects?: 'plain' | 'withFee';
};

/**
 * What the main thread needs to admit a transaction before a `balance` task may reserve anything
 * for it (worker/admission.ts judged it well-formed): its unshielded inputs for the input check
 * (input-check.ts), its effects for the key's policy (policy/gate.ts).
 */
export interface AdmissionResult {
  earliestTtl: number;
  inputs: UnshieldedInput[];
  effects?: TxEffects;
}

export interface SponsorResult {
  tx: Uint8Array;
  txHash: string;
  identifiers: string[];
  fee: string;
  walletIndex: number;
  slot: number;
  generation: number;
  /** The fee intent's TTL, ms since the epoch: submit before this. */
  expiresAt: number;
  /** The share of a block the answered transaction fills (its fullest dimension), when the ledger could tell. */
  blockShare?: number;
  reclaimAt: number;
}

/** The JSON answer of a sponsored transaction (docs/sponsorship.md, "What happens to a request"). */
export function sponsorAnswerJson(network: string, res: SponsorResult): string {
  return JSON.stringify({
    tx: Buffer.from(res.tx).toString('hex'),
    txHash: res.txHash,
    identifiers: res.identifiers,
    network,
    fee: res.fee,
    feeUnit: 'SPECK',
    expiresAt: new Date(res.expiresAt).toISOString(),
    dustUtxo: { wallet: res.walletIndex, slot: res.slot },
  });
}

/**
 * How the worker proves: `dev` and `wasm` in-process; `upstream` and `native` through a proving
 * port to the main thread's backend (src/infra/prover/proving-port.ts), which the task carries.
 */
export interface ProvingTarget {
  backend: ProverBackendName;
  keyDir: string;
}

export interface BalanceArgs {
  sponsor: SponsorArgs;
  prover: ProvingTarget;
  /** This task's entry in the in-flight reservation registry. */
  inFlightEntry: number;
}

export type BalanceResult = SponsorResult;

declare module '../../../infra/pool/tasks.js' {
  interface TaskMap {
    /** Read and judge a transaction sent for sponsorship; reserves nothing. */
    admission: { args: AdmissionArgs; result: AdmissionResult };
    /** Sponsor one transaction: reserve a DUST UTXO, build the fee part, prove, bind, merge. */
    balance: { args: BalanceArgs; result: BalanceResult };
  }
}
