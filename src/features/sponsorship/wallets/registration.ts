/**
 * A server wallet's DUST-generation registration, as Midnight's wallets build one: one intent that
 * spends one of the wallet's NIGHT UTXOs back to the same address and registers its NIGHT key to
 * its DUST address. From then on every NIGHT output of that key generates DUST for the wallet (the
 * UTXOs it holds already do once they are spent again: the pool keeper's splits do that). A fresh
 * wallet has no DUST, so the fee is drawn from the registration's allowance: the DUST its NIGHT
 * input would have generated since it was created (`allowFeePayment`). One input and one output
 * keep it within the ledger's time to dismiss a transaction of its size (three and three are not).
 * Nothing in it needs a zero-knowledge proof; it is signed by the NIGHT key and bound.
 */
import { GatewayError } from '../../../core/errors.js';
import { dustSeedOf, ledger, nightSecretOf, provingProvider, release, signOffer, type Era, type L, type WalletKeys } from '../../../infra/ledger/index.js';

/** Segment of the one intent `Transaction.fromParts` makes. */
const SEGMENT = 1;
/** Fee margin in blocks (an exponent of the per-block price rise) the allowance must also cover. */
const FEE_MARGIN_BLOCKS = 3;
const FEE_ROUNDS = 4;

export interface RegistrationUtxo {
  /** STAR, decimal. */
  value: string;
  intentHash: string;
  outputIndex: number;
  /** When it was created, seconds since the epoch (the indexer's `ctime`). */
  ctime: number;
}

interface RegistrationArgs {
  era: Era;
  networkId: string;
  wallet: WalletKeys;
  /** The NIGHT UTXO to register by: one (the largest is best, it pays the most allowance). */
  utxos: readonly [RegistrationUtxo];
  /** The tip's `LedgerParameters`, serialized (the indexer's `block { ledgerParameters }`). */
  ledgerParameters: Uint8Array;
  /** Now, ms since the epoch: the registration's time, and its intent lives `ttlMs` beyond it. */
  now: number;
  ttlMs: number;
}

interface Registration {
  tx: Uint8Array;
  txHash: string;
  /** The fee, drawn from the allowance (SPECK). */
  fee: bigint;
  allowance: bigint;
}

/** No proof is asked for a registration; a prover that is called says so. */
const NO_PROVER = provingProvider({
  check: async () => {
    throw new GatewayError('INTERNAL', 'a registration asked for a proof');
  },
  prove: async () => {
    throw new GatewayError('INTERNAL', 'a registration asked for a proof');
  },
});

export async function buildRegistration(args: RegistrationArgs): Promise<Registration> {
  const L = ledger(args.era);
  const sk = L.signingKeyFromBip340(nightSecretOf(args.wallet));
  const vk = L.signatureVerifyingKey(sk);
  const owner = L.addressFromKey(vk);
  const night = L.nativeToken().raw;
  const dustKey = L.DustSecretKey.fromSeed(Buffer.from(dustSeedOf(args.wallet), 'hex'));
  const dustPk = dustKey.publicKey;
  const params = L.LedgerParameters.deserialize(args.ledgerParameters);
  const dustParams = params.dust;
  const time = new Date(Math.floor(args.now / 1000) * 1000);
  const allowance = args.utxos.reduce(
    (sum, u) =>
      sum + L.updatedValue(new Date(u.ctime * 1000), 0n, { value: BigInt(u.value), owner: dustPk, nonce: '0'.repeat(64), dtime: undefined }, time, dustParams),
    0n,
  );
  const costModel = params.transactionCostModel;
  const runtime = costModel.runtimeCostModel;
  try {
    let fee = 0n;
    for (let round = 0; round < FEE_ROUNDS; round++) {
      const unproven = assemble(L, args, { sk, vk, owner, night, dustPk, time, allowance });
      const proven = await unproven.prove(NO_PROVER, runtime);
      try {
        fee = proven.feesWithMargin(params, FEE_MARGIN_BLOCKS);
        if (fee > allowance) {
          throw new GatewayError(
            'INVALID_PARAMETER',
            `the NIGHT to register has generated ${allowance}` +
              ` SPECK of DUST allowance since it arrived, and the registration's fee is ${fee}` +
              ` SPECK: wait until it has generated more (more NIGHT generates it faster), then register again`,
          );
        }
        const bound = proven.bind();
        const tx = bound.serialize();
        const txHash = bound.transactionHash();
        release(bound);
        return { tx, txHash, fee, allowance };
      } finally {
        release(unproven, proven);
      }
    }
    throw new GatewayError('INTERNAL', 'the registration fee did not settle');
  } finally {
    release(runtime, costModel, dustParams, params, dustKey);
  }
}

interface Keys {
  sk: L.SigningKey;
  vk: L.SignatureVerifyingKey;
  owner: string;
  night: string;
  dustPk: L.DustPublicKey;
  time: Date;
  allowance: bigint;
}

function assemble(L: ReturnType<typeof ledger>, args: RegistrationArgs, k: Keys): L.UnprovenTransaction {
  const intent = L.Intent.new(new Date(args.now + args.ttlMs));
  const inputs = args.utxos.map((u) => ({ value: BigInt(u.value), owner: k.vk, type: k.night, intentHash: u.intentHash, outputNo: u.outputIndex }));
  const outputs = args.utxos.map((u) => ({ owner: k.owner, type: k.night, value: BigInt(u.value) }));
  const offer = L.UnshieldedOffer.new(inputs, outputs, []);
  intent.guaranteedUnshieldedOffer = offer;
  const unsignedReg = new L.DustRegistration<L.SignatureEnabled>('signature', k.vk, k.dustPk, k.allowance);
  const unsignedActions = new L.DustActions<L.SignatureEnabled, L.PreProof>('signature', 'pre-proof', k.time, [], [unsignedReg]);
  intent.dustActions = unsignedActions;
  const tx = L.Transaction.fromParts(args.networkId, undefined, undefined, intent);
  // `intents` hands out copies: sign the copy and write it back.
  const intents = tx.intents;
  const signed = intents?.get(SEGMENT);
  const signedOffer = signed?.guaranteedUnshieldedOffer;
  if (!intents || !signed || !signedOffer) throw new GatewayError('INTERNAL', 'the registration lost its intent');
  const signature = L.signData(k.sk, signed.signatureData(SEGMENT));
  const withSignatures = signOffer(
    args.era,
    signedOffer,
    args.utxos.map(() => signature),
  );
  signed.guaranteedUnshieldedOffer = withSignatures;
  const enabled = new L.SignatureEnabled(signature);
  const registration = new L.DustRegistration<L.SignatureEnabled>('signature', k.vk, k.dustPk, k.allowance, enabled);
  const actions = new L.DustActions<L.SignatureEnabled, L.PreProof>('signature', 'pre-proof', k.time, [], [registration]);
  signed.dustActions = actions;
  tx.intents = intents.set(SEGMENT, signed);
  release(intent, offer, unsignedReg, unsignedActions, signed, signedOffer, withSignatures, enabled, registration, actions, ...intents.values());
  return tx;
}
