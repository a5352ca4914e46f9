/**
 * The sponsorship module's /metrics series, per network with server wallets: DUST UTXOs by state
 * (in all and per wallet), balances, the wallets' sync, the backlog of unlanded answers and how
 * answers ended, and the pool keeper; and the sponsorships being computed. Set at scrape time; the per-wallet counts take one pass over the allocator's
 * slots in use.
 */
import type { MetricsCollector } from '../../infra/app-context.js';
import { NETWORKS } from '../../core/config/index.js';
import { ScrapedSeries, setCount } from '../../infra/metrics/scraped-series.js';
import type { DustAllocatorTable } from './allocator/allocator.js';
import type { SPONSORSHIP_COMPONENT, SponsorshipComponent } from './component.js';
import type { SyncStatus } from './wallets/wallet-sync.js';

// The component's name, checked against the module's constant without loading the module.
const SPONSORSHIP: typeof SPONSORSHIP_COMPONENT = 'sponsorship';

/**
 * What `SponsorshipService.status()` says of a network's sync: that method returns its report
 * untyped (it is /health's as is), so its sync part is named here from the sync's own type.
 */
interface SyncReport {
  sync: Pick<SyncStatus, 'phase'> & Partial<Pick<SyncStatus, 'eventId' | 'maxId'>>;
  balance: SyncStatus['balance'];
  wallets: SyncStatus['wallets'];
}

/** The states of a slot holding a UTXO (the allocator's `counts()` and `slotEntry().state`). */
const STATES = ['free', 'reserved', 'spent'] as const;
type StateCounts = Record<(typeof STATES)[number], number>;

/** UTXOs per wallet and state, in one pass over the slots in use; every wallet listed, if only with zeros. */
function utxosPerWallet(table: DustAllocatorTable, wallets: readonly number[]): Map<number, StateCounts> {
  const per = new Map<number, StateCounts>();
  const used = table.snapshot().slotsInUse;
  for (let slot = 0; slot < used; slot++) {
    const e = table.slotEntry(slot);
    if (!e) continue;
    let c = per.get(e.walletIndex);
    if (!c) per.set(e.walletIndex, (c = { free: 0, reserved: 0, spent: 0 }));
    c[e.state]++;
  }
  for (const w of wallets) if (!per.has(w)) per.set(w, { free: 0, reserved: 0, spent: 0 });
  return per;
}

