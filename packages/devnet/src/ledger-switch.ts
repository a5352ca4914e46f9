// A network runs ledger 9 (as every public network), or ledger 8, and can switch from 8 to 9 at a
// configured height (network.ts). The packages hold no state migration, so the switch starts a
// fresh ledger-9 state: block H re-mints the genesis accounts and the server wallets' NIGHT (same
// seeds, same addresses), the setup blocks after it register them for DUST again, and every
// ledger-8 UTXO the indexer still shows unspent is shown spent by block H's first transaction.
// Blocks, hashes and record ids continue; records before H keep their ledger-8 bytes and protocol
// version.
import { LEDGER_PACKAGES } from '@nightgate/ledger';
import type { BlockBundle } from './indexer-records.js';
import type { LedgerKit } from './ledger-kit.js';

/**
 * Between the blocks of the switch to ledger 9 (the fresh genesis and its DUST registrations): the
 * registrations' fee allowance is the DUST their NIGHT generated meanwhile, a few DUST a second for
 * the smallest genesis UTXO, so the chain runs only this little ahead of the clock.
 */
export const SWITCH_SETUP_BLOCK_MS = 2_000;

/**
 * Shows `keys` spent by the block's first transaction: the ledger-8 UTXOs a switch leaves behind,
 * which the fresh ledger-9 state does not hold, so no wallet picks them to spend.
 */
export function retireUtxos(bundle: BlockBundle, keys: string[]): void {
  const first = bundle.transactions[0];
  if (!first) return;
  for (const key of keys) bundle.spentUtxos.push({ key, transactionId: first.id });
  first.spentUtxoKeys.push(...keys);
}

/** Where ledger 9 starts on a network, for a refused submission's reason. */
export function switchNote(ledger9From: number | undefined, plannedSwitch: number): string {
  if (ledger9From !== undefined && ledger9From > 0) return ` (ledger 9 from height ${ledger9From} on)`;
  if (plannedSwitch > 0) return ` until height ${plannedSwitch}, ledger 9 from there`;
  return '';
}

/** The ledger part of a network's `/health`: the era it runs, its package and its switch to ledger 9. */
export function ledgerReport(kit: LedgerKit, ledger9From: number | undefined, plannedSwitch: number): object {
  const { era, protocolVersion } = kit;
  const pkg = LEDGER_PACKAGES[era];
  const switched = ledger9From !== undefined && ledger9From > 0;
  return {
    era,
    protocolVersion,
    package: `${pkg.name}@${pkg.version}${pkg.prerelease ? ' (release candidate: the newest reachable)' : ''}`,
    ledger9AtHeight: ledger9From ?? (plannedSwitch || null),
    ...(switched || plannedSwitch > 0
      ? {
          switch: switched ? 'done' : 'planned',
          ledger9State:
            'fresh: no state migration exists between the ledger packages, so ledger 9 starts from a new state that re-funds the ' +
            'genesis accounts and the server DUST wallets (same keys, same addresses); blocks before the switch keep their ledger-8 ' +
            'bytes',
        }
      : {}),
  };
}
