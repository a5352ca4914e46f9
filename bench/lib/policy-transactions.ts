/**
 * The transactions bench/policy-check.ts measures, per ledger era: unproven NIGHT transfers and
 * counter calls beside the user's NIGHT payment, each of its own user, built and signed as a
 * wallet builds them, serialized for the worker; and their effects as the worker sends them.
 */
import { counterDeploy, counterIncrement, COUNTER_ENTRY_POINT } from '@nightgate/devnet/counter-contract';
import { kitFor, type LedgerKit } from '@nightgate/devnet/ledger-kit';
import type { TxEffects } from '../../src/features/sponsorship/common/effects.js';
import { effectsOf } from '../../src/features/sponsorship/worker/effects.js';
import { deserialize } from '../../src/features/sponsorship/worker/user-transaction.js';
import { release, signOffer, type Era, type L } from '../../src/infra/ledger/index.js';

export type Kind = 'transfer' | 'call';
export const KINDS: readonly Kind[] = ['transfer', 'call'];
/** Users per era and transaction kind: each holds one transaction. */
export const USERS = 64;
const NETWORK = 'undeployed';
const STAR = 1_000_000n;

/** A user with a distinct key per era, kind and index. */
function userOf(kit: LedgerKit, kind: Kind, i: number): { sk: L.SigningKey; vk: L.SignatureVerifyingKey; address: L.UserAddress } {
  const seed = new Uint8Array(32);
  seed[0] = 1;
  seed[1] = kind === 'transfer' ? 1 : 2;
  seed[2] = i;
  seed[31] = kit.era;
  const sk = kit.L.signingKeyFromBip340(seed);
  const vk = kit.L.signatureVerifyingKey(sk);
  return { sk, vk, address: kit.L.addressFromKey(vk) };
}

/**
 * An unproven transaction of one intent, its unshielded offer spending `user`'s 10 NIGHT (1 to
 * `to`, the change back) and signed, as test/fixtures/dust/user-tx.ts `transferFrom` builds it;
 * with `call`, the intent calls the contract too.
 */
function signedTx(kit: LedgerKit, user: ReturnType<typeof userOf>, to: L.UserAddress, i: number, call?: L.ContractCallPrototype): Uint8Array {
  const { L, era } = kit;
  const night = L.nativeToken().raw;
  const utxo: L.Utxo = { owner: user.address, type: night, value: 10n * STAR, intentHash: (i + 16).toString(16).padStart(2, '0').repeat(32), outputNo: 0 };
  let intent = L.Intent.new(new Date(Date.now() + 10 * 60_000));
  if (call) {
    const withCall = intent.addCall(call);
    if (withCall !== intent) release(intent);
    intent = withCall;
  }
  intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new(
    [{ value: utxo.value, owner: user.vk, type: utxo.type, intentHash: utxo.intentHash, outputNo: utxo.outputNo }],
    [
      { owner: to, type: night, value: STAR },
      { owner: user.address, type: night, value: utxo.value - STAR },
    ],
    [],
  );
  const tx = L.Transaction.fromParts(NETWORK, undefined, undefined, intent);
  const signed = tx.intents!.get(1)!;
  signed.guaranteedUnshieldedOffer = signOffer(era, signed.guaranteedUnshieldedOffer!, [L.signData(user.sk, signed.signatureData(1))]);
  tx.intents = tx.intents!.set(1, signed);
  try {
    return tx.serialize();
  } finally {
    release(tx, signed, intent);
  }
}

export interface EraSetup {
  txs: Record<Kind, Uint8Array[]>;
  /** The counter's address: listed in the policy. */
  contract: string;
  /** Each transaction's effects as the worker sends them (with the user's fee, and without), for the main-thread part. */
  effects: Record<Kind, TxEffects[]>;
  effectsWithFee: Record<Kind, TxEffects[]>;
  /** The fee each sponsorship commits: twice the largest user's fee (the sponsor's part on top). */
  fee: bigint;
}

export function setUpEra(era: Era): EraSetup {
  const kit = kitFor(era);
  const { L } = kit;
  const params = L.LedgerParameters.initialParameters();
  const deploy = counterDeploy(kit);
  const contract = deploy.address;
  const initial = deploy.initialState;
  const data = initial.data;
  const state = L.LedgerState.blank(NETWORK).updateIndex(contract, data, new Map());
  release(data, initial, deploy);
  const shop = userOf(kit, 'transfer', 255).address;
  const txs: Record<Kind, Uint8Array[]> = { transfer: [], call: [] };
  for (let i = 0; i < USERS; i++) {
    txs.transfer.push(signedTx(kit, userOf(kit, 'transfer', i), shop, i));
    const call = counterIncrement(kit, state, contract);
    if (!call) throw new Error('the counter is not in the state');
    txs.call.push(signedTx(kit, userOf(kit, 'call', i), shop, i, call));
    release(call);
  }
  release(state);
  const effects: Record<Kind, TxEffects[]> = { transfer: [], call: [] };
  const effectsWithFee: Record<Kind, TxEffects[]> = { transfer: [], call: [] };
  let fee = 0n;
  for (const kind of KINDS) {
    for (const bytes of txs[kind]) {
      const tx = deserialize(bytes, 'prove-and-balance', era);
      const e = effectsOf(era, tx, params, true);
      // What crosses the port: a structured clone.
      effectsWithFee[kind].push(structuredClone(e));
      effects[kind].push(structuredClone(effectsOf(era, tx, params, false)));
      release(tx);
      const userFee = BigInt(e.userFee ?? '0');
      if (userFee > fee) fee = userFee;
      const want = kind === 'call' ? [{ address: contract, entryPoint: COUNTER_ENTRY_POINT }] : [];
      if (JSON.stringify(e.calls) !== JSON.stringify(want) || e.owners.length !== 1 || !e.unshielded)
        throw new Error(`unexpected effects of the ${kind}: ${JSON.stringify(e)}`);
    }
  }
  release(params);
  return { txs, contract, effects, effectsWithFee, fee: 2n * fee };
}
