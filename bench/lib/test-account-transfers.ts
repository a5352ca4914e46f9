/**
 * Distinct NIGHT transfers from an embedded network's public test account
 * (packages/devnet/src/test-accounts.ts), for the sponsorship routes. Same bytes are answered once by design (one sponsorship per
 * transaction), so each request needs its own transaction: transfer i sends i+1 STAR to the account
 * itself from one of its genesis UTXOs (round robin) and the rest back as change. They are never
 * submitted, so the UTXOs stay unspent for the next run.
 *   unproven:  signed, not proven        (the body of /prove-and-balance)
 *   finalized: signed, proven and bound  (the body of /balance-only; a NIGHT transfer needs no proof)
 */
import { DEFAULT_ERA, ledger, provingProvider, signOffer, encodeUnshieldedAddress } from '../../src/infra/ledger/index.js';
import { devnetTestAccount } from '@nightgate/devnet/test-accounts';
import { unspentUtxos } from './devnet-utxos.js';
import type { DevnetNetwork } from './scenario.js';

/** The user's intent TTL; the sponsor's fee intent must not outlive it. */
const TTL_MS = 5 * 60 * 1000;
/** The intent a transaction built by `Transaction.fromParts` puts its intent in. */
const SEGMENT = 1;

export type TransferKind = 'unproven' | 'finalized';

export async function testAccountTransfers(net: DevnetNetwork, count: number, kind: TransferKind): Promise<Buffer[]> {
  const era = net.era ?? DEFAULT_ERA;
  const L = ledger(era);
  const account = devnetTestAccount(net.name);
  const signingKey = L.signingKeyFromBip340(new Uint8Array(Buffer.from(account.nightSeed, 'hex')));
  const verifyingKey = L.signatureVerifyingKey(signingKey);
  const address = L.addressFromKey(verifyingKey);
  const night = L.nativeToken().raw;
  const utxos = (await unspentUtxos(net.graphqlWsUrl, encodeUnshieldedAddress(address, net.networkId))).filter((u) => u.tokenType === night);
  if (utxos.length === 0) throw new Error(`the ${net.name} test account has no unspent NIGHT UTXO`);

  const noProof = provingProvider({
    check: async () => [],
    prove: async (_preimage, keyLocation) => {
      throw new Error(`a NIGHT transfer needs no proof, yet ${keyLocation} was asked for`);
    },
  });
  const ttl = new Date(Math.floor((Date.now() + TTL_MS) / 1000) * 1000);
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const utxo = utxos[i % utxos.length] as (typeof utxos)[number];
    const amount = BigInt(i + 1);
    const intent = L.Intent.new(ttl);
    intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new(
      [{ value: utxo.value, owner: verifyingKey, type: night, intentHash: utxo.intentHash, outputNo: utxo.outputIndex }],
      [
        { owner: address, type: night, value: amount },
        { owner: address, type: night, value: utxo.value - amount },
      ],
      [],
    );
    const tx = L.Transaction.fromParts(net.networkId, undefined, undefined, intent);
    // `tx.intents` hands out copies: sign the copy and write it back (LEDGER.md "Building transactions").
    const signed = tx.intents?.get(SEGMENT);
    const offer = signed?.guaranteedUnshieldedOffer;
    if (!signed || !offer) throw new Error('the transfer lost its intent');
    signed.guaranteedUnshieldedOffer = signOffer(era, offer, [L.signData(signingKey, signed.signatureData(SEGMENT))]);
    tx.intents = tx.intents?.set(SEGMENT, signed);
    const bytes = kind === 'unproven' ? tx.serialize() : (await tx.prove(noProof, L.CostModel.initialCostModel())).bind().serialize();
    out.push(Buffer.from(bytes));
  }
  return out;
}
