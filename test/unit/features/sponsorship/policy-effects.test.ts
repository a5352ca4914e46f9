// What `effectsOf` reads out of real transactions built with each era's ledger, unproven and
// proven (mock-shaped proofs, bound): a NIGHT transfer, a contract deploy, a contract call, a
// maintenance update, a DUST registration and shielded offers; contract calls in segment order,
// entry points that are not UTF-8, owners distinct and sorted, the user's fee at the prices given,
// and every ledger object read on the way freed.
import t, { type Test } from 'tap';
import { effectsOf } from '../../../../src/features/sponsorship/worker/effects.js';
import type { TxEffects } from '../../../../src/features/sponsorship/common/effects.js';
import type { AnyTx } from '../../../../src/features/sponsorship/worker/user-transaction.js';
import { kitFor, NIGHT_TOKEN, STAR_PER_NIGHT, type L, type LedgerKit } from '../../../../packages/devnet/src/ledger-kit.js';
import { counterDeploy, counterIncrement, registerCounterCircuit, COUNTER_ENTRY_POINT } from '../../../../packages/devnet/src/counter-contract.js';
import { MockProver } from '../../../../packages/devnet/src/mock-prover.js';
import { buildFinalized, type TxSpec } from '../../../../packages/devnet/src/tx-builder.js';
import { Actor } from '../../../../packages/devnet/src/wallet.js';
import { freshUser, transferFrom } from '../../../fixtures/dust/user-tx.js';
import { shieldedTx } from '../../../fixtures/prover/samples.js';
import { ERAS } from '../../devnet/eras.js';

const TIME = new Date(Date.UTC(2030, 0, 1));
const TTL = new Date(TIME.getTime() + 10 * 60_000);
const NONE: Omit<TxEffects, 'userFee'> = { calls: [], deploys: [], maintenance: [], unshielded: false, shielded: false, dustRegistrations: 0, owners: [] };

/** A UTXO of `owner` that no chain holds: the effects read the transaction alone. */
function utxoOf(owner: Actor, value = 10n * STAR_PER_NIGHT, outputNo = 0): L.Utxo {
  return { owner: owner.address, type: NIGHT_TOKEN, value, intentHash: 'ab'.repeat(32), outputNo };
}

/**
 * How many ledger objects `fn` leaves alive. Every ledger object is registered with its class's
 * FinalizationRegistry when it is made and unregistered when it is freed (or consumed by a call
 * that takes it): the ones made and never unregistered are left to the garbage collector.
 */
function leftAlive(fn: () => unknown): number {
  const proto = FinalizationRegistry.prototype;
  const { register, unregister } = proto;
  const alive = new Set<WeakKey>();
  proto.register = function (this: FinalizationRegistry<unknown>, target: object, held: unknown, token?: WeakKey) {
    if (token) alive.add(token);
    return register.call(this, target, held, token);
  };
  proto.unregister = function (this: FinalizationRegistry<unknown>, token: WeakKey) {
    alive.delete(token);
    return unregister.call(this, token);
  };
  try {
    fn();
  } finally {
    proto.register = register;
    proto.unregister = unregister;
  }
  return alive.size;
}

/** A contract state holding the counter: what `counterIncrement` builds its transcript against. */
function withCounter(kit: LedgerKit): { state: L.LedgerState; address: string } {
  const deploy = counterDeploy(kit);
  const initial = deploy.initialState;
  const data = initial.data;
  const state = kit.L.LedgerState.blank('undeployed').updateIndex(deploy.address, data, new Map());
  return { state, address: deploy.address };
}

