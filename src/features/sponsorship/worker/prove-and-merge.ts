/**
 * Proving a sponsored transaction (src/features/sponsorship/worker/sponsor.ts, step 4): everything for an unproven
 * body, only the fee part for a proven one; then bind and merge. A failure keeps the proof
 * server's own status and releases the reservation.
 */
import { GatewayError, isGatewayError } from '../../../core/errors.js';
import type { DustAllocatorTable } from '../allocator/allocator.js';
import type { SponsorKind } from '../common/balance-task.js';
import { ledger, release as freeLedger, type Era, type L } from '../../../infra/ledger/index.js';
import type { Built } from './fee-part.js';
import { release, type Holder } from './reservation-holder.js';
import { userFault, type AnyTx } from './user-transaction.js';

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

/** Each era's initial cost model, made once per thread: `prove` only reads it. */
const initialCostModels: Partial<Record<Era, L.CostModel>> = {};

/** Prove (all of an unproven body, only the fee part of a proven one), bind, merge; any failure releases the reservation. */
export async function proveAndMerge(
  era: Era,
  user: AnyTx,
  built: Built,
  kind: SponsorKind,
  provider: L.ProvingProvider,
  table: DustAllocatorTable,
  holder: Holder | undefined,
): Promise<L.FinalizedTransaction> {
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
