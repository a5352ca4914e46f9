/**
 * The fee part of a sponsored transaction (src/features/sponsorship/worker/sponsor.ts, step 2): reserve a server DUST
 * UTXO, spend it into a fee intent in the first free segment, and settle the fee it must pay —
 * estimated on the mock-proven merged transaction, or from what this thread learned a fee part
 * costs — refusing what exceeds the key's cap or budget and what the pool cannot cover.
 */
import { GatewayError } from '../../../core/errors.js';
import type { DustAllocatorTable, Reservation } from '../allocator/allocator.js';
import { feeToTableUnits } from '../wallets/wallet-state.js';
import { feeIntentTtl, reclaimAt as reclaimTime } from '../reservations/reservations.js';
import { marginBlocks } from '../common/fee-margin.js';
import { secondsUntil } from '../common/fixed-window.js';
import type { SponsorArgs } from '../common/balance-task.js';
import { feeWithin, pricesWithin, replicaOf, secretKeyOf, utxoOf, type WalletReplica } from './wallet-replica.js';
import { ledger, release as freeLedger, type L } from '../../../infra/ledger/index.js';
import { announcedEra, eraChanged } from './sponsor-era.js';
import { release, type Holder } from './reservation-holder.js';
import { firstFreeSegment, proofShaped, userFault, type AnyTx } from './user-transaction.js';

const MAX_FEE_ROUNDS = 5;

/**
 * What the fee part adds to a transaction's fee on each network, as last measured on this
 * thread. Once known, the fee is `user's fee + this` and the fee part is built once, with no
 * mock-proven estimate round (mockProve + merge + estimate ≈ 4 ms of the ~12 ms of ledger work per
 * request); the proven result is checked instead (sponsor.ts), and a short fee is rebuilt, measured.
 */
const feePartCost = new Map<string, bigint>();

/** What a fee part costs is learned per network and era (the eras price it differently). */
function costKey(args: SponsorArgs): string {
  return `${args.networkId}|${args.era}`;
}

/** Records what the fee part cost on a proven transaction, for the next requests' fees. */
export function learnFeePartCost(args: SponsorArgs, cost: bigint): void {
  feePartCost.set(costKey(args), cost);
}

export interface Built {
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
export function feeTtlOf(args: SponsorArgs): Date {
  return feeIntentTtl(args.now, args.reservationTtlMs, args.ttlSafetyMs, args.feeTtlMs);
}

/**
 * Reserve, spend and build the fee intent. With `measure`, or before this thread knows what a fee
 * part costs on the network, the fee is estimated on the mock-proven merged transaction until it
 * covers it; otherwise from the learned cost, at least `floor`.
 */
export function buildFee(
  user: AnyTx,
  args: SponsorArgs,
  snapshotBuffer: SharedArrayBuffer,
  replica: WalletReplica,
  pricedAt: number,
  table: DustAllocatorTable,
  holder: Holder | undefined,
  measure: boolean,
  floor: bigint,
): Built {
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
        // Ledger objects live in WASM memory until freed (packages/ledger/src/release.ts): the setter and
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
        // The mock-proven estimate runs about 1 % below what the proven transaction is charged
        // (LEDGER.md): 2 % over it, at this round's prices, so a block's price rise between the
        // caller's attempts cannot leave a measured fee short.
        const want = need + need / 50n;
        if (want <= fee) {
          feePartCost.set(costKey(args), need - userFee);
          built = true;
          return { feeTx, fee, userFee, params: replica.params, prices, reservation };
        }
        fee = want;
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
      return new GatewayError(
        'FEE_CAP_EXCEEDED',
        `fee ${fee} SPECK (at the tip's prices, covering the blocks until expiresAt) exceeds the per-transaction cap of ${cap} SPECK`,
        {
          headers: { 'Retry-After': String(Math.max(1, Math.ceil(args.blockTimeMs / 1000))) },
        },
      );
    }
    // Budget windows are fixed: what is spent comes back whole when the window ends.
    const retryAfterS = args.budgetResetAt === undefined ? UNKNOWN_BUDGET_RESET_S : secondsUntil(args.budgetResetAt, args.now);
    return new GatewayError('DUST_BUDGET_EXCEEDED', `fee ${fee} SPECK exceeds what is left of this key's DUST budget (${args.budgetLeft} SPECK)`, {
      headers: { 'Retry-After': String(retryAfterS) },
    });
  }
  // The pool or the prices moved under every round: transient, nothing is left reserved.
  return new GatewayError('FEE_UNSETTLED', `the fee did not settle in ${MAX_FEE_ROUNDS} rounds; retry after the next block`, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(args.blockTimeMs / 1000))) },
  });
}
