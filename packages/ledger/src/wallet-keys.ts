/**
 * The keys of a server wallet. Each wallet has two secrets:
 * - its DUST seed: `DustSecretKey.fromSeed(seed)` is the key that pays fees;
 * - its NIGHT key: the BIP-340 secret of the unshielded address whose NIGHT generates that DUST,
 *   with which the pool keeper splits NIGHT and the wallet registers it for DUST generation.
 *
 * They come from Midnight's HD scheme (`@midnight-ntwrk/wallet-sdk-hd`): from a BIP-39 mnemonic or
 * its 64-byte seed, wallet i takes the keys at account a, index i, of roles Dust and NightExternal,
 * so a Midnight wallet restored from the same mnemonic sees the same NIGHT address and DUST
 * address. The `legacy` derivation keeps nightgate's earlier one: one 32-byte seed per wallet, the
 * DUST seed itself, and the NIGHT key `sha256("nightgate-wallet-night\0" ‖ seed)`.
 *
 * A wallet's keys travel as one 128-hex string (`WalletKeys`: DUST seed ‖ NIGHT key), to the worker
 * threads and the devnet alike. It is a secret: never logged. The HD derivation itself is in
 * hd-wallets.ts, which only the main thread loads (worker threads are handed the keys).
 */
import { createHash } from 'node:crypto';

/** 128 hex characters: the 32-byte DUST seed, then the 32-byte NIGHT secret key. */
export type WalletKeys = string;

const WALLET_KEYS = /^[0-9a-f]{128}$/;
const LEGACY_SEED = /^[0-9a-fA-F]{64}$/;
const NIGHT_DOMAIN = 'nightgate-wallet-night\0';

export function isWalletKeys(text: string): text is WalletKeys {
  return WALLET_KEYS.test(text);
}

function checked(keys: WalletKeys): WalletKeys {
  if (!isWalletKeys(keys)) throw new TypeError("not a server wallet's keys (128 lowercase hex characters)");
  return keys;
}

/** The DUST seed (hex): what `DustSecretKey.fromSeed` takes. */
export function dustSeedOf(keys: WalletKeys): string {
  return checked(keys).slice(0, 64);
}

/** The 32-byte BIP-340 secret key of the wallet's NIGHT address. */
export function nightSecretOf(keys: WalletKeys): Uint8Array {
  return new Uint8Array(Buffer.from(checked(keys).slice(64), 'hex'));
}

/** A wallet of the `legacy` derivation, from its one 32-byte seed (hex). */
export function legacyWalletKeys(seedHex: string): WalletKeys {
  if (!LEGACY_SEED.test(seedHex)) throw new TypeError('a legacy wallet seed is 32 bytes of hex');
  const seed = seedHex.toLowerCase();
  const night = createHash('sha256').update(NIGHT_DOMAIN).update(Buffer.from(seed, 'hex')).digest('hex');
  return seed + night;
}
