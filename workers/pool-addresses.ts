/** Task `poolAddresses`: the NIGHT address of each server wallet (packages/ledger/src/wallet-keys.ts), and NIGHT's token type. */
import { encodeUnshieldedAddress, nightSecretOf, ledger } from '../src/infra/ledger/index.js';
import type { WalletAddress } from '../src/features/sponsorship/pool-task.js';
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
