/** One network's sponsorship state as /wallet-status and /health show it. */
import type { BacklogStatus } from './admission/backlog.js';
import type { PoolKeeper } from './pool/pool-keeper.js';
import type { SponsoredNetwork } from './common/sponsored-network.js';
import type { DustSyncHost } from './wallets/sync-host.js';

/** Balance, UTXO counts, sync state, fee prices, the backlog of unlanded answers, the pool keeper's state. */
export function networkStatus(
  n: SponsoredNetwork,
  syncHost: DustSyncHost,
  reclaimTimers: number,
  keeper: PoolKeeper | undefined,
  backlog: BacklogStatus,
): Record<string, unknown> {
  const sync = syncHost.status(n.name);
  const counts = n.table.counts();
  return {
    sync: sync
      ? { phase: sync.phase, era: sync.era ?? null, eraSwitches: sync.eraSwitches, eventId: sync.eventId, maxId: sync.maxId, lastError: sync.lastError ?? null }
      : { phase: 'starting', failure: syncHost.failure(n.name) ?? null },
    balance: sync?.balance ?? '0',
    balanceUnit: 'SPECK',
    wallets: walletsOf(sync?.wallets ?? [], keeper),
    walletsReadAt: keeper?.wallets().readAt ?? null,
    fees: sync?.fees ?? null,
    utxos: { free: counts.free, reserved: counts.reserved, spent: counts.spent, total: counts.total },
    reclaimTimers,
    backlog,
    walletStateBytes: n.snapshot.length,
    prover: n.prover.backend,
    pool: keeper?.status() ?? null,
  };
}

/**
 * Each wallet's DUST (from the sync) beside its addresses, NIGHT and registration (from the
 * keeper's reads), and in a word what it lacks: `no NIGHT`, `unregistered`, or null.
 */
function walletsOf(dust: ReadonlyArray<{ index: number; balance: string; utxos: number }>, keeper: PoolKeeper | undefined): Array<Record<string, unknown>> {
  const held = keeper?.wallets().wallets ?? [];
  const count = Math.max(dust.length, held.length);
  return Array.from({ length: count }, (_, index) => {
    const d = dust.find((w) => w.index === index);
    const h = held.find((w) => w.index === index);
    const problem = h === undefined ? null : h.nightUtxos === 0 ? 'no NIGHT' : h.registered ? null : 'unregistered';
    return {
      index,
      balance: d?.balance ?? '0',
      utxos: d?.utxos ?? 0,
      ...(h
        ? {
            address: h.address,
            dustAddress: h.dustAddress,
            night: h.night,
            nightUtxos: h.nightUtxos,
            idleNightUtxos: h.idleNightUtxos,
            registered: h.registered,
            problem,
          }
        : {}),
    };
  });
}
