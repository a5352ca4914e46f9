/** Task `poolAddresses`: the NIGHT address of each server wallet (src/dust/wallet-keys.ts), and NIGHT's token type. */
import * as L from '@midnight-ntwrk/ledger-v8';
import { encodeUnshieldedAddress } from '../src/devnet/address.js';
import type { WalletAddress } from '../src/dust/pool-task.js';
import { nightSecretOf } from '../src/dust/wallet-keys.js';
import { defineTask } from './lib/task.js';

export const poolAddresses = defineTask<'poolAddresses'>(async (args): Promise<{ nightToken: string; wallets: WalletAddress[] }> => ({
  nightToken: L.nativeToken().raw,
  wallets: args.seeds.map((seed) => {
    const hex = L.addressFromKey(L.signatureVerifyingKey(L.signingKeyFromBip340(nightSecretOf(seed))));
    return { hex, bech32: encodeUnshieldedAddress(hex, args.networkId) };
  }),
}));
