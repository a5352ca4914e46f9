/**
 * The NIGHT side of a server wallet. One seed (`dust.walletSeeds`, or the devnet's generated ones)
 * gives both keys: its DUST secret key (`DustSecretKey.fromSeed(seed)`), which pays fees, and the
 * BIP-340 key of the NIGHT address whose UTXOs generate that DUST, derived here. The pool keeper
 * signs with the NIGHT key when it splits the wallet's NIGHT into more DUST-generating UTXOs
 * (src/features/sponsorship/pool-keeper.ts), and the embedded devnet funds that address at genesis.
 * No ledger import: the devnet and the workers both derive it the same way.
 */
import { createHash } from 'node:crypto';

const NIGHT_DOMAIN = 'nightgate-wallet-night\0';

/** 32-byte BIP-340 secret of the NIGHT address that backs the wallet with seed `seedHex`. */
export function nightSecretOf(seedHex: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(NIGHT_DOMAIN).update(Buffer.from(seedHex, 'hex')).digest());
}
