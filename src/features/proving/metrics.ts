/**
 * The proving module's /metrics series: per proof (outcome and cache decision, wait and run
 * time), counted by the routes as each proof ends; and, set at scrape time, the worker pool, each
 * network's prover (up or not, its queue) and the proof result cache.
 */
import { Counter, Histogram } from 'prom-client';
import type { MetricsCollector } from '../../infra/app-context.js';
import { NETWORKS } from '../../core/config/index.js';
import { WORK_BUCKETS, type Metrics } from '../../infra/metrics/metrics.js';
import { ScrapedSeries, setCount } from '../../infra/metrics/scraped-series.js';
import type { PROVER_COMPONENT } from '../../infra/prover/component.js';
import type { ProverComponent } from './component.js';
import type { WORKER_POOL, WorkerPoolComponent } from '../../infra/pool/worker-pool.js';

// The components' names, checked against the module's constants without loading the module.
const PROVER: typeof PROVER_COMPONENT = 'prover';
const POOL: typeof WORKER_POOL = 'worker-pool';

/** Counted once per proof as it ends (routes.ts). */
export interface ProofCounters {
  /** /prove and /verify (/check) requests by outcome (`ok` or the error code) and cache decision. */
  readonly proofs: Counter<'kind' | 'backend' | 'network' | 'cache' | 'outcome'>;
  /** Time a computed proof waited for a worker thread or proof-server connection. */
  readonly wait: Histogram<'kind' | 'backend' | 'network'>;
  /** Time a computed proof ran once started. */
  readonly run: Histogram<'kind' | 'backend' | 'network'>;
}

const countersOf = new WeakMap<Metrics, ProofCounters>();

/**
 * The proof counters of an app's registry, registered on first use: by the prover module as it
 * mounts, or by `collectProving`, so that /metrics names them even when the module is not mounted.
 */
export function proofCounters(metrics: Metrics): ProofCounters {
  let c = countersOf.get(metrics);
  if (c === undefined) {
    const registers = [metrics.registry];
    c = {
      proofs: new Counter({
        name: 'nightgate_proofs_total',
        help: '/prove and /verify requests by outcome (ok or the error code) and cache decision (HIT, MISS, SHARED)',
        labelNames: ['kind', 'backend', 'network', 'cache', 'outcome'],
        registers,
      }),
      wait: new Histogram({
        name: 'nightgate_proving_wait_seconds',
        help: 'Time a computed proof waited for a worker thread or a proof-server connection',
        labelNames: ['kind', 'backend', 'network'],
        buckets: WORK_BUCKETS,
        registers,
      }),
      run: new Histogram({
        name: 'nightgate_proving_run_seconds',
        help: 'Time a computed proof ran once started',
        labelNames: ['kind', 'backend', 'network'],
        buckets: WORK_BUCKETS,
        registers,
      }),
    };
    countersOf.set(metrics, c);
  }
  return c;
}

export const collectProving: MetricsCollector = (ctx) => {
  proofCounters(ctx.metrics);
  const series = new ScrapedSeries(ctx.metrics);
  const poolThreads = series.gauge('nightgate_worker_pool_threads', 'Worker threads alive');
  const poolMax = series.gauge('nightgate_worker_pool_threads_max', 'Worker threads configured (prover.threads)');
  const poolBusy = series.gauge('nightgate_worker_pool_busy_threads', 'Worker threads running a task now');
  const poolUtil = series.gauge(
    'nightgate_worker_pool_utilization_ratio',
    'Busy thread time over available thread time since start, 0-1 (rate of busy time: busy_threads over threads_max)',
  );
  const poolTasks = series.counter('nightgate_worker_pool_tasks_total', 'Worker pool tasks by outcome: completed, failed, crashed', ['outcome']);
  const poolEnded = series.counter('nightgate_worker_pool_threads_replaced_total', 'Worker threads ended while serving (crash, abandoned task) and replaced');
  const proverUp = series.gauge('nightgate_prover_up', "1 when the network's prover answers its readiness probe (proof servers) or is in-process", [
    'network',
    'backend',
  ]);
  const queueDepth = series.gauge(
    'nightgate_proving_queue_depth',
    'Proving work waiting for a worker thread (dev, wasm: the shared pool, balance tasks included) or a proof-server connection (upstream, native)',
    ['backend'],
  );
  const queueCap = series.gauge('nightgate_proving_queue_capacity', 'Work that may wait before 503 QUEUE_FULL (prover.queueSize)', ['backend']);
  const proofCache = series.counter(
    'nightgate_proof_cache_results_total',
    'Proof result cache decisions: hit, miss, shared (joined an identical computation in flight)',
    ['result'],
  );
  const proofCacheBytes = series.gauge('nightgate_proof_cache_bytes', 'Bytes held by the proof result cache');

  ctx.metrics.onScrape(async () => {
    const prover = ctx.component<ProverComponent>(PROVER);
    // The one wait (the proof servers' readiness probes, reused for 3 s) comes before the reset:
    // from there on every series is set in one synchronous pass.
    const missing = prover ? await Promise.resolve(prover.ready?.() ?? []).catch(() => NETWORKS.map((n) => `prover:${n}: probe failed`)) : [];
    series.reset();
    const pool = ctx.component<WorkerPoolComponent>(POOL)?.health();
    if (pool) {
      poolThreads.set(pool.threads);
      poolMax.set(pool.maxThreads);
      poolBusy.set(pool.running);
      poolUtil.set(pool.utilization);
      setCount(poolTasks, { outcome: 'completed' }, pool.completed);
      setCount(poolTasks, { outcome: 'failed' }, pool.failed);
      setCount(poolTasks, { outcome: 'crashed' }, pool.crashed);
      setCount(poolEnded, {}, pool.threadsEnded);
    }
    if (!prover) return;
    // Backends shared by several networks have one queue: counted once.
    const seen = new Set<string>();
    for (const n of NETWORKS) {
      const b = prover.backend(n);
      proverUp.set({ network: n, backend: b.name }, missing.some((m) => m.startsWith(`prover:${n}:`)) ? 0 : 1);
      if (seen.has(b.name)) continue;
      seen.add(b.name);
      const q = b.queue();
      queueDepth.set({ backend: b.name }, q.waiting);
      queueCap.set({ backend: b.name }, q.capacity);
    }
    const cache = prover.cacheStats();
    setCount(proofCache, { result: 'hit' }, cache.hits);
    setCount(proofCache, { result: 'miss' }, cache.misses);
    setCount(proofCache, { result: 'shared' }, cache.shared);
    proofCacheBytes.set(cache.bytes);
  });
};
