/** Task `poolAddresses`: the NIGHT address of each server wallet (src/infra/ledger/wallet-keys.ts), and NIGHT's token type. */
import { encodeUnshieldedAddress } from '../src/infra/ledger/address.js';
import type { WalletAddress } from '../src/features/sponsorship/pool-task.js';
import { nightSecretOf } from '../src/infra/ledger/wallet-keys.js';
import { ledger } from '../src/infra/ledger/index.js';
import { defineTask } from '../src/infra/pool/worker/task.js';

export const poolAddresses = defineTask<'poolAddresses'>(async (args): Promise<{ nightToken: string; wallets: WalletAddress[] }> => {
  const L = ledger(args.era);
  return {
    nightToken: L.nativeToken().raw,
    wallets: args.seeds.map((seed) => {
      const hex = L.addressFromKey(L.signatureVerifyingKey(L.signingKeyFromBip340(nightSecretOf(seed))));
      return { hex, bech32: encodeUnshieldedAddress(hex, args.networkId) };
    }),
  };
});
