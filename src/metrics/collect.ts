/**
 * The state gauges of /metrics, set at scrape time from what the components already keep:
 * followers (stats:<network>), the worker pool, the provers, the sponsorship service with its
 * allocator tables, sync status and pool keepers. Nothing here runs between scrapes.
 */
import { Counter, Gauge } from 'prom-client';
import type { AppContext, Component } from '../app-context.js';
import { NETWORKS, isEmbedded } from '../config.js';
// Types only: the modules are loaded by the app, not by the metrics.
import type { NetworkStats } from '../stats/network-stats.js';
import type { ProverComponent, WorkerPoolComponent } from '../prover/index.js';
import type { SponsorshipComponent } from '../dust/index.js';
import type { Metrics } from './metrics.js';

type Labels = Record<string, string>;

export interface CollectorSources {
  ctx: AppContext;
  /** Requests in flight on the HTTP server. */
  inFlight(): number;
  /** API keys known now: active and revoked. */
  keys(): { active: number; revoked: number };
}

export function installCollectors(metrics: Metrics, src: CollectorSources): void {
  const gauges: Array<Gauge<string>> = [];
  const counters: Array<Counter<string>> = [];
  const gauge = (name: string, help: string, labelNames: string[] = []): Gauge<string> => {
    const g = new Gauge({ name, help, labelNames, registers: [metrics.registry] });
    gauges.push(g);
    return g;
  };
  /** A count the component keeps itself (it only grows): exposed as a counter, set at scrape. */
  const counter = (name: string, help: string, labelNames: string[] = []): Counter<string> => {
    const c = new Counter({ name, help, labelNames, registers: [metrics.registry] });
    counters.push(c);
    return c;
  };
  const setCount = (c: Counter<string>, labels: Labels, v: number | undefined | null): void => {
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) c.inc(labels, v);
  };
  const setGauge = (g: Gauge<string>, labels: Labels, v: number | undefined | null): void => {
    if (typeof v === 'number' && Number.isFinite(v)) g.set(labels, v);
  };

  const inFlight = gauge('nightgate_http_requests_in_flight', 'Requests being answered now');
  const keys = gauge('nightgate_api_keys', 'API keys known now, by state', ['state']);

  // Followers and lookup caches, per network.
  const height = gauge('nightgate_chain_height', 'Height of the newest block the follower holds', ['network', 'source']);
  const devnetHeight = gauge('nightgate_devnet_height', 'Height of the embedded devnet chain (as followed)', ['network']);
  const blockAge = gauge('nightgate_indexer_block_age_seconds', 'Age of the newest block the follower holds (its timestamp to now)', ['network']);
  const dataAge = gauge('nightgate_indexer_data_age_seconds', 'Seconds since the indexer last answered the follower', ['network']);
  const subscribed = gauge('nightgate_indexer_subscription_connected', '1 while the follower\'s block subscription is connected', ['network']);
  const statsUp = gauge('nightgate_stats_up', '1 when the network\'s statistics are served from a healthy follower (0: starting, degraded or down)', ['network']);
  const stale = gauge('nightgate_stats_stale', '1 while the derived statistics routes answer X-Cache: STALE (the follower holds blocks but the indexer is failing)', ['network']);
  const reconnects = counter('nightgate_indexer_reconnects_total', 'Times the follower\'s subscription was lost and reopened', ['network']);
  const upstreamErrors = counter('nightgate_indexer_errors_total', 'Failed exchanges of the follower with the indexer', ['network']);
  const cacheLookups = counter('nightgate_cache_lookups_total', 'Lookup cache decisions (block, transaction, contract, search, address routes): hit, miss, stale (an expired answer served because the indexer failed)', ['network', 'result']);
  const cacheEntries = gauge('nightgate_cache_entries', 'Entries in the lookup cache', ['network']);

  // Worker pool.
  const poolThreads = gauge('nightgate_worker_pool_threads', 'Worker threads alive');
  const poolMax = gauge('nightgate_worker_pool_threads_max', 'Worker threads configured (prover.threads)');
  const poolBusy = gauge('nightgate_worker_pool_busy_threads', 'Worker threads running a task now');
  const poolUtil = gauge('nightgate_worker_pool_utilization_ratio', 'Busy thread time over available thread time since start, 0-1 (rate of busy time: busy_threads over threads_max)');
  const poolTasks = counter('nightgate_worker_pool_tasks_total', 'Worker pool tasks by outcome: completed, failed, crashed', ['outcome']);
  const poolEnded = counter('nightgate_worker_pool_threads_replaced_total', 'Worker threads ended while serving (crash, abandoned task) and replaced');

  // Provers.
  const proverUp = gauge('nightgate_prover_up', '1 when the network\'s prover answers its readiness probe (proof servers) or is in-process', ['network', 'backend']);
  const queueDepth = gauge('nightgate_proving_queue_depth', 'Proving work waiting for a worker thread (dev, wasm: the shared pool, balance tasks included) or a proof-server connection (upstream, native)', ['backend']);
  const queueCap = gauge('nightgate_proving_queue_capacity', 'Work that may wait before 503 QUEUE_FULL (prover.queueSize)', ['backend']);
  const proofCache = counter('nightgate_proof_cache_results_total', 'Proof result cache decisions: hit, miss, shared (joined an identical computation in flight)', ['result']);
  const proofCacheBytes = gauge('nightgate_proof_cache_bytes', 'Bytes held by the proof result cache');

  // DUST pool and sponsorship.
  const utxos = gauge('nightgate_dust_utxos', 'Server DUST UTXOs in the allocator table, by state', ['network', 'state']);
  const walletUtxos = gauge('nightgate_dust_wallet_utxos', 'Server DUST UTXOs per wallet, by state', ['network', 'wallet', 'state']);
  const balance = gauge('nightgate_dust_balance_speck', 'Spendable DUST of all server wallets of the network, SPECK', ['network']);
  const walletBalance = gauge('nightgate_dust_wallet_balance_speck', 'Spendable DUST per server wallet, SPECK', ['network', 'wallet']);
  const target = gauge('nightgate_dust_pool_target_utxos', 'dust.targetUtxos: DUST UTXOs the pool keeper grows to (0: never)', ['network']);
  const live = gauge('nightgate_dust_pool_live_utxos', 'DUST UTXOs held now, free or reserved (the keeper\'s count)', ['network']);
  const keeperFailing = gauge('nightgate_dust_pool_keeper_failing', '1 while the pool keeper cannot grow the pool (state failing or unavailable)', ['network']);
  const pendingSplits = gauge('nightgate_dust_pool_pending_splits', 'Pool splits submitted and not yet landed or expired', ['network']);
  const splits = counter('nightgate_dust_pool_splits_total', 'Pool keeper splits, by outcome: submitted, failed', ['network', 'outcome']);
  const keeperFailures = counter('nightgate_dust_pool_keeper_failures_total', 'Pool keeper failures, each failed split and each round failed before splitting, by reason: no-dust (no free DUST UTXO for a split\'s fee), no-night (nothing left to split), submit-refused, sponsorship (its sponsorship refused otherwise), error', ['network', 'reason']);
  const keeperConsecutive = gauge('nightgate_dust_pool_keeper_consecutive_failures', 'Pool keeper rounds failed in a row (0 once a round submits a split)', ['network']);
  const synced = gauge('nightgate_dust_sync_synced', '1 when the server DUST wallets of the network have synced (sponsorship answers WALLET_SYNCING otherwise)', ['network']);
  const behind = gauge('nightgate_dust_sync_events_behind', 'DUST events the sync has still to replay (indexer\'s latest id minus the last replayed)', ['network']);
  const inFlightSponsor = gauge('nightgate_sponsorships_in_flight', 'Sponsorships being computed now');

  metrics.onScrape(async () => {
    const { ctx } = src;
    const prover = ctx.component<ProverComponent>('prover');
    // The one wait (the proof servers' readiness probes, reused for 3 s) comes first: from the
    // reset on, everything is set in one synchronous pass, so a concurrent scrape never sees (or
    // doubles) half-set series.
    const missing = prover ? await Promise.resolve(prover.ready?.() ?? []).catch(() => NETWORKS.map((n) => `prover:${n}: probe failed`)) : [];
    for (const g of gauges) g.reset();
    for (const c of counters) c.reset();
    inFlight.set(src.inFlight());
    const k = src.keys();
    keys.set({ state: 'active' }, k.active);
    keys.set({ state: 'revoked' }, k.revoked);

    for (const n of NETWORKS) {
      const s = ctx.component<NetworkStats & Component>(`stats:${n}`);
      if (!s || !('follower' in s)) continue;
      const h = s.health() as unknown as Record<string, unknown> & { cache: { entries: number; hits: number; misses: number; stale: number } };
      const embedded = isEmbedded(ctx.config, n);
      const tip = h['latestHeight'] as number | null;
      if (tip !== null) {
        height.set({ network: n, source: embedded ? 'devnet' : 'indexer' }, tip);
        if (embedded) devnetHeight.set({ network: n }, tip);
      }
      setGauge(blockAge, { network: n }, h['latestBlockAgeSeconds'] as number | null);
      setGauge(dataAge, { network: n }, h['dataAgeSeconds'] as number | null);
      subscribed.set({ network: n }, h['subscription'] === 'connected' ? 1 : 0);
      statsUp.set({ network: n }, h['status'] === 'ok' ? 1 : 0);
      stale.set({ network: n }, h['status'] === 'degraded' ? 1 : 0);
      setCount(reconnects, { network: n }, h['reconnects'] as number);
      setCount(upstreamErrors, { network: n }, h['upstreamErrors'] as number);
      setCount(cacheLookups, { network: n, result: 'hit' }, h.cache.hits);
      setCount(cacheLookups, { network: n, result: 'miss' }, h.cache.misses);
      setCount(cacheLookups, { network: n, result: 'stale' }, h.cache.stale);
      cacheEntries.set({ network: n }, h.cache.entries);
    }

    const pool = ctx.component<WorkerPoolComponent>('worker-pool');
    const ph = pool?.health();
    if (ph) {
      poolThreads.set(ph.threads);
      poolMax.set(ph.maxThreads);
      poolBusy.set(ph.running);
      poolUtil.set(ph.utilization);
      setCount(poolTasks, { outcome: 'completed' }, ph.completed);
      setCount(poolTasks, { outcome: 'failed' }, ph.failed);
      setCount(poolTasks, { outcome: 'crashed' }, ph.crashed);
      setCount(poolEnded, {}, ph.threadsEnded);
    }

    if (prover) {
      const seen = new Set<string>();
      for (const n of NETWORKS) {
        const b = prover.backend(n);
        if (!b) continue;
        proverUp.set({ network: n, backend: b.name }, missing.some((m) => m.startsWith(`prover:${n}:`)) ? 0 : 1);
        if (seen.has(b.name)) continue;
        seen.add(b.name);
        if ((b.name === 'dev' || b.name === 'wasm') && ph) {
          queueDepth.set({ backend: b.name }, ph.queueSize);
          queueCap.set({ backend: b.name }, ph.maxQueue);
        } else {
          const bh = b.health() as { waiting?: number; maxQueue?: number };
          setGauge(queueDepth, { backend: b.name }, bh.waiting);
          setGauge(queueCap, { backend: b.name }, bh.maxQueue);
        }
      }
      const cache = (prover.health() as { cache?: { hits: number; misses: number; shared: number; bytes?: number } }).cache;
      if (cache) {
        setCount(proofCache, { result: 'hit' }, cache.hits);
        setCount(proofCache, { result: 'miss' }, cache.misses);
        setCount(proofCache, { result: 'shared' }, cache.shared);
        setGauge(proofCacheBytes, {}, cache.bytes);
      }
    }

    const service = ctx.component<SponsorshipComponent>('sponsorship')?.service;
    if (service) {
      inFlightSponsor.set(service.stats().inFlight);
      const status = service.status() as Record<string, StatusOfNetwork>;
      for (const [n, s] of Object.entries(status)) {
        const net = { network: n };
        utxos.set({ ...net, state: 'free' }, s.utxos.free);
        utxos.set({ ...net, state: 'reserved' }, s.utxos.reserved);
        utxos.set({ ...net, state: 'spent' }, s.utxos.spent);
        balance.set(net, Number(s.balance));
        for (const w of s.wallets) walletBalance.set({ ...net, wallet: String(w.index) }, Number(w.balance));
        synced.set(net, s.sync.phase === 'synced' ? 1 : 0);
        if (typeof s.sync.maxId === 'number' && typeof s.sync.eventId === 'number') behind.set(net, Math.max(0, s.sync.maxId - s.sync.eventId));
        if (s.pool) {
          target.set(net, s.pool.target);
          live.set(net, s.pool.live);
          keeperFailing.set(net, s.pool.maintenance.state === 'failing' || s.pool.maintenance.state === 'unavailable' ? 1 : 0);
          pendingSplits.set(net, s.pool.maintenance.pendingSplits);
          setCount(splits, { ...net, outcome: 'submitted' }, s.pool.maintenance.splitsSubmitted);
          setCount(splits, { ...net, outcome: 'failed' }, s.pool.maintenance.splitsFailed);
          const failures = service.keeper(n as never)?.failureCounts();
          if (failures) {
            for (const [reason, count] of Object.entries(failures.byReason)) setCount(keeperFailures, { ...net, reason }, count);
            keeperConsecutive.set(net, failures.consecutive);
          }
        } else {
          target.set(net, 0);
        }
        // Per wallet and state: one pass over the slots in use (scrape time only).
        const table = service.network(n as never)?.table;
        if (table) {
          const per = new Map<number, { free: number; reserved: number; spent: number }>();
          const used = table.snapshot().slotsInUse;
          for (let slot = 0; slot < used; slot++) {
            const e = table.slotEntry(slot);
            if (!e) continue;
            let c = per.get(e.walletIndex);
            if (!c) per.set(e.walletIndex, (c = { free: 0, reserved: 0, spent: 0 }));
            c[e.state]++;
          }
          for (const w of s.wallets) if (!per.has(w.index)) per.set(w.index, { free: 0, reserved: 0, spent: 0 });
          for (const [w, c] of per) for (const state of ['free', 'reserved', 'spent'] as const) walletUtxos.set({ ...net, wallet: String(w), state }, c[state]);
        }
      }
    }
  });
}

interface StatusOfNetwork {
  sync: { phase: string; eventId?: number; maxId?: number };
  balance: string;
  wallets: Array<{ index: number; balance: string; utxos: number }>;
  utxos: { free: number; reserved: number; spent: number; total: number };
  pool: null | { target: number; live: number; maintenance: { state: string; pendingSplits: number; splitsSubmitted: number; splitsFailed: number } };
}