for (const era of ERAS) {
  const kit = kitFor(era);
  const { L } = kit;
  const params = L.LedgerParameters.initialParameters();
  const prover = new MockProver('undeployed', kit);
  registerCounterCircuit(prover);
  const signer = new Actor(new Uint8Array(32).fill(11), kit);
  const other = new Actor(new Uint8Array(32).fill(12), kit);
  const finalized = (spec: Omit<TxSpec, 'signer'>): Promise<AnyTx> =>
    buildFinalized({ signer, ...spec }, { kit, networkId: 'undeployed', params, time: TIME, prover }) as Promise<AnyTx>;

  /** The effects, checked field by field against `want`, with a positive decimal fee. */
  function expectEffects(t: Test, tx: AnyTx, want: Partial<TxEffects>, what: string): TxEffects {
    const effects = effectsOf(era, tx, params);
    const { userFee, ...rest } = effects;
    t.strictSame(rest, { ...NONE, ...want }, `${what}: effects`);
    t.match(userFee, /^[1-9][0-9]*$/, `${what}: the user's fee is a positive decimal`);
    return effects;
  }

  t.test(`ledger ${era}: an unshielded NIGHT transfer`, async (t) => {
    const user = freshUser(5, era);
    const utxo: L.Utxo = { owner: user.address, type: L.nativeToken().raw, value: 10n * STAR_PER_NIGHT, intentHash: 'cd'.repeat(32), outputNo: 1 };
    const unproven = transferFrom(user, utxo, other.address, STAR_PER_NIGHT) as AnyTx;
    t.match(user.address, /^[0-9a-f]{64}$/, "the signer's address is 64 lower-case hex, as the indexer shows it");
    const effects = expectEffects(t, unproven, { unshielded: true, owners: [user.address] }, 'unproven');
    t.equal(BigInt(effects.userFee!), unproven.fees(params), "the fee is the ledger's own at the prices given");
    t.strictSame(effectsOf(era, unproven, params), effects, 'the transaction is left whole: read again, the same effects');

    const proven = unproven.mockProve() as AnyTx;
    expectEffects(t, proven, { unshielded: true, owners: [user.address] }, 'proven, unbound');

    const bound = await finalized({ inputs: [utxoOf(signer)], outputs: [{ owner: other.address, type: NIGHT_TOKEN, value: STAR_PER_NIGHT }] });
    expectEffects(t, bound, { unshielded: true, owners: [signer.address] }, 'proven and bound');
  });

  t.test(`ledger ${era}: owners are every input's, distinct and sorted; outputs alone move tokens too`, async (t) => {
    const intent = L.Intent.new(TTL);
    intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new([other.toSpend(utxoOf(other, 5n, 0)), signer.toSpend(utxoOf(signer, 5n, 1))], [], []);
    intent.fallibleUnshieldedOffer = L.UnshieldedOffer.new([other.toSpend(utxoOf(other, 5n, 2))], [], []);
    const tx = L.Transaction.fromParts('undeployed', undefined, undefined, intent) as AnyTx;
    expectEffects(t, tx, { unshielded: true, owners: [signer.address, other.address].sort() }, 'two owners over both sections');

    const outputsOnly = L.Intent.new(TTL);
    outputsOnly.fallibleUnshieldedOffer = L.UnshieldedOffer.new([], [{ owner: other.address, type: NIGHT_TOKEN, value: 1n }], []);
    expectEffects(t, L.Transaction.fromParts('undeployed', undefined, undefined, outputsOnly) as AnyTx, { unshielded: true }, 'outputs only: no owner');

    const emptyOffer = L.Intent.new(TTL);
    emptyOffer.guaranteedUnshieldedOffer = L.UnshieldedOffer.new([], [], []);
    expectEffects(t, L.Transaction.fromParts('undeployed', undefined, undefined, emptyOffer) as AnyTx, {}, 'an empty offer moves nothing');
  });

  t.test(`ledger ${era}: a contract deploy`, async (t) => {
    const deploy = counterDeploy(kit);
    const address = deploy.address;
    t.match(address, /^[0-9a-f]{64}$/, 'the ledger names contracts by 64 lower-case hex digits');
    const unproven = L.Transaction.fromParts('undeployed', undefined, undefined, L.Intent.new(TTL).addDeploy(deploy)) as AnyTx;
    expectEffects(t, unproven, { deploys: [address] }, 'unproven');

    const again = counterDeploy(kit);
    const bound = await finalized({ deploy: again });
    expectEffects(t, bound, { deploys: [again.address] }, 'proven and bound');
  });

  t.test(`ledger ${era}: a contract call`, async (t) => {
    const { state, address } = withCounter(kit);
    const call = counterIncrement(kit, state, address);
    if (!call) throw new Error('the counter is not in the state');
    const unproven = L.Transaction.fromParts('undeployed', undefined, undefined, L.Intent.new(TTL).addCall(call)) as AnyTx;
    expectEffects(t, unproven, { calls: [{ address, entryPoint: COUNTER_ENTRY_POINT }] }, 'unproven');

    const bound = await finalized({ call: counterIncrement(kit, state, address)! });
    expectEffects(t, bound, { calls: [{ address, entryPoint: 'increment' }] }, 'proven and bound');
  });

  t.test(`ledger ${era}: calls in segment order, entry points as bytes, maintenance updates`, async (t) => {
    const empty: L.AlignedValue = { value: [], alignment: [] };
    const op = new L.ContractOperation();
    const prototype = (address: string, entryPoint: string | Uint8Array) =>
      new L.ContractCallPrototype(address, entryPoint, op, undefined, undefined, [], empty, empty, L.communicationCommitmentRandomness(), 'test/circuit');
    const a = '0a'.repeat(32);
    const b = 'b7'.repeat(32);
    const first = L.Intent.new(TTL)
      .addCall(prototype(b.toUpperCase(), new Uint8Array([0xff, 0x00, 0x10])))
      .addCall(prototype(b, new TextEncoder().encode('tällen')));
    const second = L.Intent.new(TTL)
      .addCall(prototype(a, 'increment'))
      .addMaintenanceUpdate(new L.MaintenanceUpdate(a, [], 0n));
    // The later segment is added first: the effects list calls by segment, not by insertion.
    const tx = L.Transaction.fromParts('undeployed').addIntent({ tag: 'specific', value: 3 }, second).addIntent({ tag: 'specific', value: 2 }, first) as AnyTx;
    expectEffects(
      t,
      tx,
      {
        calls: [
          { address: b, entryPoint: '0xff0010' },
          { address: b, entryPoint: 'tällen' },
          { address: a, entryPoint: 'increment' },
        ],
        maintenance: [a],
      },
      'two segments',
    );
  });

  t.test(`ledger ${era}: a DUST registration`, async (t) => {
    const dustKey = L.DustSecretKey.fromSeed(new Uint8Array(32).fill(13));
    const registration = new L.DustRegistration<L.SignatureEnabled>('signature', signer.verifyingKey, dustKey.publicKey, 0n);
    const intent = L.Intent.new(TTL);
    intent.dustActions = new L.DustActions<L.SignatureEnabled, L.PreProof>('signature', 'pre-proof', TIME, [], [registration]);
    const unproven = L.Transaction.fromParts('undeployed', undefined, undefined, intent) as AnyTx;
    expectEffects(t, unproven, { dustRegistrations: 1 }, 'unproven');

    const bound = await finalized({
      registration: { dustPublicKey: dustKey.publicKey, allowFeePayment: 0n },
      inputs: [utxoOf(signer)],
      outputs: [{ owner: signer.address, type: NIGHT_TOKEN, value: 10n * STAR_PER_NIGHT }],
    });
    expectEffects(t, bound, { dustRegistrations: 1, unshielded: true, owners: [signer.address] }, 'proven and bound, with the NIGHT it registers');
  });

  t.test(`ledger ${era}: shielded offers, guaranteed and fallible`, async (t) => {
    const unproven = shieldedTx(1n, era) as AnyTx;
    expectEffects(t, unproven, { shielded: true }, 'a guaranteed Zswap offer, unproven');
    expectEffects(t, unproven.mockProve() as AnyTx, { shielded: true }, 'proven');

    const keys = L.ZswapSecretKeys.fromSeed(new Uint8Array(32).fill(14));
    const coin = L.createShieldedCoinInfo(L.shieldedToken().raw, 1n);
    const offer = L.ZswapOffer.fromOutput(L.ZswapOutput.new(coin, 1, keys.coinPublicKey, keys.encryptionPublicKey));
    const fallible = L.Transaction.fromParts('undeployed', undefined, offer, L.Intent.new(TTL)) as AnyTx;
    t.equal(fallible.guaranteedOffer, undefined, 'no guaranteed offer');
    expectEffects(t, fallible, { shielded: true }, 'a fallible Zswap offer only');
  });

  t.test(`ledger ${era}: every ledger object read is freed`, async (t) => {
    const { state, address } = withCounter(kit);
    const dustKey = L.DustSecretKey.fromSeed(new Uint8Array(32).fill(15));
    const zswap = shieldedTx(1n, era);
    const spec: Omit<TxSpec, 'signer'> = {
      call: counterIncrement(kit, state, address)!,
      registration: { dustPublicKey: dustKey.publicKey, allowFeePayment: 0n },
      inputs: [utxoOf(signer)],
      outputs: [{ owner: other.address, type: NIGHT_TOKEN, value: 10n * STAR_PER_NIGHT }],
      zswap: zswap.guaranteedOffer as L.UnprovenOffer,
    };
    const bound = await finalized(spec);
    const effects = expectEffects(
      t,
      bound,
      { calls: [{ address, entryPoint: 'increment' }], unshielded: true, shielded: true, dustRegistrations: 1, owners: [signer.address] },
      'a transaction of every kind',
    );
    t.ok(leftAlive(() => bound.intents) > 0, 'the count sees an object read and not freed');
    t.equal(
      leftAlive(() => effectsOf(era, bound, params)),
      0,
      'proven and bound: nothing left alive',
    );
    t.strictSame(effectsOf(era, bound, params), effects, 'and the transaction is intact');
    const fallible = L.Transaction.fromParts(
      'undeployed',
      undefined,
      zswap.guaranteedOffer,
      L.Intent.new(TTL)
        .addDeploy(counterDeploy(kit))
        .addMaintenanceUpdate(new L.MaintenanceUpdate(address, [], 0n)),
    ) as AnyTx;
    t.equal(
      leftAlive(() => effectsOf(era, fallible, params)),
      0,
      'unproven, with a fallible offer, a deploy and a maintenance update: nothing left alive',
    );
  });

  t.test(`ledger ${era}: a transaction with no effect`, async (t) => {
    const tx = L.Transaction.fromParts('undeployed', undefined, undefined, L.Intent.new(TTL)) as AnyTx;
    const effects = effectsOf(era, tx, params);
    t.strictSame(effects, { ...NONE, userFee: tx.fees(params).toString() }, 'nothing but its fee');
  });
}
