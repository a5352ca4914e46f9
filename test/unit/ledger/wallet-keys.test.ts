// Server wallets derived as Midnight's wallets derive them: the keys at account a, index i of the
// roles NightExternal and Dust, from a BIP-39 mnemonic. Checked against the HD package itself and
// against an address read off Midnight Preview for the same mnemonic.
import { createHash } from 'node:crypto';
import t from 'tap';
import { HDWallet, Roles } from '@midnight-ntwrk/wallet-sdk-hd';
import { DustAddress } from '@midnight-ntwrk/wallet-sdk-address-format';
import { mnemonicToSeedSync } from '@scure/bip39';
import { ledger } from '../../../packages/ledger/src/index.js';
import { encodeDustAddress, encodeUnshieldedAddress } from '../../../packages/ledger/src/address.js';
import { dustSeedOf, isWalletKeys, legacyWalletKeys, nightSecretOf } from '../../../packages/ledger/src/wallet-keys.js';
import { MnemonicError, hdSeedFromHex, hdWalletKeys, mnemonicSeed } from '../../../packages/ledger/src/hd-wallets.js';

const MNEMONIC = `${'abandon '.repeat(23)}art`;

function packageKey(mnemonic: string, account: number, role: (typeof Roles)[keyof typeof Roles], index: number): string {
  const made = HDWallet.fromSeed(mnemonicToSeedSync(mnemonic));
  if (made.type !== 'seedOk') throw new Error('seed refused');
  const k = made.hdWallet.selectAccount(account).selectRole(role).deriveKeyAt(index);
  if (k.type !== 'keyDerived') throw new Error('out of bounds');
  return Buffer.from(k.key).toString('hex');
}

function nightAddress(keys: string): string {
  const L = ledger(9);
  return L.addressFromKey(L.signatureVerifyingKey(L.signingKeyFromBip340(nightSecretOf(keys))));
}

t.test("wallet i holds the package's NightExternal and Dust keys at (account, i)", async (t) => {
  for (const account of [0, 3]) {
    const wallets = hdWalletKeys(mnemonicSeed(MNEMONIC), account, 3);
    t.equal(wallets.length, 3);
    wallets.forEach((w, i) => {
      t.ok(isWalletKeys(w));
      t.equal(dustSeedOf(w), packageKey(MNEMONIC, account, Roles.Dust, i), `account ${account} wallet ${i}: DUST seed`);
      t.equal(
        Buffer.from(nightSecretOf(w)).toString('hex'),
        packageKey(MNEMONIC, account, Roles.NightExternal, i),
        `account ${account} wallet ${i}: NIGHT key`,
      );
    });
    t.equal(new Set(wallets).size, 3, 'each index its own keys');
  }
});

t.test('the NIGHT addresses match the ones a Midnight wallet shows for the same mnemonic', async (t) => {
  const [w0, w1] = hdWalletKeys(mnemonicSeed(MNEMONIC), 0, 2);
  // Read off Midnight Preview for this mnemonic, empty passphrase, account 0, NightExternal.
  t.equal(nightAddress(w0!), '2d8c83c0c382c91f67fbde88dd1d7c27823192505a8753e7a14a92d5b4e2aa02');
  t.equal(encodeUnshieldedAddress(nightAddress(w0!), 'preview'), 'mn_addr_preview19kxg8sxrsty37elmm6yd68tuy7prryjst2r48eapf2fdtd8z4gpq8xczf2');
  t.equal(nightAddress(w1!), '0e9e447735f494245083fd7290ae984ba2098c82b1c31e8036f7eae55f73b6c2');
});

t.test("the DUST address is what Midnight's address format encodes for the key", async (t) => {
  const L = ledger(9);
  for (const w of hdWalletKeys(mnemonicSeed(MNEMONIC), 0, 2)) {
    const pk = L.DustSecretKey.fromSeed(Buffer.from(dustSeedOf(w), 'hex')).publicKey;
    for (const net of ['preview', 'preprod', 'mainnet', 'undeployed']) {
      t.equal(encodeDustAddress(pk, net), DustAddress.encodePublicKey(net, pk), `${net}`);
    }
    t.match(encodeDustAddress(pk, 'preview'), /^mn_dust_preview1/);
  }
});

t.test('a seed in hex derives what its mnemonic derives', async (t) => {
  const seed = Buffer.from(mnemonicToSeedSync(MNEMONIC)).toString('hex');
  t.same(hdWalletKeys(hdSeedFromHex(seed), 0, 2), hdWalletKeys(mnemonicSeed(MNEMONIC), 0, 2));
  t.same(hdWalletKeys(hdSeedFromHex(seed.toUpperCase()), 0, 1), hdWalletKeys(mnemonicSeed(MNEMONIC), 0, 1));
  t.throws(() => hdSeedFromHex('ab'.repeat(32)), /64 bytes/);
});

t.test('a mnemonic is read as BIP-39 reads it, and refused without quoting it', async (t) => {
  t.same(mnemonicSeed(`  ${MNEMONIC.replaceAll(' ', '\n  ')}\n`), mnemonicSeed(MNEMONIC), 'white space and line breaks');
  t.same(mnemonicSeed(MNEMONIC.toUpperCase()), mnemonicSeed(MNEMONIC), 'case');
  const bad = [`${'abandon '.repeat(23)}abandon`, `${'abandon '.repeat(22)}art`, `${'abandon '.repeat(23)}zzzz`];
  for (const m of bad) {
    const err = t.throws(() => mnemonicSeed(m)) as Error;
    t.type(err, MnemonicError);
    t.notMatch(err.message, /abandon|zzzz|art/, 'no word of the mnemonic in the message');
  }
});

t.test("legacy wallets keep nightgate's own derivation", async (t) => {
  const seed = 'c3'.repeat(32);
  const w = legacyWalletKeys(seed.toUpperCase());
  t.equal(dustSeedOf(w), seed);
  t.equal(
    Buffer.from(nightSecretOf(w)).toString('hex'),
    createHash('sha256').update('nightgate-wallet-night\0').update(Buffer.from(seed, 'hex')).digest('hex'),
  );
  t.throws(() => legacyWalletKeys('c3'), /32 bytes/);
  t.throws(() => nightSecretOf('c3'.repeat(32)), /128/);
});
