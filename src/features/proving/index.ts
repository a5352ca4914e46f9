/**
 * The proving module: the shared worker pool (component `worker-pool`), one prover backend per
 * network (`proverBackendOf`), the result cache, and the routes (/prove, /verify and the
 * proof-server compatibility routes). Each request is served for the ledger era its network runs
 * now (the `ledger` component, src/infra/ledger/network-eras.ts). Component `prover` reports each
 * network's backend and the ledger package it is served with.
 */
import type { AppContext, ComponentHealth, Module } from '../../infra/app-context.js';
import { NETWORKS, proverBackendOf, proverUrlOf, type NetworkName } from '../../core/config/index.js';
import { inspectKeyDir } from '../../../native/key-material.js';
import { DEFAULT_ERA, ledgerPackageReport, networkEras, type Era, type NetworkEras } from '../../infra/ledger/index.js';
import type { ProverBackend } from '../../infra/prover/backend.js';
import { NativeBackend } from './native-backend.js';
import { PoolBackend } from './pool-backend.js';
import { proofCounters } from './metrics.js';
import { ProofResults } from './proof-results.js';
import { ProbeCache } from './probe-cache.js';
import { proverRoutes } from './routes.js';
import { UpstreamBackend } from './upstream-backend.js';
import { WorkerPool } from '../../infra/pool/worker-pool.js';
import type { TaskModules } from '../../infra/pool/tasks.js';
import { PROVER_COMPONENT } from '../../infra/prover/component.js';
import type { ProverComponent } from './component.js';

export { WORKER_POOL, type WorkerPoolComponent } from '../../infra/pool/worker-pool.js';
export { PROVING_TASKS } from './tasks.js';

export { PROVER_COMPONENT };
export { collectProving } from './metrics.js';

/** Loads the shared proof cache's store, registering its Lua scripts as it loads (before the Redis client starts). */
export const loadSharedStores = (): Promise<unknown> => import('./shared-proof-cache.js');
export type { ProverComponent } from './component.js';

interface ProverModuleOptions {
  /** Task modules that replace the app's (tests point `prove` at a fixture that misbehaves on purpose). */
  tasks?: TaskModules;
  /** Base directory for a relative `prover.nativeBinary` (default: the process's). */
  cwd?: string;
}

async function buildBackends(ctx: AppContext, pool: WorkerPool, opts: ProverModuleOptions): Promise<Map<NetworkName, ProverBackend>> {
  const { config } = ctx;
  const log = ctx.logger.child({ module: 'prover' });
  const byNetwork = new Map<NetworkName, ProverBackend>();
  const shared = new Map<string, ProverBackend>();
  const once = async (key: string, make: () => ProverBackend | Promise<ProverBackend>): Promise<ProverBackend> => {
    let b = shared.get(key);
    if (!b) {
      b = await make();
      shared.set(key, b);
    }
    return b;
  };
  try {
    for (const n of NETWORKS) {
      const kind = proverBackendOf(config, n);
      const p = config.prover;
      const backend = await once(kind === 'upstream' ? `upstream ${proverUrlOf(config, n)}` : kind, () => {
        switch (kind) {
          case 'upstream':
            return new UpstreamBackend({ url: proverUrlOf(config, n), timeoutMs: p.timeoutMs, maxQueue: p.queueSize, logger: log, clock: ctx.clock });
          case 'native':
            return NativeBackend.start({
              binary: p.nativeBinary,
              port: p.nativePort,
              args: p.nativeArgs,
              keyDir: p.keyDir,
              timeoutMs: p.timeoutMs,
              maxQueue: p.queueSize,
              readyTimeoutMs: p.nativeReadyTimeoutMs,
              stopGraceMs: p.nativeStopGraceMs,
              logger: ctx.logger.child({ module: 'proof-server' }),
              cwd: opts.cwd ?? process.cwd(),
              clock: ctx.clock,
            });
          case 'wasm': {
            const report = inspectKeyDir(p.keyDir);
            if (report.missing.length > 0)
              log.warn(
                { keyDir: p.keyDir, missing: report.missing },
                'wasm prover: key material missing for some built-in circuits; their proofs will fail with PROVER_KEYS_MISSING',
              );
            return new PoolBackend({ name: 'wasm', pool, clock: ctx.clock, keyDir: p.keyDir, timeoutMs: p.timeoutMs, keyReport: { ...report } });
          }
          case 'dev':
            return new PoolBackend({ name: 'dev', pool, clock: ctx.clock, keyDir: '', timeoutMs: p.timeoutMs });
        }
      });
      byNetwork.set(n, backend);
      log.info({ network: n, backend: kind }, kind === 'dev' ? 'dev prover: mock-shaped proofs (embedded devnet only)' : 'prover backend');
    }
  } catch (err) {
    for (const b of shared.values()) await b.close().catch(() => undefined);
    throw err;
  }
  return byNetwork;
}

