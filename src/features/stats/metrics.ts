/**
 * The statistics module's /metrics series, per network: its follower (chain height, block and
 * data age, subscription, reconnects, indexer errors), whether the statistics are served fresh,
 * whether the chain itself is (derive.ts, `isStale`), and the lookup cache. Set at scrape time
 * from each network's health report.
 */
import type { MetricsCollector } from '../../infra/app-context.js';
import { NETWORKS, isEmbedded } from '../../core/config/index.js';
import { ScrapedSeries, setCount, setGauge } from '../../infra/metrics/scraped-series.js';
import type { StatsComponent } from './component.js';

export const collectStats: MetricsCollector = (ctx) => {
  const series = new ScrapedSeries(ctx.metrics);
  const height = series.gauge('nightgate_chain_height', 'Height of the newest block the follower holds', ['network', 'source']);
  const devnetHeight = series.gauge('nightgate_devnet_height', 'Height of the embedded devnet chain (as followed)', ['network']);
  const blockAge = series.gauge('nightgate_indexer_block_age_seconds', 'Age of the newest block the follower holds (its timestamp to now)', ['network']);
  const dataAge = series.gauge('nightgate_indexer_data_age_seconds', 'Seconds since the indexer last answered the follower', ['network']);
  const subscribed = series.gauge('nightgate_indexer_subscription_connected', "1 while the follower's block subscription is connected", ['network']);
  const statsUp = series.gauge('nightgate_stats_up', "1 when the network's statistics are served from a healthy follower (0: starting, degraded or down)", [
    'network',
  ]);
  const stale = series.gauge(
    'nightgate_stats_stale',
    '1 while the derived statistics routes answer X-Cache: STALE (the follower holds blocks but the indexer is failing)',
    ['network'],
  );
  const chainStale = series.gauge(
    'nightgate_chain_stale',
    '1 while the newest block is 10 block times old or older (the network is degraded, not ready, and not sponsored)',
    ['network'],
  );
  const reconnects = series.counter('nightgate_indexer_reconnects_total', "Times the follower's subscription was lost and reopened", ['network']);
  const upstreamErrors = series.counter('nightgate_indexer_errors_total', 'Failed exchanges of the follower with the indexer', ['network']);
  const cacheLookups = series.counter(
    'nightgate_cache_lookups_total',
    'Lookup cache decisions (block, transaction, contract, search, address routes): hit, miss, stale (an expired answer served because the indexer failed)',
    ['network', 'result'],
  );
  const cacheEntries = series.gauge('nightgate_cache_entries', 'Entries in the lookup cache', ['network']);

  ctx.metrics.onScrape(() => {
    series.reset();
    for (const n of NETWORKS) {
      const h = ctx.component<StatsComponent>(`stats:${n}`)?.health();
      if (h === undefined || h.status === 'disabled') continue;
      const net = { network: n };
      if (h.latestHeight !== null) {
        const embedded = isEmbedded(ctx.config, n);
        height.set({ ...net, source: embedded ? 'devnet' : 'indexer' }, h.latestHeight);
        if (embedded) devnetHeight.set(net, h.latestHeight);
      }
      setGauge(blockAge, net, h.latestBlockAgeSeconds);
      setGauge(dataAge, net, h.dataAgeSeconds);
      subscribed.set(net, h.subscription === 'connected' ? 1 : 0);
      statsUp.set(net, h.status === 'ok' ? 1 : 0);
      stale.set(net, h.status === 'degraded' && !h.upstreamOk ? 1 : 0);
      chainStale.set(net, h.stale === null ? 0 : 1);
      setCount(reconnects, net, h.reconnects);
      setCount(upstreamErrors, net, h.upstreamErrors);
      setCount(cacheLookups, { ...net, result: 'hit' }, h.cache.hits);
      setCount(cacheLookups, { ...net, result: 'miss' }, h.cache.misses);
      setCount(cacheLookups, { ...net, result: 'stale' }, h.cache.stale);
      cacheEntries.set(net, h.cache.entries);
    }
  });
};
