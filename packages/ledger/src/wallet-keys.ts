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
 * threads and the devnet alike. It is a secret: never logged.
 */
import { createHash } from 'node:crypto';
import { HDWallet, Roles, validateMnemonic } from '@midnight-ntwrk/wallet-sdk-hd';
import { mnemonicToSeedSync } from '@scure/bip39';

/** 128 hex characters: the 32-byte DUST seed, then the 32-byte NIGHT secret key. */
export type WalletKeys = string;

const WALLET_KEYS = /^[0-9a-f]{128}$/;
const LEGACY_SEED = /^[0-9a-fA-F]{64}$/;
const HD_SEED = /^[0-9a-fA-F]{128}$/;
const NIGHT_DOMAIN = 'nightgate-wallet-night\0';

export function isWalletKeys(text: string): text is WalletKeys {
  return WALLET_KEYS.test(text);
}

function checked(keys: WalletKeys): WalletKeys {
  if (!isWalletKeys(keys)) throw new TypeError('not a server wallet\'s keys (128 lowercase hex characters)');
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

export class MnemonicError extends Error {
  override name = 'MnemonicError';
}

/**
 * The 64-byte BIP-39 seed of a mnemonic (English word list, empty passphrase), as Midnight's
 * wallets compute it. Words may be separated by any white space. The error never quotes a word.
 */
export function mnemonicSeed(mnemonic: string): Uint8Array {
  const words = mnemonic.trim().toLowerCase().split(/\s+/);
  const normal = words.join(' ');
  if (![12, 15, 18, 21, 24].includes(words.length)) throw new MnemonicError(`a BIP-39 mnemonic has 12, 15, 18, 21 or 24 words, not ${words.length}`);
  if (!validateMnemonic(normal)) throw new MnemonicError('the mnemonic is not valid BIP-39 (a word outside the English list, or a bad checksum)');
  return mnemonicToSeedSync(normal);
}

/** A 64-byte seed from its hex form. */
export function hdSeedFromHex(hex: string): Uint8Array {
  if (!HD_SEED.test(hex)) throw new TypeError('an HD wallet seed is 64 bytes of hex');
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/** Wallets 0 … count − 1 of `account`, derived from a 64-byte BIP-39 seed as Midnight's wallets do. */
export function hdWalletKeys(seed: Uint8Array, account: number, count: number): WalletKeys[] {
  const made = HDWallet.fromSeed(seed);
  if (made.type !== 'seedOk') throw new TypeError('the HD wallet refused the seed');
  const hd = made.hdWallet;
  try {
    const acct = hd.selectAccount(account);
    const dust = acct.selectRole(Roles.Dust);
    const night = acct.selectRole(Roles.NightExternal);
    return Array.from({ length: count }, (_, i) => {
      const d = dust.deriveKeyAt(i);
      const n = night.deriveKeyAt(i);
      if (d.type !== 'keyDerived' || n.type !== 'keyDerived') throw new RangeError(`no HD key at account ${account}, index ${i}`);
      return Buffer.from(d.key).toString('hex') + Buffer.from(n.key).toString('hex');
    });
  } finally {
    hd.clear();
  }
}