export const collectSponsorship: MetricsCollector = (ctx) => {
  const series = new ScrapedSeries(ctx.metrics);
  const utxos = series.gauge('nightgate_dust_utxos', 'Server DUST UTXOs in the allocator table, by state', ['network', 'state']);
  const walletUtxos = series.gauge('nightgate_dust_wallet_utxos', 'Server DUST UTXOs per wallet, by state', ['network', 'wallet', 'state']);
  const balance = series.gauge('nightgate_dust_balance_speck', 'Spendable DUST of all server wallets of the network, SPECK', ['network']);
  const walletBalance = series.gauge('nightgate_dust_wallet_balance_speck', 'Spendable DUST per server wallet, SPECK', ['network', 'wallet']);
  const target = series.gauge('nightgate_dust_pool_target_utxos', 'dust.targetUtxos: DUST UTXOs the pool keeper grows to (0: never)', ['network']);
  const live = series.gauge('nightgate_dust_pool_live_utxos', "DUST UTXOs held now, free or reserved (the keeper's count)", ['network']);
  const keeperFailing = series.gauge('nightgate_dust_pool_keeper_failing', '1 while the pool keeper cannot grow the pool (state failing or unavailable)', [
    'network',
  ]);
  const pendingSplits = series.gauge('nightgate_dust_pool_pending_splits', 'Pool splits submitted and not yet landed or expired', ['network']);
  const splits = series.counter('nightgate_dust_pool_splits_total', 'Pool keeper splits, by outcome: submitted, failed', ['network', 'outcome']);
  const keeperFailures = series.counter(
    'nightgate_dust_pool_keeper_failures_total',
    'Pool keeper failures, each failed split and each round failed before splitting, by reason: no-dust (no free DUST UTXO ' +
      "for a split's fee), no-night (nothing left to split), submit-refused, sponsorship (its sponsorship refused otherwise), " +
      'error',
    ['network', 'reason'],
  );
  const keeperConsecutive = series.gauge(
    'nightgate_dust_pool_keeper_consecutive_failures',
    'Pool keeper rounds failed in a row (0 once a round submits a split)',
    ['network'],
  );
  const synced = series.gauge(
    'nightgate_dust_sync_synced',
    '1 when the server DUST wallets of the network have synced (sponsorship answers WALLET_SYNCING otherwise)',
    ['network'],
  );
  const behind = series.gauge('nightgate_dust_sync_events_behind', "DUST events the sync has still to replay (indexer's latest id minus the last replayed)", [
    'network',
  ]);
  const inFlight = series.gauge('nightgate_sponsorships_in_flight', 'Sponsorships being computed now');
  const backlogBlocks = series.gauge(
    'nightgate_dust_backlog_blocks',
    "Blocks that this server's answered sponsorships not yet landed fill (past nightgate_dust_backlog_limit_blocks: 503 SPONSOR_BACKLOG_FULL)",
    ['network'],
  );
  const backlogLimit = series.gauge('nightgate_dust_backlog_limit_blocks', 'Blocks of backlog a new fee intent outlives', ['network']);
  const outcomes = series.counter(
    'nightgate_dust_answers_total',
    'Answered sponsorships by how they ended: landed, or expired (the fee intent expired before the transaction landed)',
    ['network', 'outcome'],
  );

  ctx.metrics.onScrape(() => {
    series.reset();
    const service = ctx.component<SponsorshipComponent>(SPONSORSHIP)?.service;
    if (!service) return;
    inFlight.set(service.stats().inFlight);
    const status = service.status();
    for (const n of NETWORKS) {
      const s = status[n] as SyncReport | undefined;
      if (s === undefined) continue;
      const net = { network: n };
      balance.set(net, Number(s.balance));
      for (const w of s.wallets) walletBalance.set({ ...net, wallet: String(w.index) }, Number(w.balance));
      synced.set(net, s.sync.phase === 'synced' ? 1 : 0);
      if (s.sync.maxId !== undefined && s.sync.eventId !== undefined) behind.set(net, Math.max(0, s.sync.maxId - s.sync.eventId));
      const keeper = service.keeper(n);
      if (keeper) {
        const pool = keeper.status();
        target.set(net, pool.target);
        live.set(net, pool.live);
        keeperFailing.set(net, pool.maintenance.state === 'failing' || pool.maintenance.state === 'unavailable' ? 1 : 0);
        pendingSplits.set(net, pool.maintenance.pendingSplits);
        setCount(splits, { ...net, outcome: 'submitted' }, pool.maintenance.splitsSubmitted);
        setCount(splits, { ...net, outcome: 'failed' }, pool.maintenance.splitsFailed);
        const failures = keeper.failureCounts();
        for (const [reason, count] of Object.entries(failures.byReason)) setCount(keeperFailures, { ...net, reason }, count);
        keeperConsecutive.set(net, failures.consecutive);
      } else {
        target.set(net, 0);
      }
      const sponsored = service.network(n);
      if (sponsored) {
        const b = service.backlogOf(sponsored);
        backlogBlocks.set(net, b.blocks);
        backlogLimit.set(net, b.limitBlocks);
        setCount(outcomes, { ...net, outcome: 'landed' }, b.landed);
        setCount(outcomes, { ...net, outcome: 'expired' }, b.expiredUnlanded);
      }
      const table = sponsored?.table;
      if (table) {
        const counts = table.counts();
        for (const state of STATES) utxos.set({ ...net, state }, counts[state]);
        for (const [w, c] of utxosPerWallet(
          table,
          s.wallets.map((w) => w.index),
        )) {
          for (const state of STATES) walletUtxos.set({ ...net, wallet: String(w), state }, c[state]);
        }
      }
    }
  });
};