/**
 * The eras every worker thread loads when it starts: those the networks run now, and ledger 9
 * always (every public network runs it, and an embedded network may switch to it).
 */
function erasToPreload(eras: Pick<NetworkEras, 'eras'>): Era[] {
  return [...new Set<Era>([...eras.eras(), DEFAULT_ERA])].sort();
}

export function createProverModule(opts: ProverModuleOptions = {}): Module {
  return async (ctx) => {
    const { config } = ctx;
    const kinds = NETWORKS.map((n) => proverBackendOf(config, n));
    const dev = kinds.includes('dev');
    const eras = networkEras(ctx);
    const pool = new WorkerPool({
      eras: erasToPreload(eras),
      threads: config.prover.threads,
      maxQueue: config.prover.queueSize,
      abortGraceMs: config.prover.abortGraceMs,
      logger: ctx.logger.child({ module: 'worker-pool' }),
      devProver: dev,
      eager: dev || kinds.includes('wasm'),
      entry: ctx.workers.entry,
      tasks: { ...ctx.workers.tasks, ...opts.tasks },
    });
    ctx.addComponent(pool);
    const backends = await buildBackends(ctx, pool, opts);
    // Several instances: results shared through Redis, within the same byte cap.
    const shared = ctx.state
      ? new (await import('./shared-proof-cache.js')).SharedProofCache(ctx.state.redis, {
          ttlMs: config.prover.cacheTtlMs,
          maxBytes: config.prover.cacheMaxBytes,
          now: () => ctx.clock.now(),
        })
      : undefined;
    const results = new ProofResults(ctx.clock, config.prover.cacheTtlMs, config.prover.cacheMaxBytes, shared);
    const probes = new ProbeCache(ctx.clock);

    const component: ProverComponent = {
      name: PROVER_COMPONENT,
      events: results,
      backend: (n) => backends.get(n)!,
      cacheStats: () => results.stats(),
      health(): ComponentHealth {
        const networks: Record<string, unknown> = {};
        let worst: ComponentHealth['status'] = 'ok';
        for (const [n, b] of backends) {
          const h = b.health();
          networks[n] = { backend: b.name, ...h, ledger: ledgerPackageReport(eras.of(n)) };
          if (h.status === 'down') worst = 'down';
          else if (h.status !== 'ok' && worst === 'ok') worst = 'degraded';
        }
        return { status: worst, devProver: dev, networks, cache: results.stats() };
      },
      async ready() {
        const why = await Promise.all(
          [...backends].map(async ([n, b]) => {
            const reason = await probes.check(b);
            return reason === undefined ? undefined : `prover:${n}: ${reason}`;
          }),
        );
        return why.filter((w): w is string => w !== undefined);
      },
      drain() {
        for (const b of new Set(backends.values())) b.drain?.();
      },
      async close() {
        await Promise.all([...new Set(backends.values())].map((b) => b.close()));
      },
    };
    ctx.addComponent(component);
    ctx.addRoutes(
      proverRoutes({
        backendOf: component.backend,
        eraOf: (n) => eras.of(n),
        results,
        defaultNetwork: config.prover.defaultNetwork,
        bodyLimit: config.server.proverBodyLimit,
        // The in-process backends wait in the worker pool: a full queue refuses before the body is read.
        admit: (n, key) => (backends.get(n)!.name === 'dev' || backends.get(n)!.name === 'wasm' ? pool.refusalIfFull(key) : undefined),
        metrics: proofCounters(ctx.metrics),
        audit: ctx.logger.child({ module: 'audit' }),
      }),
    );
  };
}

export const mountProver: Module = createProverModule();
