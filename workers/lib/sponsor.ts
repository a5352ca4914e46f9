/**
 * Sponsoring one transaction with a server DUST UTXO (LEDGER.md, "Sponsoring a transaction with
 * DUST"; DESIGN.md, "DUST UTXO allocator"):
 *  1. read the body's kind from its tag and deserialize it;
 *  2. estimate the fee, reserve the smallest free UTXO that covers it (lock-free, in the shared
 *     table), spend it into a fee intent in the first free segment, and re-estimate on the merged,
 *     proof-shaped transaction until the fee converges;
 *  3. check the fee against the key's cap and remaining budget before any proving;
 *  4. prove (everything for an unproven body; only the fee part for a proven one), bind, merge;
 *  5. any failure after step 2 releases the reservation at once.
 * The fee intent's TTL ends before the reservation can be reclaimed, so a reclaimed UTXO can never
 * be spent twice.
 */
import * as L from '@midnight-ntwrk/ledger-v8';
import { GatewayError, isGatewayError } from '../../src/errors.js';
import { DustAllocatorTable, type Reservation } from '../../src/dust/allocator.js';
import { expectKind, readTransactionTag, type TransactionKind } from '../../src/dust/transaction-tag.js';
import { feeToTableUnits, utxoKey } from '../../src/dust/wallet-state.js';
import { feeIntentTtl, reclaimAt as reclaimTime } from '../../src/dust/reservations.js';
import type { InFlightReservations } from '../../src/dust/in-flight.js';
import type { SponsorArgs, SponsorKind, SponsorResult } from '../../src/dust/balance-task.js';
import { replicaOf, secretKeyOf } from './wallet-replica.js';

export type { SponsorArgs, SponsorKind, SponsorResult } from '../../src/dust/balance-task.js';

const ACCEPTED: Record<SponsorKind, TransactionKind[]> = {
  'prove-and-balance': ['unproven'],
  'balance-only': ['proven', 'finalized'],
};
const MAX_FEE_ROUNDS = 5;

type AnyTx = L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>;

function deserialize(bytes: Uint8Array, kind: SponsorKind): AnyTx {
  const tag = readTransactionTag(bytes);
  expectKind(tag, ACCEPTED[kind]);
  let tx: AnyTx;
  try {
    tx = L.Transaction.deserialize(tag.markers[0], tag.markers[1], tag.markers[2], bytes) as AnyTx;
  } catch (err) {
    throw new GatewayError('INVALID_BODY', `the transaction does not deserialize: ${(err as Error).message}`);
  }
  // A proven but unbound transaction is bound here: only transactions of the same kind merge,
  // and the fee part arrives proven and bound. Binding needs no secret.
  return tag.kind === 'proven' ? ((tx as L.Transaction<L.Signaturish, L.Proof, L.PreBinding>).bind() as AnyTx) : tx;
}

/**
 * What the ledger refuses about the user's own transaction — built for another network, parts
 * that cannot merge with a fee part — is the request's fault: 400 TRANSACTION_REJECTED with the
 * ledger's reason, not a 500.
 */
function userFault<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isGatewayError(err)) throw err;
    const reason = (err instanceof Error ? err.message : String(err)).replace(/[^\x20-\x7e]/g, '?').slice(0, 300);
    throw new GatewayError('TRANSACTION_REJECTED', `${what}: ${reason}`);
  }
}

function firstFreeSegment(tx: AnyTx): number {
  const used = new Set(tx.intents?.keys() ?? []);
  let seg = 1;
  while (used.has(seg)) seg++;
  return seg;
}

/** The user's transaction in proof-shaped form, for fee estimates (fees of unproven shapes run ~1% low). */
function proofShaped(user: AnyTx): L.Transaction<L.Signaturish, L.Proof, L.Binding> {
  try {
    return user.mockProve() as L.Transaction<L.Signaturish, L.Proof, L.Binding>;
  } catch {
    return user as L.Transaction<L.Signaturish, L.Proof, L.Binding>;
  }
}

/**
 * What the fee part adds to a transaction's fee, as last measured on this thread: the next
 * estimate starts from it, so the fee usually converges in one round of spend + estimate
 * (each round costs ~10 ms of ledger work) instead of two.
 */
let feePartCost = 0n;

interface Built {
  feeTx: L.UnprovenTransaction;
  fee: bigint;
  reservation: Reservation;
}

/** Where this task records the reservation it holds, so the main thread can release it if the task dies. */
export interface Holder {
  registry: InFlightReservations;
  entry: number;
}

