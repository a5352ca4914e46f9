/**
 * DEV BACKEND ONLY — mock-shaped proofs, so the whole flow runs offline on the embedded devnet.
 *
 * A dev proof is exactly what the era's `Transaction.mockProve()` puts in the proof's place for
 * the same circuit (`midnight:proof-versioned:` + a fixed pattern of the real proof's size). It is
 * never produced here by hand: each worker learns the bytes once per era and circuit by
 * mock-proving a small sample transaction with that era's ledger. A transaction proven with these (`tx.prove(provider)`) deserializes,
 * binds (`bind()`) and has the fees of a really proven one; it never verifies.
 *
 * The ledger can mock only its built-in circuits ("cannot mock prove non-builtin circuit"), so
 * neither can the dev backend: a contract circuit gets DEV_PROVER_UNSUPPORTED_CIRCUIT.
 */
import { GatewayError } from '../../../core/errors.js';
import { DEFAULT_ERA, type Era, type L as LT } from '../../ledger/index.js';
import { L as ledgerOf } from '../../pool/worker/ledger.js';

const NET = 'undeployed';
const ZSWAP_SPEND = 'midnight/zswap/spend';
const ZSWAP_OUTPUT = 'midnight/zswap/output';
const DUST_SPEND = 'midnight/dust/spend';

type Shapes = ReadonlyMap<string, Uint8Array>;

/** One offer with a shielded input and output: the zswap spend and output shapes. */
function zswapShapes(era: Era): Shapes {
  const L = ledgerOf(era);
  const keys = L.ZswapSecretKeys.fromSeed(new Uint8Array(32).fill(7));
  const coin = L.createShieldedCoinInfo(L.shieldedToken().raw, 1n);
  const local = new L.ZswapLocalState().insertCoin(keys, coin);
  const [, input] = local.spend(keys, [...local.coins][0]!, 0);
  const output = L.ZswapOutput.new(coin, 0, keys.coinPublicKey, keys.encryptionPublicKey);
  const offer = L.Transaction.fromParts(NET, L.ZswapOffer.fromInput(input).merge(L.ZswapOffer.fromOutput(output))).mockProve().guaranteedOffer;
  const spend = offer?.inputs[0]?.proof.serialize();
  const out = offer?.outputs[0]?.proof.serialize();
  if (!spend || !out) throw new Error(`ledger ${era} produced no zswap mock proofs`);
  return new Map([
    [ZSWAP_SPEND, spend],
    [ZSWAP_OUTPUT, out],
  ]);
}

function blockContext(t: Date): LT.BlockContext {
  const s = BigInt(Math.floor(t.getTime() / 1000));
  return { secondsSinceEpoch: s, secondsSinceEpochErr: 1, parentBlockHash: '00'.repeat(32), lastBlockTime: s - 1n };
}

/**
 * A DUST spend needs a DUST UTXO, which only a ledger can create: a throw-away blank ledger gives
 * NIGHT to a key, registers it for DUST, and an hour later the generated DUST is spent once.
 * All checks are off: this state only exists to be mock-proven.
 */
function dustShape(era: Era): Shapes {
  const L = ledgerOf(era);
  const lax = new L.WellFormedStrictness();
  lax.enforceBalancing = false;
  lax.enforceLimits = false;
  lax.verifyNativeProofs = false;
  lax.verifyContractProofs = false;
  lax.verifySignatures = false;
  const t0 = new Date('2026-01-01T00:00:00Z');
  const apply = (state: LT.LedgerState, tx: LT.Transaction<LT.Signaturish, LT.Proofish, LT.Bindingish>, t: Date): [LT.LedgerState, LT.Event[]] => {
    const verified = tx.eraseProofs().wellFormed(state, lax, t);
    const [next, result] = state.apply(verified, new L.TransactionContext(state, blockContext(t)));
    if (result.type !== 'success') throw new Error(`dev proof sample: ${result.type}`);
    return [next, result.events];
  };
  const nightSk = L.sampleSigningKey();
  const nightVk = L.signatureVerifyingKey(nightSk);
  const owner = L.addressFromKey(nightVk);
  const dustSk = L.DustSecretKey.fromSeed(new Uint8Array(32).fill(9));
  const amount = 1_000_000_000n;
  let state = L.LedgerState.blank(NET).testingDistributeNight(owner, amount, t0);
  const erased = new L.SignatureErased();
  const claim = new L.ClaimRewardsTransaction(erased.instance, NET, amount, nightVk, '00'.repeat(32), erased);
  [state] = apply(state, L.Transaction.fromRewards(claim), t0);
  const utxo = [...state.utxo.filter(owner)][0];
  if (!utxo) throw new Error('dev proof sample: no NIGHT UTXO');
  const t1 = new Date(t0.getTime() + 60_000);
  const intent = L.Intent.new(new Date(t1.getTime() + 600_000));
  intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new([{ ...utxo, owner: nightVk }], [{ owner, type: utxo.type, value: utxo.value }], []);
  intent.dustActions = new L.DustActions('signature', 'pre-proof', t1, [], [new L.DustRegistration('signature', nightVk, dustSk.publicKey, 0n)]);
  const [, events] = apply(state, L.Transaction.fromParts(NET, undefined, undefined, intent), t1);
  const dust = new L.DustLocalState(state.parameters.dust).replayEvents(dustSk, events);
  const coin = dust.utxos[0];
  if (!coin) throw new Error('dev proof sample: no DUST UTXO');
  const t2 = new Date(t1.getTime() + 3_600_000);
  const [, spend] = dust.spend(dustSk, coin, 1n, t2);
  const feeIntent = L.Intent.new(new Date(t2.getTime() + 600_000));
  feeIntent.dustActions = new L.DustActions('signature', 'pre-proof', t2, [spend], []);
  const proven = L.Transaction.fromParts(NET).addIntent({ tag: 'specific', value: 1 }, feeIntent).mockProve();
  const shape = [...(proven.intents?.values() ?? [])][0]?.dustActions?.spends[0]?.proof.serialize();
  if (!shape) throw new Error(`ledger ${era} produced no DUST mock proof`);
  return new Map([[DUST_SPEND, shape]]);
}

const learners: Record<string, (era: Era) => Shapes> = { [ZSWAP_SPEND]: zswapShapes, [ZSWAP_OUTPUT]: zswapShapes, [DUST_SPEND]: dustShape };
const learned: Record<Era, Map<string, Uint8Array>> = { 8: new Map(), 9: new Map() };

/** The mock-shaped proof (`midnight:proof-versioned:` …) of a built-in circuit in an era; learned on first use. */
export function devProof(keyLocation: string, era: Era = DEFAULT_ERA): Uint8Array {
  const known = learned[era];
  let proof = known.get(keyLocation);
  if (!proof) {
    const learn = learners[keyLocation];
    if (!learn) {
      throw new GatewayError(
        'DEV_PROVER_UNSUPPORTED_CIRCUIT',
        `the dev prover mock-proves only the ledger's built-in circuits (${Object.keys(learners).join(', ')}` +
          `); ${keyLocation}` +
          ` needs a real prover (upstream, native or wasm backend)`,
      );
    }
    for (const [loc, bytes] of learn(era)) known.set(loc, bytes);
    proof = known.get(keyLocation)!;
  }
  return proof;
}
