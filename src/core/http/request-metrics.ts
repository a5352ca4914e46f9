/**
 * Per-request counting for /metrics at the cost of a few array writes: requests by route and
 * status class, and a latency histogram per route, kept in preallocated typed arrays indexed by
 * route id and turned into Prometheus series only when /metrics is scraped (metrics.ts). The
 * request path never touches prom-client, never builds a label object and never allocates.
 *
 * Latency is sampled: one answer in LATENCY_SAMPLE per route is timed (the first one included), so
 * the histogram's `_count` is about an eighth of the requests and its quantiles those of the
 * sample. Reading the clock twice per request (performance.now ≈ 0.1 µs each on the bench machine)
 * was most of what counting cost the cached routes. The request counts are exact.
 *
 * Routes get their id the first time they answer; the label set is bounded by the routes the
 * server registers (the unmatched 404/405 catch-all is one route, `(unmatched)`), never by paths,
 * keys or client addresses.
 */
import { performance } from 'node:perf_hooks';
import { KeyRequests } from './key-requests.js';
import type { RequestCounter, RouteCounts, ThreadCountSink } from './request-counter.js';
import type { RouteDef } from './route.js';

export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** Upper bounds of the latency buckets, seconds (the last bucket, +Inf, is implied). */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;
const BOUNDS_MS = Float64Array.from(LATENCY_BUCKETS, (s) => s * 1000);
const NB = LATENCY_BUCKETS.length;
/** One answer in this many is timed, per route (a power of two). */
export const LATENCY_SAMPLE = 8;
const SAMPLE_MASK = LATENCY_SAMPLE - 1;
const CLASSES = STATUS_CLASSES.length;

/** Counts in `RouteCounts`: `byClass` in STATUS_CLASSES order, `buckets` at LATENCY_BUCKETS then +Inf. */
export class RequestMetrics implements RequestCounter, ThreadCountSink {
  readonly #ids = new Map<RouteDef, number>();
  readonly #routes: Array<{ route: string; method: string }> = [];
  #capacity = 0;
  #classes = new Float64Array(0);
  #buckets = new Float64Array(0);
  #sumsMs = new Float64Array(0);
  /** Per route: answers seen (or exchanges started, when the access log does not time them all). */
  #ticks = new Uint32Array(0);
  /** Error answers by stable code (bounded by the error catalogue). */
  readonly #errors = new Map<string, number>();
  /** Keyed requests per API key, for GET /usage: counted by the pipeline (pipeline.ts), never a series. */
  readonly keys = new KeyRequests();

  /**
   * `timedByLog`: every exchange already reads the clock when it starts (the access log is on), and
   * `observe` picks the sample; otherwise the server asks `timeNext` which exchanges to time.
   * `now` is the clock `t0` was read from (tests inject one).
   */
  constructor(
    private readonly timedByLog = true,
    initialRoutes = 64,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.#grow(initialRoutes);
  }

  /** Whether a new exchange of this route should read the clock (when the access log does not). */
  timeNext(route: RouteDef): boolean {
    let id = this.#ids.get(route);
    if (id === undefined) id = this.#register(route);
    return (this.#ticks[id]!++ & SAMPLE_MASK) === 0;
  }

  /** One answered request (499 when the client left first); `t0` its start (performance.now, 0 = not timed); `code` for an error answer. */
  observe(route: RouteDef, status: number, t0: number, code: string | undefined): void {
    let id = this.#ids.get(route);
    if (id === undefined) id = this.#register(route);
    let c = (status / 100) | 0;
    c = c < 1 ? 0 : c > 5 ? 4 : c - 1;
    this.#classes[id * CLASSES + c]!++;
    if (code !== undefined) this.#errors.set(code, (this.#errors.get(code) ?? 0) + 1);
    if (t0 === 0 || (this.timedByLog && (this.#ticks[id]!++ & SAMPLE_MASK) !== 0)) return;
    const ms = this.now() - t0;
    let b = 0;
    while (b < NB && ms > BOUNDS_MS[b]!) b++;
    this.#buckets[id * (NB + 1) + b]!++;
    this.#sumsMs[id]! += ms;
  }

  /** The latest totals of each HTTP worker thread (server.threads > 1), added to this thread's. */
  readonly #threads = new Map<number, { routes: RouteCounts[]; errors: Array<[string, number]> }>();

  /** An HTTP worker thread's totals so far (it sends them every second); they replace its previous ones. */
  absorbThread(thread: number, routes: RouteCounts[], errors: Array<[string, number]>): void {
    this.#threads.set(thread, { routes, errors });
  }

  /** What has been counted so far, per route that answered at least once, in every thread. */
  routes(): RouteCounts[] {
    const own = this.#ownRoutes();
    if (this.#threads.size === 0) return own;
    const byKey = new Map(own.map((r) => [`${r.method} ${r.route}`, r]));
    for (const t of this.#threads.values()) {
      for (const r of t.routes) {
        const k = `${r.method} ${r.route}`;
        const mine = byKey.get(k);
        if (mine === undefined) byKey.set(k, { ...r, byClass: [...r.byClass], buckets: [...r.buckets] });
        else {
          r.byClass.forEach((v, i) => (mine.byClass[i]! += v));
          r.buckets.forEach((v, i) => (mine.buckets[i]! += v));
          mine.count += r.count;
          mine.sumSeconds += r.sumSeconds;
        }
      }
    }
    return [...byKey.values()];
  }

  #ownRoutes(): RouteCounts[] {
    const out: RouteCounts[] = [];
    for (let id = 0; id < this.#routes.length; id++) {
      const byClass = Array.from(this.#classes.subarray(id * CLASSES, (id + 1) * CLASSES));
      const raw = this.#buckets.subarray(id * (NB + 1), (id + 1) * (NB + 1));
      const buckets: number[] = [];
      let acc = 0;
      for (let b = 0; b <= NB; b++) buckets.push((acc += raw[b]!));
      out.push({ ...this.#routes[id]!, byClass, buckets, count: acc, sumSeconds: this.#sumsMs[id]! / 1000 });
    }
    return out;
  }

  errors(): ReadonlyMap<string, number> {
    if (this.#threads.size === 0) return this.#errors;
    const all = new Map(this.#errors);
    for (const t of this.#threads.values()) for (const [code, n] of t.errors) all.set(code, (all.get(code) ?? 0) + n);
    return all;
  }

  #register(route: RouteDef): number {
    const id = this.#routes.length;
    if (id >= this.#capacity) this.#grow(this.#capacity * 2);
    this.#routes.push({ route: route.url, method: route.method });
    this.#ids.set(route, id);
    return id;
  }

  #grow(capacity: number): void {
    const classes = new Float64Array(capacity * CLASSES);
    const buckets = new Float64Array(capacity * (NB + 1));
    const sums = new Float64Array(capacity);
    const ticks = new Uint32Array(capacity);
    ticks.set(this.#ticks);
    this.#ticks = ticks;
    classes.set(this.#classes);
    buckets.set(this.#buckets);
    sums.set(this.#sumsMs);
    this.#classes = classes;
    this.#buckets = buckets;
    this.#sumsMs = sums;
    this.#capacity = capacity;
  }
}
