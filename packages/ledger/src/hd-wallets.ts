/**
 * Server wallets from a BIP-39 mnemonic or its 64-byte seed through Midnight's HD scheme
 * (`@midnight-ntwrk/wallet-sdk-hd`): wallet i is account a, index i, of roles Dust and NightExternal
 * (wallet-keys.ts). Loaded on the main thread only, where the configuration is read.
 */
import { HDWallet, Roles, validateMnemonic } from '@midnight-ntwrk/wallet-sdk-hd';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { WalletKeys } from './wallet-keys.js';

const HD_SEED = /^[0-9a-fA-F]{128}$/;

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
