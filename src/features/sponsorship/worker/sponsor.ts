/**
 * Sponsoring one transaction with a server DUST UTXO (LEDGER.md, "Sponsoring a transaction with
 * DUST"; docs/DESIGN.md, "The mechanisms"):
 *  0. when the main thread must check the transaction's inputs or the key's policy first, an
 *     `admission` task (`readForAdmission`) reads and judges it and answers what those checks need;
 *     they wait on the network (the indexer, the key owner's webhook), so they are made on the
 *     main thread with no worker thread held, and only then is the `balance` task (`sponsor`) run;
 *  1. read the body's kind from its tag and deserialize it;
 *  2. estimate the fee, reserve the smallest free UTXO that covers it (lock-free, in the shared
 *     table), spend it into a fee intent in the first free segment — the first time on a thread,
 *     re-estimating on the merged, proof-shaped transaction until the fee converges; after that
 *     from the fee part's learned cost;
 *  3. check the fee against the key's cap and remaining budget before any proving;
 *  4. prove (everything for an unproven body; only the fee part for a proven one), bind, merge,
 *     and check the fee on the result: a short one is rebuilt with a measured estimate;
 *  5. any failure after step 2 releases the reservation at once.
 * The fee intent's TTL ends before the reservation can be reclaimed, so a reclaimed UTXO can never
 * be spent twice.
 *
 * Everything runs with the ledger of the network's era (`args.era`, which the main thread has from
 * the chain the DUST sync follows). A body of the other era is refused before anything is
 * reserved; a network that changes era during the task answers 409 LEDGER_ERA_CHANGED with the
 * reservation released (the wallets it was made from no longer exist on the chain).
 */
import { GatewayError } from '../../../core/errors.js';
import { DustAllocatorTable } from '../allocator/allocator.js';
import { effectsOf } from './effects.js';
import type { AdmissionArgs, AdmissionResult, SponsorArgs, SponsorResult } from '../common/balance-task.js';
import { feeWithin, pricesAt } from './wallet-replica.js';
import { admit, checkSponsored } from './admission.js';
import { release as freeLedger, type L } from '../../../infra/ledger/index.js';
import { buildFee, feeTtlOf, learnFeePartCost } from './fee-part.js';
import { proveAndMerge } from './prove-and-merge.js';
import { release, type Holder } from './reservation-holder.js';
import { announcedEra, eraChanged, replicaFor } from './sponsor-era.js';
import { deserialize, type AnyTx } from './user-transaction.js';
import { feeLifeAtReservation } from '../admission/backlog.js';

export type { SponsorArgs } from '../common/balance-task.js';

/**
 * The network moved on since the main thread sent this: 409 whatever the body's era (a body of
 * the new era would otherwise be told that the network runs the old one).
 */
function expectNetworkEra(args: Pick<SponsorArgs, 'era'>, snapshotBuffer: SharedArrayBuffer): void {
  const announced = announcedEra(snapshotBuffer);
  if (announced !== undefined && announced > args.era) throw eraChanged(args, announced);
}

/**
 * Task `admission`: the transaction judged as the ledger would (admission.ts), and what the main
 * thread needs to admit it before anything is reserved: its unshielded inputs, and with
 * `args.effects` what it does for the key's policy. Reserves nothing, asks nothing.
 */
export function readForAdmission(bytes: Uint8Array, args: AdmissionArgs, snapshotBuffer: SharedArrayBuffer): AdmissionResult {
  expectNetworkEra(args, snapshotBuffer);
  const user = deserialize(bytes, args.kind, args.era);
  try {
    const replica = replicaFor(args, snapshotBuffer);
    const { earliestTtl, inputs } = admit(args.era, user, args.kind === 'prove-and-balance', args.networkId, replica.params, args.now, args.blockTimeMs);
    if (!args.effects) return { earliestTtl, inputs };
    return { earliestTtl, inputs, effects: effectsOf(args.era, user, replica.params, args.effects === 'withFee') };
  } finally {
    freeLedger(user);
  }
}

/**
 * Task `balance`. Judges the transaction first (as `readForAdmission`) unless `args.admittedTtl`
 * says an admission task did and the main thread admitted it since.
 */
export async function sponsor(
  bytes: Uint8Array,
  args: SponsorArgs,
  tableBuffer: SharedArrayBuffer,
  snapshotBuffer: SharedArrayBuffer,
  provider: L.ProvingProvider,
  holder?: Holder,
): Promise<SponsorResult> {
  expectNetworkEra(args, snapshotBuffer);
  const user = deserialize(bytes, args.kind, args.era);
  try {
    return await sponsorDeserialized(user, args, tableBuffer, snapshotBuffer, provider, holder);
  } finally {
    freeLedger(user);
  }
}

