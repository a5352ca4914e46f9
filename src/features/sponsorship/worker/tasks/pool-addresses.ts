/** Task `poolAddresses`: the NIGHT and DUST addresses of each server wallet (packages/ledger/src/wallet-keys.ts), and NIGHT's token type. */
import { dustSeedOf, encodeDustAddress, encodeUnshieldedAddress, nightSecretOf, ledger, release as freeLedger } from '../../../../infra/ledger/index.js';
import type { WalletAddress } from '../../common/pool-task.js';
import { defineTask } from '../../../../infra/pool/worker/task.js';

export const poolAddresses = defineTask<'poolAddresses'>(async (args): Promise<{ nightToken: string; wallets: WalletAddress[] }> => {
  const L = ledger(args.era);
  return {
    nightToken: L.nativeToken().raw,
    wallets: args.seeds.map((seed) => {
      const hex = L.addressFromKey(L.signatureVerifyingKey(L.signingKeyFromBip340(nightSecretOf(seed))));
      const dustKey = L.DustSecretKey.fromSeed(Buffer.from(dustSeedOf(seed), 'hex'));
      const dust = encodeDustAddress(dustKey.publicKey, args.networkId);
      freeLedger(dustKey);
      return { hex, bech32: encodeUnshieldedAddress(hex, args.networkId), dust };
    }),
  };
});
