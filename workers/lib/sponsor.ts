/**
 * Sponsoring one transaction with a server DUST UTXO (LEDGER.md, "Sponsoring a transaction with
 * DUST"; DESIGN.md, "DUST UTXO allocator"):
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
import { GatewayError, isGatewayError } from '../../src/errors.js';
import { DustAllocatorTable, type Reservation } from '../../src/dust/allocator.js';
import { expectEra, expectKind, readTransactionTag, type TransactionKind } from '../../src/dust/transaction-tag.js';
import { SharedSnapshot } from '../../src/dust/shared-snapshot.js';
import { feeToTableUnits } from '../../src/dust/wallet-state.js';
import { feeIntentTtl, reclaimAt as reclaimTime } from '../../src/dust/reservations.js';
import { marginBlocks } from '../../src/dust/fee-margin.js';
import type { InFlightReservations } from '../../src/dust/in-flight.js';
import type { UnshieldedInput } from '../../src/dust/input-check.js';
import type { SponsorArgs, SponsorKind, SponsorResult } from '../../src/dust/balance-task.js';
import { feeWithin, pricesAt, pricesWithin, replicaOf, secretKeyOf, utxoOf, type WalletReplica } from './wallet-replica.js';
import { admit, checkSponsored } from './admission.js';
import { eraName, ledger, release as freeLedger, type Era, type L } from '../../src/infra/ledger/index.js';

export type { SponsorArgs, SponsorKind, SponsorResult } from '../../src/dust/balance-task.js';
/** A body of the other era than its network's: refused by its header tag, before anything else. */
export { expectEra } from '../../src/dust/transaction-tag.js';

const ACCEPTED: Record<SponsorKind, TransactionKind[]> = {
  'prove-and-balance': ['unproven'],
  'balance-only': ['proven', 'finalized'],
};
const MAX_FEE_ROUNDS = 5;

type AnyTx = L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>;

