/**
 * What a user's transaction must pass before any DUST UTXO is reserved for it: the ledger's own `wellFormed` against a state carrying the tip's parameters
 * (network id, structure, limits, TTL neither expired nor beyond the ledger's horizon, binding),
 * signatures, a real effect, and no DUST spend of its own. Balancing is left out here: the user's
 * transaction lacks exactly the fee that sponsorship adds. The sponsored result is then checked
 * whole, balancing included (`checkSponsored`), before it is answered.
 *
 * Why signatures are checked by hand for unproven bodies: the ledger verifies signatures in
 * `wellFormed` only on proven, bound transactions (measured on ledger 8: 69 of 125 byte flips in an
 * unproven transfer passed it, none of the finalized one). Proofs are not verified here: the dev
 * backend's are mock-shaped, and the chain verifies real ones.
 *
 * Every check runs with the ledger of the network's era: the transaction, the parameters and the
 * state must all be of that era (the caller has refused a body of the other era already).
 */
import { GatewayError } from '../../../core/errors.js';
import { ledger, release as freeLedger, type Era, type L, strictness, verifyIntentSignatures } from '../../../infra/ledger/index.js';
import type { UnshieldedInput } from '../common/balance-task.js';

type AnyTx = L.Transaction<L.Signaturish, L.Proofish, L.Bindingish>;

// Made once per thread and era: `wellFormed` only reads them.
const strictnesses = new Map<string, L.WellFormedStrictness>();

function strictFor(era: Era, balancing: boolean): L.WellFormedStrictness {
  const id = `${era}:${balancing}`;
  let s = strictnesses.get(id);
  if (!s) {
    s = strictness(era, { balancing, limits: true, signatures: true });
    strictnesses.set(id, s);
  }
  return s;
}

/**
 * A state that carries only the network id and the tip's parameters: what `wellFormed` reads for
 * the checks made here (it does not look up UTXOs or commitment roots; applying does). Made per
 * check and freed at once (≈ 0.1 ms), so no ledger object outlives the task.
 */
function stateFor(era: Era, networkId: string, params: L.LedgerParameters): L.LedgerState {
  const state = ledger(era).LedgerState.blank(networkId);
  state.parameters = params;
  return state;
}

function rejected(detail: string): GatewayError {
  return new GatewayError('TRANSACTION_REJECTED', detail.replace(/[^\x20-\x7e]/g, '?').slice(0, 300));
}

function ledgerCheck(era: Era, tx: AnyTx, networkId: string, params: L.LedgerParameters, strict: L.WellFormedStrictness, now: number, what: string): void {
  let verified: L.VerifiedTransaction | undefined;
  const state = stateFor(era, networkId, params);
  try {
    verified = tx.wellFormed(state, strict, new Date(now));
  } catch (err) {
    throw rejected(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    freeLedger(verified, state);
  }
}

interface Admitted {
  /** The earliest TTL among the transaction's intents (ms since the epoch); the answer cannot land after it. */
  earliestTtl: number;
  /**
   * Every unshielded input the transaction spends, with the address of the key that signs it:
   * `wellFormed` never looks UTXOs up, so these are checked against the chain before reserving
   * (src/features/sponsorship/reservations/input-check.ts).
   */
  inputs: UnshieldedInput[];
}

/**
 * Throws 400 TRANSACTION_REJECTED with the reason when `tx` cannot be sponsored. `unproven`: the
 * body of /prove-and-balance (signatures checked by hand, see above). `minLifeMs`: the least time
 * every intent must still have (a transaction that expires before the next block cannot land).
 */
export function admit(era: Era, tx: AnyTx, unproven: boolean, networkId: string, params: L.LedgerParameters, now: number, minLifeMs: number): Admitted {
  ledgerCheck(era, tx, networkId, params, strictFor(era, false), now, 'the ledger rejects the transaction');
  const intents = tx.intents;
  const zswap = [tx.guaranteedOffer, ...(tx.fallibleOffer?.values() ?? [])].filter((o) => o !== undefined);
  let effect = zswap.length > 0;
  let earliestTtl = Number.POSITIVE_INFINITY;
  const inputs: UnshieldedInput[] = [];
  const L = ledger(era);
  try {
    for (const [segment, intent] of intents ?? []) {
      const offers = [intent.guaranteedUnshieldedOffer, intent.fallibleUnshieldedOffer];
      const dust = intent.dustActions;
      const registrations = dust?.registrations ?? [];
      const actions = intent.actions;
      try {
        earliestTtl = Math.min(earliestTtl, intent.ttl.getTime());
        if (dust && dust.spends.length > 0) {
          throw rejected(`the transaction already pays a fee with DUST (segment ${segment}): it needs no sponsorship`);
        }
        if (actions.length > 0 || registrations.length > 0) effect = true;
        for (const offer of offers) {
          if (!offer) continue;
          if (offer.inputs.length > 0 || offer.outputs.length > 0) effect = true;
          for (const i of offer.inputs) {
            inputs.push({ owner: L.addressFromKey(i.owner), intentHash: i.intentHash, outputNo: i.outputNo, type: i.type, value: i.value.toString() });
          }
        }
      } finally {
        freeLedger(...offers, dust, ...registrations, ...actions);
      }
    }
  } finally {
    freeLedger(...(intents?.values() ?? []), ...zswap);
  }
  if (unproven) {
    try {
      verifyIntentSignatures(era, tx);
    } catch (err) {
      throw rejected((err as Error).message);
    }
  }
  if (!effect) throw rejected('the transaction has no effect (no offer, contract action or DUST registration): there is nothing to sponsor');
  if (earliestTtl < now + minLifeMs) {
    throw rejected(
      `an intent of the transaction expires at ${new Date(earliestTtl).toISOString()}, too soon to land (it needs at least ${Math.ceil(minLifeMs / 1000)} s)`,
    );
  }
  return { earliestTtl, inputs };
}

/**
 * The sponsored transaction as the chain will see it: well-formed and balanced at the tip's prices.
 * A failure here is the request's fault when the user's part is at fault, which the caller decides.
 */
export function checkSponsored(era: Era, tx: L.FinalizedTransaction, networkId: string, params: L.LedgerParameters, now: number): void {
  ledgerCheck(era, tx as AnyTx, networkId, params, strictFor(era, true), now, 'the sponsored transaction does not pass the ledger');
}
