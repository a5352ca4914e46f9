// The well-known test user of each embedded network. DEVNET-ONLY KEYS: their secrets are public
// (anyone can derive them from the network name), so they must never hold value anywhere else.
// Genesis funds the account with NIGHT in three UTXOs, registers them for DUST generation to the
// account's own DUST key, and mints it shielded coins, so tests and benchmarks can build
// NIGHT transfers, pay their fees with their own DUST and make shielded transfers.
//
// Use with ledger-v8:
//   signing key:  L.signingKeyFromBip340(hexToBytes(account.nightSeed))
//   DUST key:     L.DustSecretKey.fromSeed(hexToBytes(account.dustSeed))
//   Zswap keys:   L.ZswapSecretKeys.fromSeed(hexToBytes(account.zswapSeed))
// This module does not import the ledger, so the main thread can read it without loading WASM.
import { bytesToHex, deriveSeed } from './keys.js';

interface DevnetTestAccount {
  /** 32-byte hex BIP-340 secret of the NIGHT owner. */
  nightSeed: string;
  /** 32-byte hex seed of the account's DUST secret key. */
  dustSeed: string;
  /** 32-byte hex seed of the account's Zswap (shielded) keys. */
  zswapSeed: string;
}

/** NIGHT given to the test account at genesis, in STAR (3 UTXOs of a third each). */
export const TEST_ACCOUNT_NIGHT_STAR = 3_000_000n * 1_000_000n;

const TEST_ROOT = 'nightgate devnet public test account';

export function devnetTestAccount(networkName: string): DevnetTestAccount {
  const root = `${TEST_ROOT}:${networkName}`;
  return {
    nightSeed: bytesToHex(deriveSeed(root, 'night')),
    dustSeed: bytesToHex(deriveSeed(root, 'dust')),
    zswapSeed: bytesToHex(deriveSeed(root, 'zswap')),
  };
}