function deserialize(bytes: Uint8Array, kind: SponsorKind, era: Era): AnyTx {
  expectEra(bytes, era);
  const tag = readTransactionTag(bytes);
  expectKind(tag, ACCEPTED[kind]);
  let tx: AnyTx;
  try {
    tx = ledger(era).Transaction.deserialize(tag.markers[0], tag.markers[1], tag.markers[2], bytes) as AnyTx;
  } catch (err) {
    throw new GatewayError('INVALID_BODY', `the transaction does not deserialize: ${(err as Error).message}`);
  }
  // A proven but unbound transaction is bound here: only transactions of the same kind merge,
  // and the fee part arrives proven and bound. Binding needs no secret.
  if (tag.kind !== 'proven') return tx;
  try {
    return (tx as L.Transaction<L.Signaturish, L.Proof, L.PreBinding>).bind() as AnyTx;
  } finally {
    freeLedger(tx);
  }
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
  // `intents` copies every intent out of WASM: only the segment numbers are needed.
  const intents = tx.intents;
  const used = new Set(intents?.keys() ?? []);
  if (intents) freeLedger(...intents.values());
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
 * What the fee part adds to a transaction's fee on each network, as last measured on this
 * thread. Once known, the fee is `user's fee + this` and the fee part is built once, with no
 * mock-proven estimate round (mockProve + merge + estimate ≈ 4 ms of the ~12 ms of ledger work per
 * request); the proven result is checked instead (below), and a short fee is rebuilt, measured.
 */
const feePartCost = new Map<string, bigint>();

interface Built {
  feeTx: L.UnprovenTransaction;
  fee: bigint;
  userFee: bigint;
  params: L.LedgerParameters;
  /** The prices the fee must hold at: those of the blocks the transaction may land in (wallet-replica.ts). */
  prices: L.LedgerParameters[];
  reservation: Reservation;
}

/**
 * The DUST spend's ctime: the latest block time the wallets are known at, never the wall clock.
 * The ledger refuses a spend whose ctime is after its block's time (OutOfDustValidityWindow, 171);
 * a node checks it in its pool against a block two slots ahead but again, unbumped, when it builds
 * the block, whose time is its slot's start and may be before the request. A block already on
 * chain is before every block still to come. Never before the UTXO's own ctime, never in the future.
 */
function spendTime(replica: WalletReplica, qdo: L.QualifiedDustOutput, now: number): Date {
  const t = Math.min(now, Math.max(replica.chainTime, qdo.ctime.getTime()));
  return new Date(Math.floor(t / 1000) * 1000);
}

/** The fee intent's TTL for this request: the configured life, never past the reservation's safety edge. */
function feeTtlOf(args: SponsorArgs): Date {
  return feeIntentTtl(args.now, args.reservationTtlMs, args.ttlSafetyMs, args.feeTtlMs);
}

/** Where this task records the reservation it holds, so the main thread can release it if the task dies. */
export interface Holder {
  registry: InFlightReservations;
  entry: number;
}

/**
 * Reserve, spend and build the fee intent. With `measure`, or before this thread knows what a fee
 * part costs on the network, the fee is estimated on the mock-proven merged transaction until it
 * covers it; otherwise from the learned cost, at least `floor`.
 */
function buildFee(user: AnyTx, args: SponsorArgs, snapshotBuffer: SharedArrayBuffer, replica: WalletReplica, pricedAt: number, table: DustAllocatorTable, holder: Holder | undefined, measure: boolean, floor: bigint): Built {
  const networkId = args.networkId;
  const L = ledger(args.era);
  const reclaimAt = args.reclaimAt ?? reclaimTime(args.now, args.reservationTtlMs);
  const ttl = feeTtlOf(args);
  // The fee must hold at the prices of any block the transaction can land in before its TTL:
  // prices rise at most `maxPriceAdjustment()` per block, counted from the block they were read at.
  const margin = marginBlocks(ttl.getTime() - args.now, Date.now() - pricedAt, args.blockTimeMs, args.margin);
  const prices = pricesWithin(replica, networkId, margin);
  const seg = firstFreeSegment(user);
  const limit = BigInt(args.maxFee) < BigInt(args.budgetLeft) ? BigInt(args.maxFee) : BigInt(args.budgetLeft);
  const userFee = userFault('the fee of the transaction cannot be computed', () => feeWithin(user, prices));
  const learned = feePartCost.get(costKey(args));
  const estimated = measure || learned === undefined;
  let fee = userFee + (learned ?? 0n);
  if (fee < floor) fee = floor;
  const shaped = estimated ? proofShaped(user) : undefined;
  const reserveOptions = { keepFree: args.keepFree ?? 0 };
  let reservation: Reservation | null = null;
  /** At least this many table units: raised past a UTXO that turned out to hold less than listed. */
  let minUnits = 0n;
  let built = false;
  try {
    for (let round = 0; round < MAX_FEE_ROUNDS; round++) {
      if (fee > limit) break;
      const units = feeToTableUnits(fee) > minUnits ? feeToTableUnits(fee) : minUnits;
      if (!reservation || reservation.value < units) {
        if (reservation) release(table, reservation, holder);
        // The keeper's reserve is kept by the reservation itself, atomically: however many
        // requests race here, none takes one of the last `keepFree` free UTXOs.
        reservation = table.reserve(units, reclaimAt, reserveOptions);
        if (reservation) holder?.registry.hold(holder.entry, reservation.slot, reservation.generation);
        if (!reservation) {
          // The sync marks every UTXO of the old era SPENT when the chain changes era, before the
          // main thread hears of it: an empty pool may be that switch (announced first).
          const announced = announcedEra(snapshotBuffer);
          if (announced !== undefined && announced !== args.era) throw eraChanged(args, announced);
          if (reserveOptions.keepFree > 0 && table.freeTokens() <= reserveOptions.keepFree) throw poolGrowing(args);
          throw new GatewayError('NO_DUST_AVAILABLE', `no free DUST UTXO covers a fee of ${fee} SPECK; retry shortly`, { headers: { 'Retry-After': '6' } });
        }
      }
      const entry = table.slotEntry(reservation.slot);
      // A UTXO newer than this task's replica (its block was synced since): read the snapshot again.
      if (entry && !utxoOf(replica, entry.walletIndex, entry.key)) {
        replica = replicaOf(snapshotBuffer) ?? replica;
        // A UTXO of the next era (the chain switched since the task began): the wallets this
        // task builds with are gone. Never mix the eras' objects; the reservation goes back.
        if (replica.era !== args.era) throw eraChanged(args, replica.era);
      }
      const wallet = entry ? replica.wallets[entry.walletIndex] : undefined;
      const seed = entry ? args.seeds[entry.walletIndex] : undefined;
      const qdo = entry ? utxoOf(replica, entry.walletIndex, entry.key) : undefined;
      if (!entry || !wallet || !seed || !qdo) {
        // The table is ahead of this replica (a UTXO from a newer snapshot): refuse this slot.
        throw new GatewayError('WALLET_SYNCING', 'the DUST wallet replica is behind the allocator; retry', { headers: { 'Retry-After': '1' } });
      }
      // The replica is never advanced here (the chain sync does that), so the wallet state the
      // spend returns is not kept; it is a whole copy of the wallet.
      let spent: L.DustLocalState;
      let spend: L.DustSpend<L.PreProof>;
      const ctime = spendTime(replica, qdo, args.now);
      try {
        [spent, spend] = wallet.spend(secretKeyOf(args.era, seed), qdo, fee, ctime);
      } catch (err) {
        // The UTXO holds less than the table says (it decays once its backing NIGHT is spent, and
        // the sync refreshes values only per block): skip it and every smaller one, and reserve again.
        if (!/only \d+ are available/.test((err as Error).message)) throw err;
        release(table, reservation, holder);
        minUnits = entry.value + 1n;
        reservation = null;
        continue;
      }
      let intent: L.UnprovenIntent | undefined;
      let actions: L.DustActions<L.SignatureEnabled, L.PreProof> | undefined;
      let empty: L.UnprovenTransaction | undefined;
      let feeTx: L.UnprovenTransaction;
      try {
        intent = L.Intent.new(ttl);
        actions = new L.DustActions<L.SignatureEnabled, L.PreProof>('signature', 'pre-proof', ctime, [spend], []);
        intent.dustActions = actions;
        empty = L.Transaction.fromParts(networkId);
        feeTx = empty.addIntent({ tag: 'specific', value: seg }, intent);
      } finally {
        // Ledger objects live in WASM memory until freed (src/ledger-release.ts): the setter and
        // `addIntent` copy what they are given, so free every step's leftovers now.
        freeLedger(spent, spend, actions, intent, empty);
      }
      try {
        if (!shaped) {
          built = true;
          return { feeTx, fee, userFee, params: replica.params, prices, reservation };
        }
        let shapedFee: L.Transaction<L.Signaturish, L.Proof, L.Binding> | undefined;
        let merged: L.Transaction<L.Signaturish, L.Proof, L.Binding> | undefined;
        let need: bigint;
        try {
          shapedFee = feeTx.mockProve() as L.Transaction<L.Signaturish, L.Proof, L.Binding>;
          need = userFault('the transaction does not merge with a fee part', () => {
            merged = shaped.merge(shapedFee!);
            return feeWithin(merged, prices);
          });
        } finally {
          freeLedger(merged, shapedFee);
        }
        if (need <= fee) {
          feePartCost.set(costKey(args), need - userFee);
          built = true;
          return { feeTx, fee, userFee, params: replica.params, prices, reservation };
        }
        fee = need;
      } finally {
        // This round's fee part is the answer only when the round returned it.
        if (!built) freeLedger(feeTx);
      }
    }
    throw overLimitOrStuck(fee, limit, args);
  } finally {
    if (shaped && shaped !== user) freeLedger(shaped);
    if (!built && reservation) release(table, reservation, holder);
  }
}

/** Retry-After of a spent budget when the main thread sent no window end: a minute, as a guess that is never 0. */
const UNKNOWN_BUDGET_RESET_S = 60;

/** Requests may not take the last `keepFree` free UTXOs while the pool keeper grows the pool: the same refusal the main thread gives before a task. */
function poolGrowing(args: SponsorArgs): GatewayError {
  return new GatewayError('NO_DUST_AVAILABLE', 'the DUST pool is growing: no free UTXO for now; retry after the next block', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(args.blockTimeMs / 1000))) },
  });
}

