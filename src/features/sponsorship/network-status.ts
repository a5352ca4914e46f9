/** One network's sponsorship state as /wallet-status and /health show it. */
import type { PoolKeeper } from './pool-keeper.js';
import type { SponsoredNetwork } from './sponsored-network.js';
import type { DustSyncHost } from './sync-host.js';

/** Balance, UTXO counts, sync state, fee prices, the pool keeper's state. */
export function networkStatus(n: SponsoredNetwork, syncHost: DustSyncHost, reclaimTimers: number, keeper: PoolKeeper | undefined): Record<string, unknown> {
  const sync = syncHost.status(n.name);
  const counts = n.table.counts();
  return {
    sync: sync ? { phase: sync.phase, era: sync.era ?? null, eraSwitches: sync.eraSwitches, eventId: sync.eventId, maxId: sync.maxId, lastError: sync.lastError ?? null } : { phase: 'starting', failure: syncHost.failure(n.name) ?? null },
    balance: sync?.balance ?? '0',
    balanceUnit: 'SPECK',
    wallets: sync?.wallets ?? [],
    fees: sync?.fees ?? null,
    utxos: { free: counts.free, reserved: counts.reserved, spent: counts.spent, total: counts.total },
    reclaimTimers,
    walletStateBytes: n.snapshot.length,
    prover: n.prover.backend,
    pool: keeper?.status() ?? null,
  };
}
