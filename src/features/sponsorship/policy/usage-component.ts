/**
 * The usage ledger (usage.ts) as the app's component, and the key's Prometheus counters read from it.
 */
import type { Component, ComponentHealth, MetricsCollector } from '../../../infra/app-context.js';
import { ScrapedSeries, setCount } from '../../../infra/metrics/scraped-series.js';
import type { UsageLedger } from './usage.js';

export const USAGE_COMPONENT = 'usage';

/** What the app registers so /health shows the ledger and the counters find it. */
export interface UsageComponent extends Component {
  readonly ledger: UsageLedger;
}

export function usageComponent(ledger: UsageLedger): UsageComponent {
  return {
    name: USAGE_COMPONENT,
    ledger,
    health: (): ComponentHealth => ({ status: 'ok', ...ledger.stats() }),
    close: async () => ledger.close(),
  };
}

/** `nightgate_key_sponsorships_total{key,outcome}` and `nightgate_key_sponsored_dust_speck_total{key}`, from the usage component. */
export const collectUsage: MetricsCollector = (ctx) => {
  const series = new ScrapedSeries(ctx.metrics);
  const sponsorships = series.counter(
    'nightgate_key_sponsorships_total',
    "Sponsorships per API key id by outcome: sponsored, expired (answered, reclaimed unspent), or the refusal's policy rule or error code",
    ['key', 'outcome'],
  );
  const dust = series.counter(
    'nightgate_key_sponsored_dust_speck_total',
    'DUST fees of the sponsorships answered per API key id, SPECK (an expired one\'s fee included: see outcome="expired")',
    ['key'],
  );
  ctx.metrics.onScrape(() => {
    series.reset();
    const ledger = ctx.component<UsageComponent>(USAGE_COMPONENT)?.ledger;
    if (ledger === undefined) return;
    for (const c of ledger.counters()) {
      for (const [outcome, n] of c.outcomes) setCount(sponsorships, { key: c.keyId, outcome }, n);
      setCount(dust, { key: c.keyId }, Number(c.dust));
    }
  });
};