function overLimitOrStuck(fee: bigint, limit: bigint, args: SponsorArgs): GatewayError {
  if (fee > limit) {
    const cap = BigInt(args.maxFee);
    // Fee prices move every block with its fullness: the same transaction may fit the cap a few
    // blocks later, so say when it is worth asking again.
    if (fee > cap) {
      return new GatewayError('FEE_CAP_EXCEEDED', `fee ${fee} SPECK (at the tip's prices, covering the blocks until expiresAt) exceeds the per-transaction cap of ${cap} SPECK`, {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(args.blockTimeMs / 1000))) },
      });
    }
    // Budget windows are fixed: what is spent comes back whole when the window ends.
    const retryAfterS = args.budgetResetAt === undefined ? UNKNOWN_BUDGET_RESET_S : Math.max(1, Math.ceil((args.budgetResetAt - args.now) / 1000));
    return new GatewayError('DUST_BUDGET_EXCEEDED', `fee ${fee} SPECK exceeds what is left of this key's DUST budget (${args.budgetLeft} SPECK)`, {
      headers: { 'Retry-After': String(retryAfterS) },
    });
  }
  return new GatewayError('INTERNAL', `the fee did not converge in ${MAX_FEE_ROUNDS} rounds`);
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
  // Ledger 9's `prove` also asks the provider for `lookupKey`: pass it on when there is one.
  const lookupKey = (provider as Partial<Record<'lookupKey', (keyLocation: string) => Promise<unknown>>>).lookupKey;
  return {
    provider: {
      check: (preimage, keyLocation) => provider.check(preimage, keyLocation).catch(keep),
      prove: (preimage, keyLocation, bindingInput) => provider.prove(preimage, keyLocation, bindingInput).catch(keep),
      ...(lookupKey ? { lookupKey: (keyLocation: string) => lookupKey.call(provider, keyLocation).catch(keep) } : {}),
    } as L.ProvingProvider,
    failure: () => failure,
  };
}