async function sponsorDeserialized(
  user: AnyTx,
  args: SponsorArgs,
  tableBuffer: SharedArrayBuffer,
  snapshotBuffer: SharedArrayBuffer,
  provider: L.ProvingProvider,
  holder: Holder | undefined,
): Promise<SponsorResult> {
  const table = DustAllocatorTable.fromShared(tableBuffer);
  const replica = replicaFor(args, snapshotBuffer);
  // Nothing is reserved for a transaction the ledger would refuse (nor, the main thread saw to
  // that before this task, for one whose inputs are not on chain or whose key's policy refuses it).
  const earliestTtl =
    args.admittedTtl ?? admit(args.era, user, args.kind === 'prove-and-balance', args.networkId, replica.params, args.now, args.blockTimeMs).earliestTtl;
  // The fee intent's life from the queue as this task reserves, not as its request came in.
  if (args.queue) args.feeTtlMs = feeLifeAtReservation(args.queue, table.counts().reserved, args.blockTimeMs);
  let measure = false;
  let floor = 0n;
  for (let attempt = 0; ; attempt++) {
    // Each attempt takes the latest replica: one read during an attempt retires the one before.
    const current = replicaFor(args, snapshotBuffer);
    const built = buildFee(user, args, snapshotBuffer, current, pricesAt(current, snapshotBuffer), table, holder, measure, floor);
    let final: L.FinalizedTransaction;
    try {
      final = await proveAndMerge(args.era, user, built, args.kind, provider, table, holder);
    } finally {
      freeLedger(built.feeTx);
    }
    // The proven, bound transaction is what the network charges: check the fee on it, whichever
    // way it was estimated. Short (prices moved since the cost was learned): learn, rebuild.
    let charged: bigint;
    try {
      charged = feeWithin(final, built.prices);
    } catch (err) {
      freeLedger(final);
      release(table, built.reservation, holder);
      throw err;
    }
    if (charged > built.fee) {
      freeLedger(final);
      release(table, built.reservation, holder);
      learnFeePartCost(args, charged - built.userFee);
      if (attempt >= 2)
        throw new GatewayError('FEE_UNSETTLED', `the fee did not settle: ${charged} SPECK charged for ${built.fee} SPECK paid; retry after the next block`, {
          headers: { 'Retry-After': String(Math.max(1, Math.ceil(args.blockTimeMs / 1000))) },
        });
      measure = true;
      // 2 % above what the proven transaction was charged: the mock-proven estimate runs about 1 %
      // low (LEDGER.md), and without headroom a rebuild can fall short again by that much.
      floor = charged + charged / 50n;
      continue;
    }
    const entry = table.slotEntry(built.reservation.slot)!;
    let answer: { tx: Uint8Array; txHash: string; identifiers: string[]; blockShare?: number };
    try {
      // The whole answer, as the chain will check it at the tip: never hand out what would be refused.
      checkSponsored(args.era, final, args.networkId, built.params, args.now);
      // The chain changed era while this was built: its DUST UTXO is gone with the old wallets.
      if (!table.isLive(built.reservation)) throw eraChanged(args, announcedEra(snapshotBuffer) ?? args.era);
      const share = blockShareOf(final, built.params);
      answer = {
        tx: final.serialize(),
        txHash: final.transactionHash(),
        identifiers: final.identifiers(),
        ...(share === undefined ? {} : { blockShare: share }),
      };
    } catch (err) {
      release(table, built.reservation, holder);
      throw err;
    } finally {
      freeLedger(final);
    }
    return {
      ...answer,
      fee: built.fee.toString(),
      walletIndex: entry.walletIndex,
      slot: built.reservation.slot,
      generation: built.reservation.generation,
      expiresAt: Math.min(feeTtlOf(args).getTime(), earliestTtl),
      reclaimAt: built.reservation.deadline,
    };
  }
}

/** The share of a block `tx` fills: its fullest dimension against the block's limits (undefined if over them). */
function blockShareOf(tx: L.FinalizedTransaction, params: L.LedgerParameters): number | undefined {
  try {
    const n = params.normalizeFullness(tx.cost(params));
    return Math.max(n.readTime, n.computeTime, n.blockUsage, n.bytesWritten, n.bytesChurned);
  } catch {
    return undefined;
  }
}