/** Reserve, spend and build the fee intent until its fee covers the merged transaction's. */
function buildFee(user: AnyTx, args: SponsorArgs, table: DustAllocatorTable, snapshotBuffer: SharedArrayBuffer, networkId: string, holder: Holder | undefined): Built {
  const replica = replicaOf(snapshotBuffer);
  if (!replica) throw new GatewayError('WALLET_SYNCING', undefined, { headers: { 'Retry-After': '30' } });
  const now = new Date(args.now);
  const reclaimAt = reclaimTime(args.now, args.reservationTtlMs);
  const ttl = feeIntentTtl(args.now, args.reservationTtlMs, args.ttlSafetyMs);
  const seg = firstFreeSegment(user);
  const limit = BigInt(args.maxFee) < BigInt(args.budgetLeft) ? BigInt(args.maxFee) : BigInt(args.budgetLeft);
  const userFee = userFault('the fee of the transaction cannot be computed', () => user.feesWithMargin(replica.params, args.margin));
  let fee = userFee + feePartCost;
  const shaped = proofShaped(user);
  let reservation: Reservation | null = null;
  try {
    for (let round = 0; round < MAX_FEE_ROUNDS; round++) {
      if (fee > limit) break;
      const units = feeToTableUnits(fee);
      if (!reservation || reservation.value < units) {
        if (reservation) release(table, reservation, holder);
        reservation = table.reserve(units, reclaimAt);
        if (reservation) holder?.registry.hold(holder.entry, reservation.slot, reservation.generation);
        if (!reservation) throw new GatewayError('NO_DUST_AVAILABLE', `no free DUST UTXO covers a fee of ${fee} SPECK; retry shortly`, { headers: { 'Retry-After': '6' } });
      }
      const entry = table.slotEntry(reservation.slot);
      const wallet = entry ? replica.wallets[entry.walletIndex] : undefined;
      const seed = entry ? args.seeds[entry.walletIndex] : undefined;
      const qdo = wallet?.utxos.find((q) => utxoKey(q.nonce) === entry!.key);
      if (!entry || !wallet || !seed || !qdo) {
        // The table is ahead of this replica (a UTXO from a newer snapshot): refuse this slot.
        throw new GatewayError('WALLET_SYNCING', 'the DUST wallet replica is behind the allocator; retry', { headers: { 'Retry-After': '1' } });
      }
      const [, spend] = wallet.spend(secretKeyOf(seed), qdo, fee, now);
      const intent = L.Intent.new(ttl);
      intent.dustActions = new L.DustActions('signature', 'pre-proof', now, [spend], []);
      const feeTx = L.Transaction.fromParts(networkId).addIntent({ tag: 'specific', value: seg }, intent);
      const shapedFee = feeTx.mockProve() as L.Transaction<L.Signaturish, L.Proof, L.Binding>;
      const need = userFault('the transaction does not merge with a fee part', () => shaped.merge(shapedFee).feesWithMargin(replica.params, args.margin));
      if (need <= fee) {
        feePartCost = need - userFee;
        return { feeTx, fee, reservation };
      }
      fee = need;
    }
    if (fee > limit) {
      const cap = BigInt(args.maxFee);
      if (fee > cap) throw new GatewayError('FEE_CAP_EXCEEDED', `fee ${fee} SPECK exceeds the per-transaction cap of ${cap} SPECK`);
      throw new GatewayError('DUST_BUDGET_EXCEEDED', `fee ${fee} SPECK exceeds what is left of this key's DUST budget (${args.budgetLeft} SPECK)`);
    }
    throw new GatewayError('INTERNAL', `the fee did not converge in ${MAX_FEE_ROUNDS} rounds`);
  } catch (err) {
    if (reservation) release(table, reservation, holder);
    throw err;
  }
}

/**
 * The ledger turns whatever a ProvingProvider throws into a plain Error ("'prove' returned an
 * error: …"), losing its code: remember the provider's own GatewayError, so a busy, unreachable
 * or slow proof server keeps its status (503 with Retry-After, 502, 504) instead of becoming 500.
 */
function tracked(provider: L.ProvingProvider): { provider: L.ProvingProvider; failure(): GatewayError | undefined } {
  let failure: GatewayError | undefined;
  const keep = (err: unknown): never => {
    if (isGatewayError(err)) failure ??= err;
    throw err;
  };
  return {
    provider: {
      check: (preimage, keyLocation) => provider.check(preimage, keyLocation).catch(keep),
      prove: (preimage, keyLocation, bindingInput) => provider.prove(preimage, keyLocation, bindingInput).catch(keep),
    },
    failure: () => failure,
  };
}

function release(table: DustAllocatorTable, reservation: Reservation, holder: Holder | undefined): void {
  table.release(reservation);
  if (holder) holder.registry.clear(holder.entry);
}

export async function sponsor(bytes: Uint8Array, args: SponsorArgs, tableBuffer: SharedArrayBuffer, snapshotBuffer: SharedArrayBuffer, provider: L.ProvingProvider, holder?: Holder): Promise<SponsorResult> {
  const user = deserialize(bytes, args.kind);
  const table = DustAllocatorTable.fromShared(tableBuffer);
  const { feeTx, fee, reservation } = buildFee(user, args, table, snapshotBuffer, args.networkId, holder);
  const proving = tracked(provider);
  try {
    const costModel = L.CostModel.initialCostModel();
    let final: L.FinalizedTransaction;
    if (args.kind === 'prove-and-balance') {
      const merged = userFault('the transaction does not merge with its fee part', () => (user as L.UnprovenTransaction).merge(feeTx));
      final = (await merged.prove(proving.provider, costModel)).bind();
    } else {
      const feeFinal = (await feeTx.prove(proving.provider, costModel)).bind();
      final = userFault('the transaction does not merge with its fee part', () => (user as L.FinalizedTransaction).merge(feeFinal));
    }
    const entry = table.slotEntry(reservation.slot)!;
    return {
      tx: final.serialize(),
      txHash: final.transactionHash(),
      identifiers: final.identifiers(),
      fee: fee.toString(),
      walletIndex: entry.walletIndex,
      slot: reservation.slot,
      generation: reservation.generation,
      expiresAt: feeIntentTtl(args.now, args.reservationTtlMs, args.ttlSafetyMs).getTime(),
      reclaimAt: reclaimTime(args.now, args.reservationTtlMs),
    };
  } catch (err) {
    release(table, reservation, holder);
    if (isGatewayError(err)) throw err;
    throw proving.failure() ?? new GatewayError('PROVER_FAILED', `proving the sponsored transaction failed: ${(err as Error).message}`);
  }
}