/** What a fee part costs is learned per network and era (the eras price it differently). */
function costKey(args: SponsorArgs): string {
  return `${args.networkId}|${args.era}`;
}

function eraChanged(args: SponsorArgs, now: Era): GatewayError {
  return new GatewayError('LEDGER_ERA_CHANGED', `the network changed from ${eraName(args.era)} to ${eraName(now)} during this request; nothing stays reserved: rebuild the transaction for ${eraName(now)}`);
}

/**
 * The replica the task may sponsor from: of the era the main thread sent. A newer era means the
 * chain switched since (409); an older one that the new era's wallets are not published yet (503).
 */
function replicaFor(args: SponsorArgs, snapshotBuffer: SharedArrayBuffer): WalletReplica {
  const announced = announcedEra(snapshotBuffer);
  if (announced !== undefined && announced > args.era) throw eraChanged(args, announced);
  const replica = replicaOf(snapshotBuffer);
  if (!replica) throw new GatewayError('WALLET_SYNCING', undefined, { headers: { 'Retry-After': '30' } });
  if (replica.era > args.era) throw eraChanged(args, replica.era);
  if (replica.era < args.era) throw new GatewayError('WALLET_SYNCING', `the server DUST wallets of ${eraName(args.era)} are still syncing`, { headers: { 'Retry-After': '6' } });
  return replica;
}

/**
 * The era the sync announced last (shared memory, so at once, ahead of its status message and of
 * any snapshot of the new era); undefined when none was announced.
 */
function announcedEra(snapshotBuffer: SharedArrayBuffer): Era | undefined {
  return new SharedSnapshot(snapshotBuffer).era as Era | undefined;
}

function release(table: DustAllocatorTable, reservation: Reservation, holder: Holder | undefined): void {
  table.release(reservation);
  if (holder) holder.registry.clear(holder.entry);
}

/** Asks whether every unshielded input is unspent on chain and its signer's (src/dust/input-check.ts); throws if not. */
export type InputCheck = (inputs: UnshieldedInput[]) => Promise<void>;

export async function sponsor(bytes: Uint8Array, args: SponsorArgs, tableBuffer: SharedArrayBuffer, snapshotBuffer: SharedArrayBuffer, provider: L.ProvingProvider, holder?: Holder, checkInputs?: InputCheck): Promise<SponsorResult> {
  // The network moved on since the main thread sent this: 409 whatever the body's era (a body of
  // the new era would otherwise be told that the network runs the old one).
  const announced = announcedEra(snapshotBuffer);
  if (announced !== undefined && announced > args.era) throw eraChanged(args, announced);
  const user = deserialize(bytes, args.kind, args.era);
  try {
    return await sponsorDeserialized(user, args, tableBuffer, snapshotBuffer, provider, holder, checkInputs);
  } finally {
    freeLedger(user);
  }
}

