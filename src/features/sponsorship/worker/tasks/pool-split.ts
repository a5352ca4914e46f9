/**
 * Task `poolSplit`: for each given NIGHT UTXO of a server wallet, an unproven transaction signed
 * by the wallet's NIGHT key that spends it into `outputs` equal UTXOs back to the same address.
 * The address is registered for DUST generation, so every output generates DUST of its own: the
 * wallet gains DUST UTXOs, and so the pool gains sponsorships per block. The ledger lets a
 * transaction create about three DUST-generating outputs (LEDGER.md, "An embedded ledger": limits met). The fee is
 * added by the ordinary sponsorship path, like any user's.
 */
import { GatewayError } from '../../../../core/errors.js';
import { nightSecretOf, ledger, signOffer, release as freeLedger } from '../../../../infra/ledger/index.js';
import { defineTask } from '../../../../infra/pool/worker/task.js';

/** The segment `Transaction.fromParts` puts its one intent in. */
const SEGMENT = 1;

export const poolSplit = defineTask<'poolSplit'>(async (args): Promise<Uint8Array[]> => {
  const L = ledger(args.era);
  const night = L.nativeToken().raw;
  const out: Uint8Array[] = [];
  for (const { wallet, utxo } of args.splits) {
    const seed = args.seeds[wallet];
    if (!seed) throw new GatewayError('INTERNAL', `no server wallet ${wallet}`);
    const sk = L.signingKeyFromBip340(nightSecretOf(seed));
    const vk = L.signatureVerifyingKey(sk);
    const address = L.addressFromKey(vk);
    const value = BigInt(utxo.value);
    const share = value / BigInt(args.outputs);
    if (share === 0n) throw new GatewayError('INTERNAL', `a UTXO of ${value} STAR cannot be split in ${args.outputs}`);
    const outputs = Array.from({ length: args.outputs }, (_, i) => ({
      owner: address,
      type: night,
      value: i === 0 ? value - share * BigInt(args.outputs - 1) : share,
    }));
    const intent = L.Intent.new(new Date(args.ttl));
    intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new(
      [{ value, owner: vk, type: night, intentHash: utxo.intentHash, outputNo: utxo.outputIndex }],
      outputs,
      [],
    );
    const tx = L.Transaction.fromParts(args.networkId, undefined, undefined, intent);
    // `intents` hands out copies: sign the copy and write it back (LEDGER.md "Building transactions").
    const signed = tx.intents?.get(SEGMENT);
    const offer = signed?.guaranteedUnshieldedOffer;
    if (!signed || !offer) throw new GatewayError('INTERNAL', 'the split lost its intent');
    const withSignature = signOffer(args.era, offer, [L.signData(sk, signed.signatureData(SEGMENT))]);
    signed.guaranteedUnshieldedOffer = withSignature;
    tx.intents = tx.intents?.set(SEGMENT, signed);
    out.push(tx.serialize());
    freeLedger(tx, intent, signed, offer, withSignature);
  }
  return out;
});
