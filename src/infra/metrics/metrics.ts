/**
 * nightgate's Prometheus metrics: one prom-client registry per app, never the global one, so
 * several apps in one process (the tests) each count their own. Features register their own
 * series on `registry` and their collectors with `onScrape` (src/features/stats/metrics.ts,
 * src/features/proving/metrics.ts, src/features/sponsorship/metrics.ts); the app wires them.
 *
 * Three kinds of series:
 *  - per request (route × status class, latency by route, error answers by code): counted by
 *    RequestMetrics in typed arrays on the request path, rendered here at scrape time;
 *  - per operation (a sponsorship, a proof, a reload): prom-client counters and histograms
 *    updated once per operation, which costs nothing next to the work itself;
 *  - state (followers, worker pool, provers, DUST pool): gauges set at scrape time from what the
 *    components already keep (collectors registered with `onScrape`), so nothing on any hot path
 *    maintains them.
 * Label sets are bounded: routes, status classes, error codes, networks, backends, wallets,
 * outcome codes, and configured key ids on the per-key usage series (features/sponsorship/policy/usage.ts).
 * No API key, end user, client address or path is ever a label.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { ERRORS, type ErrorCode } from '../../core/errors.js';
import { LATENCY_BUCKETS, RequestMetrics, STATUS_CLASSES } from '../../core/http/request-metrics.js';

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Buckets of proving and sponsorship times, seconds: dev proofs take milliseconds, real ones minutes. */
export const WORK_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** A metric whose samples are computed when scraped (what prom-client's registry reads: `get()`). */
class ScrapedMetric {
  readonly aggregator = 'sum';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram' | 'gauge',
    private readonly samples: () => Sample[],
  ) {}
  get(): { name: string; help: string; type: string; values: Sample[]; aggregator: string } {
    return { name: this.name, help: this.help, type: this.type, values: this.samples(), aggregator: this.aggregator };
  }
  reset(): void {}
}

type ScrapeCollector = () => void | Promise<void>;

export class Metrics {
  readonly registry = new Registry();
  readonly requests: RequestMetrics;
  // The sponsorship counters: src/features/sponsorship/routes.ts and src/features/sponsorship/pool/pool-keeper.ts count into them through `Metrics`.
  /** Sponsorships answered or refused, by outcome: `sponsored`, `deduplicated`, or the error code. */
  readonly sponsorships: Counter<'network' | 'kind' | 'outcome'>;
  /** DUST fees paid by the server wallets for answered sponsorships, SPECK. */
  readonly sponsorshipFees: Counter<'network'>;
  readonly sponsorshipSeconds: Histogram<'network' | 'kind'>;
  readonly configReloads: Counter<'outcome'>;
  readonly #collectors: ScrapeCollector[] = [];

  /** `requestsTimedByLog`: the access log reads the clock at every request's start (log.requests is not `none`). */
  constructor(opts: { defaultMetrics?: boolean; requestsTimedByLog?: boolean } = {}) {
    this.requests = new RequestMetrics(opts.requestsTimedByLog ?? true);
    const registers = [this.registry];
    this.sponsorships = new Counter({
      name: 'nightgate_sponsorships_total',
      help: 'Sponsorship requests by outcome: sponsored, deduplicated (the same answer again), or the error code',
      labelNames: ['network', 'kind', 'outcome'],
      registers,
    });
    this.sponsorshipFees = new Counter({
      name: 'nightgate_sponsorship_fees_speck_total',
      help: 'DUST fees paid by the server wallets for answered sponsorships, SPECK',
      labelNames: ['network'],
      registers,
    });
    this.sponsorshipSeconds = new Histogram({
      name: 'nightgate_sponsorship_duration_seconds',
      help: 'Time to answer a sponsorship (checks, reservation, proving, binding)',
      labelNames: ['network', 'kind'],
      buckets: WORK_BUCKETS,
      registers,
    });
    this.configReloads = new Counter({
      name: 'nightgate_config_reloads_total',
      help: 'Configuration reloads (SIGHUP) by outcome: applied or refused',
      labelNames: ['outcome'],
      registers,
    });
    this.#registerRequestSeries();
    // Process CPU, memory, GC, handles and event-loop delay (nodejs_eventloop_lag_*_seconds).
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Run `fn` before each scrape to set the gauges it owns from current state. */
  onScrape(fn: ScrapeCollector): void {
    this.#collectors.push(fn);
  }

  /** The exposition text: collectors first, then every series. */
  async render(): Promise<string> {
    for (const c of this.#collectors) await c();
    return this.registry.metrics();
  }

  #registerRequestSeries(): void {
    const req = this.requests;
    this.registry.registerMetric(
      new ScrapedMetric(
        'nightgate_http_requests_total',
        'HTTP requests answered, by route pattern, method and status class (499: the client left first, counted as 4xx)',
        'counter',
        () =>
          req
            .routes()
            .flatMap((r) =>
              STATUS_CLASSES.map((c, i) => ({ labels: { route: r.route, method: r.method, status_class: c }, value: r.byClass[i]! })).filter(
                (s) => s.value > 0,
              ),
            ),
      ) as unknown as Metric,
    );
    this.registry.registerMetric(
      new ScrapedMetric(
        'nightgate_http_request_duration_seconds',
        'Time from arrival to the answer written, by route pattern and method; a sample of one answer in 8 per route (the request counts are exact)',
        'histogram',
        () =>
          req.routes().flatMap((r) => {
            const labels = { route: r.route, method: r.method };
            return [
              ...r.buckets.map((v, i) => ({
                metricName: 'nightgate_http_request_duration_seconds_bucket',
                labels: { ...labels, le: i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i]! : '+Inf' },
                value: v,
              })),
              { metricName: 'nightgate_http_request_duration_seconds_sum', labels, value: r.sumSeconds },
              { metricName: 'nightgate_http_request_duration_seconds_count', labels, value: r.count },
            ];
          }),
      ) as unknown as Metric,
    );
    this.registry.registerMetric(
      new ScrapedMetric(
        'nightgate_http_errors_total',
        'Error answers by stable code and status (RATE_LIMITED and the other 429s are the rate-limited requests; UNAUTHORIZED, 4xx refusals the rejected ones)',
        'counter',
        () => [...req.errors()].map(([code, n]) => ({ labels: { code, status: ERRORS[code as ErrorCode]?.status ?? 0 }, value: n })),
      ) as unknown as Metric,
    );
  }
}
