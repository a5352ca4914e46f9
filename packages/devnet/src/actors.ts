// Who holds value on an embedded network: the treasury (faucet source), the simulated users that
// make the synthetic traffic, the public test account, and the NIGHT owners backing the server's
// sponsor DUST keys. All keys derive from the genesis seed (the test account's from its network
// name, see test-accounts.ts; the sponsors' DUST keys are the caller's). Treasury and users pay
// fees from one shared devnet DUST wallet; users 0 and 1 also hold shielded coins.
import type { L, LedgerKit } from './ledger-kit.js';
import { deriveSeed, hexToBytes } from './keys.js';
import { dustSeedOf, nightSecretOf } from '@nightgate/ledger/wallet-keys';
import { devnetTestAccount } from './test-accounts.js';
import { Actor, DustWallet, ShieldedWallet } from './wallet.js';

const SIMULATED_USERS = 6;
const SHIELDED_USERS = 2;

interface SponsorOwner {
  owner: Actor;
  dustPublicKey: L.DustPublicKey;
}

interface TestAccount {
  owner: Actor;
  dustPublicKey: L.DustPublicKey;
  zswap: L.ZswapSecretKeys;
}

export interface DevnetActors {
  treasury: Actor;
  users: Actor[];
  /** The shielded side of users 0..SHIELDED_USERS-1. */
  shielded: ShieldedWallet[];
  /** Pays every fee of the devnet's own transactions; all treasury and user NIGHT generates into it. */
  dust: DustWallet;
  testAccount: TestAccount;
  sponsors: SponsorOwner[];
}

/**
 * The actors of one era. Keys derive from seeds alone, so the actors of a network's ledger-9 era
 * have the same addresses and DUST public keys as those of its ledger-8 era.
 */
export function createActors(kit: LedgerKit, networkName: string, seed: string, sponsorWallets: string[], params: L.DustParameters): DevnetActors {
  const { L } = kit;
  const test = devnetTestAccount(networkName);
  return {
    treasury: new Actor(deriveSeed(seed, 'treasury/night'), kit),
    users: Array.from({ length: SIMULATED_USERS }, (_, i) => new Actor(deriveSeed(seed, `user-${i}/night`), kit)),
    shielded: Array.from({ length: SHIELDED_USERS }, (_, i) => new ShieldedWallet(deriveSeed(seed, `user-${i}/zswap`), kit)),
    dust: new DustWallet(deriveSeed(seed, 'devnet/dust'), params, kit),
    testAccount: {
      owner: new Actor(hexToBytes(test.nightSeed), kit),
      dustPublicKey: L.DustSecretKey.fromSeed(hexToBytes(test.dustSeed)).publicKey,
      zswap: L.ZswapSecretKeys.fromSeed(hexToBytes(test.zswapSeed)),
    },
    // The NIGHT that backs a server wallet is owned by its NIGHT key
    // (packages/ledger/src/wallet-keys.ts), so nightgate can split it into more DUST-generating
    // UTXOs when its pool runs low.
    sponsors: sponsorWallets.map((wallet) => ({
      owner: new Actor(nightSecretOf(wallet), kit),
      dustPublicKey: L.DustSecretKey.fromSeed(hexToBytes(dustSeedOf(wallet))).publicKey,
    })),
  };
}