async function sponsorDeserialized(user: AnyTx, args: SponsorArgs, tableBuffer: SharedArrayBuffer, snapshotBuffer: SharedArrayBuffer, provider: L.ProvingProvider, holder: Holder | undefined, checkInputs: InputCheck | undefined): Promise<SponsorResult> {
  const table = DustAllocatorTable.fromShared(tableBuffer);
  const replica = replicaFor(args, snapshotBuffer);
  // Nothing is reserved for a transaction the ledger would refuse.
  const { earliestTtl, inputs } = admit(args.era, user, args.kind === 'prove-and-balance', args.networkId, replica.params, args.now, args.blockTimeMs);
  // Nor for one spending what is not on chain, or not its signer's: it could never land.
  if (args.checkInputs) {
    if (!checkInputs) throw new GatewayError('INPUTS_UNCHECKED', 'the task has no way to check its inputs', { headers: { 'Retry-After': '5' } });
    await checkInputs(inputs);
  }
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
      feePartCost.set(costKey(args), charged - built.userFee);
      if (attempt >= 2) throw new GatewayError('INTERNAL', `the fee did not converge: ${charged} SPECK charged for ${built.fee} SPECK paid`);
      measure = true;
      // 2 % above what the proven transaction was charged: the mock-proven estimate runs about 1 %
      // low (LEDGER.md), and without headroom a rebuild can fall short again by that much.
      floor = charged + charged / 50n;
      continue;
    }
    const entry = table.slotEntry(built.reservation.slot)!;
    let answer: { tx: Uint8Array; txHash: string; identifiers: string[] };
    try {
      // The whole answer, as the chain will check it at the tip: never hand out what would be refused.
      checkSponsored(args.era, final, args.networkId, built.params, args.now);
      // The chain changed era while this was built: its DUST UTXO is gone with the old wallets.
      if (!table.isLive(built.reservation)) throw eraChanged(args, announcedEra(snapshotBuffer) ?? args.era);
      answer = { tx: final.serialize(), txHash: final.transactionHash(), identifiers: final.identifiers() };
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

/** Each era's initial cost model, made once per thread: `prove` only reads it. */
const initialCostModels: Partial<Record<Era, L.CostModel>> = {};

/** Prove (all of an unproven body, only the fee part of a proven one), bind, merge; any failure releases the reservation. */
async function proveAndMerge(era: Era, user: AnyTx, built: Built, kind: SponsorKind, provider: L.ProvingProvider, table: DustAllocatorTable, holder: Holder | undefined): Promise<L.FinalizedTransaction> {
  const proving = tracked(provider);
  try {
    const costModel = (initialCostModels[era] ??= ledger(era).CostModel.initialCostModel());
    if (kind === 'prove-and-balance') {
      const merged = userFault('the transaction does not merge with its fee part', () => (user as L.UnprovenTransaction).merge(built.feeTx));
      let proven: L.Transaction<L.SignatureEnabled, L.Proof, L.PreBinding>;
      try {
        proven = await merged.prove(proving.provider, costModel);
      } finally {
        freeLedger(merged);
      }
      try {
        return proven.bind();
      } finally {
        freeLedger(proven);
      }
    }
    const provenFee = await built.feeTx.prove(proving.provider, costModel);
    let feeFinal: L.FinalizedTransaction;
    try {
      feeFinal = provenFee.bind();
    } finally {
      freeLedger(provenFee);
    }
    try {
      return userFault('the transaction does not merge with its fee part', () => (user as L.FinalizedTransaction).merge(feeFinal));
    } finally {
      freeLedger(feeFinal);
    }
  } catch (err) {
    release(table, built.reservation, holder);
    if (isGatewayError(err)) throw err;
    throw proving.failure() ?? new GatewayError('PROVER_FAILED', `proving the sponsored transaction failed: ${(err as Error).message}`);
  }
}
