/**
 * The server wallets the configuration names (packages/ledger/src/wallet-keys.ts):
 * - `hd` (default): wallets 0 … `dust.walletCount` − 1 of `dust.walletAccount`, from
 *   `dust.walletMnemonic`, the file `dust.walletMnemonicFile`, or the 64-byte `dust.walletSeed`;
 * - `legacy`: one wallet per `dust.walletSeeds` entry;
 * - neither set: none here (on an embedded network the app takes the devnet's generated ones).
 * The same wallets serve every network (an address is the same key on each chain).
 */
import { readFileSync } from 'node:fs';
import { ConfigError, openSecretFile, type Config } from '../../core/config/index.js';
import { MnemonicError, hdSeedFromHex, hdWalletKeys, mnemonicSeed } from '@nightgate/ledger/hd-wallets';
import { legacyWalletKeys, type WalletKeys } from '@nightgate/ledger/wallet-keys';

function readSecretFile(path: string, setting: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`invalid setting ${setting}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const open = openSecretFile(path);
  if (open) throw new ConfigError(`invalid setting ${setting}: ${open}`);
  return text;
}

/** The configured wallets, or undefined when none is configured (the devnet generates its own). */
export function configuredWallets(config: Config): WalletKeys[] | undefined {
  const d = config.dust;
  if (d.walletDerivation === 'legacy') return d.walletSeeds.length > 0 ? d.walletSeeds.map(legacyWalletKeys) : undefined;
  let seed: Uint8Array;
  try {
    if (d.walletSeed !== '') seed = hdSeedFromHex(d.walletSeed);
    else if (d.walletMnemonic !== '') seed = mnemonicSeed(d.walletMnemonic);
    else if (d.walletMnemonicFile !== '') seed = mnemonicSeed(readSecretFile(d.walletMnemonicFile, 'dust.walletMnemonicFile'));
    else return undefined;
  } catch (err) {
    if (err instanceof MnemonicError)
      throw new ConfigError(
        `invalid setting ${
          d.walletMnemonic !== '' ? 'dust.walletMnemonic (NIGHTGATE_DUST_WALLET_MNEMONIC)' : `dust.walletMnemonicFile (${d.walletMnemonicFile}` + `)`
        }` + `: ${err.message}`,
      );
    throw err;
  }
  return hdWalletKeys(seed, d.walletAccount, d.walletCount);
}
