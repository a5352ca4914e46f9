/**
 * What a user's transaction does (policy/effects.ts), read out of the deserialized transaction in
 * the worker so that the key's policy (policy/rules.ts) can refuse it before any DUST is reserved:
 * the contracts it calls, deploys or maintains, whether it moves unshielded or shielded tokens,
 * its DUST registrations, whose unshielded inputs it spends (the end users) and its own fee.
 *
 * Both eras read alike, and unproven, proven and bound bodies alike. Every getter of a ledger
 * object copies out of WASM memory, so each copy is freed as soon as it has been read (as in
 * admission.ts): the answer is plain data, sent to the main thread.
 */
import { normalAddress } from '../../../core/config/key-policy.js';
import { ledger, release as freeLedger, type Era, type L } from '../../../infra/ledger/index.js';
import type { ContractCallEffect, TxEffects } from '../common/effects.js';
import type { AnyTx } from './user-transaction.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An entry point as a policy names it. The ledger answers a string when the bytes are UTF-8
 * (measured, both eras); bytes that are not are shown as `0x` + hex, which no circuit name equals.
 */
function entryPointName(entryPoint: Uint8Array | string): string {
  if (typeof entryPoint === 'string') return entryPoint;
  try {
    return utf8.decode(entryPoint);
  } catch {
    return `0x${Buffer.from(entryPoint.buffer, entryPoint.byteOffset, entryPoint.byteLength).toString('hex')}`;
  }
}

type Action = L.ContractAction<L.Proofish>;

/**
 * The three kinds of action are told apart by their fields, not by `instanceof`: a transaction
 * made by another copy of the ledger package (one Midnight.js imported) has other classes.
 */
const isCall = (a: Action): a is L.ContractCall<L.Proofish> => 'entryPoint' in a;
const isMaintenance = (a: Action): a is L.MaintenanceUpdate => 'updates' in a;

/**
 * The effects of `tx`, an object of `era`'s ledger, and with `withFee` the user's part's fee at
 * `params` (the tip's prices, as fee-part.ts charges it: ≈ 1.3 ms on an unproven body, so only
 * when a webhook is to be told). Throws the ledger's error when the fee cannot be computed; the
 * caller reports it as the request's fault.
 */
export function effectsOf(era: Era, tx: AnyTx, params: L.LedgerParameters, withFee = true): TxEffects {
  const L = ledger(era);
  const calls: ContractCallEffect[] = [];
  const deploys: string[] = [];
  const maintenance: string[] = [];
  const owners = new Set<string>();
  let unshielded = false;
  let dustRegistrations = 0;
  const guaranteed = tx.guaranteedOffer;
  const fallible = tx.fallibleOffer;
  const intents = tx.intents;
  try {
    const segments = [...(intents?.entries() ?? [])].sort((a, b) => a[0] - b[0]);
    for (const [, intent] of segments) {
      const offers = [intent.guaranteedUnshieldedOffer, intent.fallibleUnshieldedOffer];
      const dust = intent.dustActions;
      const registrations = dust?.registrations ?? [];
      const actions = intent.actions;
      try {
        dustRegistrations += registrations.length;
        for (const action of actions) {
          if (isCall(action)) calls.push({ address: normalAddress(action.address), entryPoint: entryPointName(action.entryPoint) });
          else if (isMaintenance(action)) maintenance.push(normalAddress(action.address));
          else deploys.push(normalAddress(action.address));
        }
        for (const offer of offers) {
          if (!offer) continue;
          const inputs = offer.inputs;
          if (inputs.length > 0 || offer.outputs.length > 0) unshielded = true;
          for (const i of inputs) owners.add(L.addressFromKey(i.owner).toLowerCase());
        }
      } finally {
        freeLedger(...offers, dust, ...registrations, ...actions);
      }
    }
    return {
      calls,
      deploys,
      maintenance,
      unshielded,
      shielded: guaranteed !== undefined || (fallible?.size ?? 0) > 0,
      dustRegistrations,
      owners: [...owners].sort(),
      ...(withFee ? { userFee: tx.fees(params).toString() } : {}),
    };
  } finally {
    freeLedger(guaranteed, ...(fallible?.values() ?? []), ...(intents?.values() ?? []));
  }
}
