/**
 * A wallet backend's user: a NIGHT key of its own and an unproven, signed NIGHT transfer from one
 * of its UTXOs (no DUST fee: that is what sponsorship adds), in the ledger era of the network
 * the run targets. The era's ledger is loaded once per process and shared by every client
 * (LEDGER.md: ≈ 85 MB and 100 ms per load).
 */
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_ERA,
  ledger as ledgerOf,
  signOffer,
  type Era,
  type L as Ledger,
  type Ledger as LedgerPackage,
  encodeUnshieldedAddress,
} from '../../src/infra/ledger/index.js';

/** An era's ledger package and the era it is (signatures are wrapped in ledger 9). */
export type LedgerModule = LedgerPackage & { readonly era: Era };

/** The segment `Transaction.fromParts` puts its one intent in. */
const SEGMENT = 1;

export async function ledger(era: Era = DEFAULT_ERA): Promise<LedgerModule> {
  return { ...ledgerOf(era), era };
}

export interface NightWallet {
  seedHex: string;
  sk: Ledger.SigningKey;
  vk: Ledger.SignatureVerifyingKey;
  address: Ledger.UserAddress;
  /** Bech32m unshielded address for the network id, as the indexer and the faucet write it. */
  bech32: string;
}

/** A spendable NIGHT UTXO of a wallet, as the indexer lists it. */
export interface NightUtxo {
  value: bigint;
  intentHash: string;
  outputIndex: number;
}

export function walletFromSeed(L: LedgerModule, seedHex: string, networkId: string): NightWallet {
  const sk = L.signingKeyFromBip340(new Uint8Array(Buffer.from(seedHex, 'hex')));
  const vk = L.signatureVerifyingKey(sk);
  const address = L.addressFromKey(vk);
  return { seedHex, sk, vk, address, bech32: encodeUnshieldedAddress(address, networkId) };
}

/** A new random user; retried in the rare case the bytes are not a valid BIP-340 secret key. */
export function freshWallet(L: LedgerModule, networkId: string): NightWallet {
  for (;;) {
    try {
      return walletFromSeed(L, randomBytes(32).toString('hex'), networkId);
    } catch {}
  }
}

/**
 * Sends `amount` STAR from `utxo` to `to` and the rest back to the wallet (the change the next
 * transfer spends), signed, unproven: the body of `/prove-and-balance`. Distinct amounts give
 * distinct bytes (the server answers the same bytes once).
 */
export function unprovenTransfer(
  L: LedgerModule,
  wallet: NightWallet,
  utxo: NightUtxo,
  to: Ledger.UserAddress,
  amount: bigint,
  networkId: string,
  ttlMs: number,
): Uint8Array {
  if (utxo.value <= amount) throw new Error(`the UTXO holds ${utxo.value} STAR, not more than the ${amount} to send`);
  const night = L.nativeToken().raw;
  const intent = L.Intent.new(new Date(Math.floor((Date.now() + ttlMs) / 1000) * 1000));
  intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new(
    [{ value: utxo.value, owner: wallet.vk, type: night, intentHash: utxo.intentHash, outputNo: utxo.outputIndex }],
    [
      { owner: to, type: night, value: amount },
      { owner: wallet.address, type: night, value: utxo.value - amount },
    ],
    [],
  );
  const tx = L.Transaction.fromParts(networkId, undefined, undefined, intent);
  // `tx.intents` hands out copies: sign the copy and write it back (LEDGER.md "Building transactions").
  const signed = tx.intents?.get(SEGMENT);
  const offer = signed?.guaranteedUnshieldedOffer;
  if (!signed || !offer) throw new Error('the transfer lost its intent');
  signed.guaranteedUnshieldedOffer = signOffer(L.era, offer, [L.signData(wallet.sk, signed.signatureData(SEGMENT))]);
  tx.intents = tx.intents?.set(SEGMENT, signed);
  return tx.serialize();
}
