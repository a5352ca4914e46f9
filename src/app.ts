/**
 * The app factory: `buildApp(config) → {listen, close}`. Kept apart from the process entry
 * (src/server.ts) so tests build as many apps as they like, each on 127.0.0.1 port 0.
 */
import type { Logger } from 'pino';
import type { DevnetNetworkInfo } from '@nightgate/devnet';
import { systemClock, type Clock } from './core/clock.js';
import { NETWORKS, isEmbedded, redactedConfig, type Config, type NetworkName } from './core/config/index.js';
import { GatewayError } from './core/errors.js';
import type { AppContext, Component, ComponentHealth, MetricsCollector, Module, WorkerModules } from './infra/app-context.js';
import { HttpServer, type TopicRoute } from './core/http/server.js';
import { loadUws } from './core/http/uws.js';
import type { RouteDef } from './core/http/route.js';
import { KeyStore } from './core/guards/auth.js';
import { devKey, devKeyBox } from './core/guards/dev-key.js';
import { MemoryRateLimitStore, type RateLimitStore } from './core/guards/rate-limit.js';
import { AuthThrottle } from './core/guards/auth-throttle.js';
import { BodyBudget } from './core/guards/body-budget.js';
import { createLogger } from './core/log/log.js';
import { BoundedOutput } from './core/log/output.js';
import { probeRoutes } from './features/health/index.js';
import { siteRoutes } from './features/site/index.js';
import { openApiDocument } from './core/http/openapi.js';
import { PACKAGE } from './core/version.js';
import { redactDeep } from './core/log/url-redaction.js';
import { missingForReadiness } from './infra/readiness.js';
import { Metrics } from './infra/metrics/metrics.js';
import { metricsRoute } from './infra/metrics/route.js';
import { metricsListener, type MetricsListener } from './infra/metrics/listener.js';
import { collectServer } from './infra/metrics/server-gauges.js';
import { collectStats, mountStats } from './features/stats/index.js';
import { PROVING_TASKS, collectProving, loadSharedStores as provingStores, mountProver } from './features/proving/index.js';
import { SPONSORSHIP_TASKS, collectSponsorship, collectUsage, loadSharedStores as sponsorshipStores, mountSponsorship } from './features/sponsorship/index.js';
import { devnetSponsorSeeds } from '@nightgate/devnet/sponsor-seeds';
import { configuredWallets } from './infra/ledger/server-wallets.js';
import { legacyWalletKeys, type WalletKeys } from './infra/ledger/index.js';
import { relayDeprecation } from './infra/node/submitter.js';
import { checkIndexers } from './infra/indexer/endpoint-check.js';
import { SharedRateLimitStore } from './core/guards/shared-rate-limit.js';
import { HttpThreads, ScopedRateLimitStore, childAppsSupported, destinationOf } from './core/http/threads/main.js';

export interface BuildOptions {
  logger?: Logger;
  /** The bounded stdout output `logger` writes to, if any: its drops are shown in /health. */
  logOutput?: BoundedOutput;
  clock?: Clock;
  /** Feature modules; defaults to statistics, proving and sponsorship. */
  modules?: readonly Module[];
  /** Start the embedded devnet for networks without an indexer (default true). */
  devnet?: boolean;
  /** Ask hosted indexers at start whether they refuse for good (default true; endpoint-check.ts). */
  checkIndexers?: boolean;
  rateLimitStore?: RateLimitStore;
  /** Prints the development key's box at build time (tests, embedders); else `App.devKeyNotice` is for the caller to print once listening. */
  print?: (line: string) => void;
}

export interface App {
  readonly config: Readonly<Config>;
  readonly context: AppContext;
  readonly routes: readonly RouteDef[];
  /** Listen on config.server.host:port; resolves to the bound port. */
  listen(): Promise<number>;
  /** Graceful shutdown: stop accepting, drain (until the deadline), close components. Idempotent. */
  close(): Promise<void>;
  health(): Record<string, unknown>;
  readonly server: HttpServer;
  /** The API keys; replaced whole on a reload (src/core/guards/reload.ts). */
  readonly keys: KeyStore;
  /** The development key's box when one was minted or read back (no key configured), else undefined. */
  readonly devKeyNotice: string | undefined;
  /** This app's Prometheus registry and counters (src/infra/metrics/). */
  readonly metrics: Metrics;
}

/** Each feature's /metrics series (statistics, proving, sponsorship). */
const FEATURE_METRICS: readonly MetricsCollector[] = [collectStats, collectProving, collectSponsorship, collectUsage];

const DEFAULT_MODULES: readonly Module[] = [mountStats, mountProver, mountSponsorship];

/** The worker pool's code: every thread loads the ledgers first (workers/), then each feature's tasks as they come. */
const WORKERS: WorkerModules = { entry: new URL('../workers/index.js', import.meta.url), tasks: { ...PROVING_TASKS, ...SPONSORSHIP_TASKS } };

export async function buildApp(config: Readonly<Config>, opts: BuildOptions = {}): Promise<App> {
  const logOutput =
    opts.logOutput ??
    (opts.logger ? undefined : new BoundedOutput({ fd: 1, maxBytes: config.log.bufferBytes, maxBytesPerSecond: config.log.maxBytesPerSecond }));
  const logger = opts.logger ?? createLogger(config.log.level, logOutput);
  const clock = opts.clock ?? systemClock;
  const log = logger.child({ module: 'app' });
  const uws = loadUws();
  log.info({ config: redactedConfig(config), uws: uws.source }, 'configuration');
  const metrics = new Metrics({ requestsTimedByLog: config.log.requests !== 'none', defaultMetrics: config.metrics.enabled });

  // Several instances: limits, budgets, dedupe and wallet leases shared through Redis.
  // A retired indexer host or a refused project id stops the start here, naming the setting.
  if (opts.checkIndexers !== false) await checkIndexers(config);
  const shared = config.state.redisUrl !== '' ? await startShared(config, logger, clock) : undefined;

  const keys = new KeyStore(config.auth.keys, config.auth.apiKeys, config.auth.trustedNetworks);
  let devKeyNotice: string | undefined;
  if (keys.size === 0 && config.auth.trustedNetworks.length === 0) {
    // Nothing configured: a development key, so the proving API is usable at once.
    const key = devKey(config.devnet.stateDir || config.dust.stateDir);
    keys.addRaw(key.raw, 'dev-generated', 'generated');
    devKeyNotice = devKeyBox(key);
    opts.print?.(devKeyNotice);
    log.warn(
      { keyId: 'dev-generated', ...(key.file ? { keptIn: key.file } : {}) },
      'no API key configured: using a development key (printed in a box once listening)',
    );
  }

  for (const n of NETWORKS) {
    const deprecated = relayDeprecation(config, n);
    if (deprecated) log.warn({ network: n, setting: `networks.${n}.submitUrl` }, deprecated);
  }

  // server.threads > 1: the per-IP limiter is one table every HTTP thread shares (http/threads/).
  const threadCount = config.server.threads;
  if (threadCount > 1 && !childAppsSupported(uws.uws)) {
    await shared?.close();
    throw new Error(
      `server.threads = ${threadCount} needs the uWS 20.57 build (@btc-vision/uwebsockets.js: Node 22 or 24 on glibc ≥ 2.38), ` +
        `which hands connections to other ` +
        `threads; this system loaded ${uws.source}` +
        `. Set server.threads to 1 (NIGHTGATE_SERVER_THREADS=1) or move to Node 22/24 on such a system`,
    );
  }
  const limiter = threadCount > 1 ? new SharedRateLimitStore(config.rateLimit.algorithm, config.rateLimit.maxEntries) : undefined;
  const store = opts.rateLimitStore ?? shared?.rateLimit ?? new MemoryRateLimitStore(config.rateLimit.algorithm, config.rateLimit.maxEntries);
  const bodyBudget = new BodyBudget({ globalBytes: config.server.bodyBytesInFlight, clientBytes: config.server.bodyBytesPerClient });
  const server = new HttpServer({
    bodyBudget,
    uws: uws.uws,
    logger: logger.child({ module: 'http' }),
    clock,
    keys,
    trustedProxies: config.server.trustedProxies,
    authFailures:
      config.auth.failureLimit > 0
        ? new AuthThrottle({
            limit: config.auth.failureLimit,
            windowMs: config.auth.failureWindowMs,
            algorithm: config.rateLimit.algorithm,
            maxEntries: config.rateLimit.maxEntries,
            shared: shared?.authFailures,
          })
        : undefined,
    maxHeaderBytes: config.server.maxHeaderBytes,
    maxHeaders: config.server.maxHeaders,
    requestLog: config.log.requests,
    corsOrigins: config.server.corsOrigins,
    wsConnectionsPerIp: config.server.wsConnectionsPerIp,
    counter: config.metrics.enabled ? metrics.requests : undefined,
    rateLimit: {
      ...config.rateLimit,
      store: limiter === undefined ? store : new ScopedRateLimitStore(limiter, store),
    },
  });

  // A taken port fails here, in a second, not after the devnets have started.
  await server.checkPort(config.server.host, config.server.port).catch(async (err: unknown) => {
    await shared?.close();
    throw err;
  });

  const components: Component[] = [];
  // Registered first, closed last: the other components give back their leases through it.
  if (shared) components.push({ name: 'state', health: () => shared.redis.health(), close: () => shared.close() });
  if (logOutput) components.push({ name: 'log', health: () => logOutput.health() });
  components.push({ name: 'bodies', health: () => ({ status: 'ok', ...bodyBudget.stats() }) });
  const routes: RouteDef[] = [];
  const topics: TopicRoute[] = [];
  const startedAt = clock.now();
  let threads: HttpThreads | undefined;

  // Embedded devnets for networks without an indexer; each has its own genesis and DUST wallets.
  const devnetInfo = new Map<NetworkName, DevnetNetworkInfo>();
  // The server wallets: the configured ones on every network, or on an embedded network the devnet's.
  const configured = configuredWallets(config);
  const embedded = NETWORKS.filter((n) => isEmbedded(config, n));
  const wallets = new Map<NetworkName, WalletKeys[]>();
  for (const n of NETWORKS) {
    if (configured) wallets.set(n, [...configured]);
    else if (embedded.includes(n)) wallets.set(n, devnetSponsorSeeds(config.devnet.stateDir, n).map(legacyWalletKeys));
  }
  if (opts.devnet !== false && embedded.length > 0) {
    // Loaded only when needed: the devnet brings a worker thread and the ledger packages of its eras.
    const { startDevnet } = await import('@nightgate/devnet');
    const devnet = await startDevnet({
      networks: embedded.map((n) => ({
        name: n,
        seed: `nightgate-devnet-${n}`,
        sponsorWallets: config.devnet.profile === 'public' ? [] : (wallets.get(n) ?? []),
        ledger: config.networks[n].devnet.ledger,
        ledger9AtHeight: config.networks[n].devnet.ledger9AtHeight,
        ...(config.devnet.profile === 'public' ? { profile: 'public' as const, projectId: config.networks[n].projectId } : {}),
      })),
      blockTimeMs: config.devnet.blockTimeMs,
      retainBlocks: config.devnet.retainBlocks,
      threadNice: config.devnet.threadNice,
      ...(config.devnet.stateDir ? { stateDir: config.devnet.stateDir } : {}),
      logger: logger.child({ module: 'devnet' }),
    });
    for (const info of devnet.networks) devnetInfo.set(info.name as NetworkName, info);
    components.push({
      name: 'devnet',
      health: () => ({ status: 'ok', networks: Object.fromEntries(devnet.networks.map((i: DevnetNetworkInfo) => [i.name, i])) }),
      close: () => devnet.close(),
    });
  }

  const context: AppContext = {
    config,
    logger,
    clock,
    devnet: devnetInfo,
    serverWallets: wallets,
    metrics,
    keys,
    state: shared,
    workers: WORKERS,
    addRoutes: (defs) => {
      for (const r of defs) {
        routes.push(r);
        server.add(r);
      }
    },
    addTopic: (t: TopicRoute) => {
      topics.push(t);
      server.addTopic(t);
    },
    publish: (topic, message) => {
      server.publish(topic, message);
      threads?.publish(topic, message);
    },
    addComponent: (c) => components.push(c),
    component: <T extends Component>(name: string) => components.find((c) => c.name === name) as T | undefined,
  };

  const health = (): Record<string, unknown> => {
    const comps: Record<string, ComponentHealth> = {};
    for (const c of components) {
      try {
        comps[c.name] = c.health();
      } catch (err) {
        comps[c.name] = { status: 'down', error: (err as Error).message };
      }
    }
    const bad = Object.values(comps).some((c) => c.status === 'down' || c.status === 'degraded');
    // Components report their upstreams' URLs and errors as they are: no credential leaves here.
    return redactDeep({
      status: server.closing ? 'shutting-down' : bad ? 'degraded' : 'ok',
      version: PACKAGE.version,
      startedAt: new Date(startedAt).toISOString(),
      uptimeSeconds: Math.round((clock.now() - startedAt) / 1000),
      components: comps,
    });
  };

  // Computed when first asked for, once every module has mounted its routes.
  const openapi = (): Record<string, unknown> =>
    openApiDocument(
      routes,
      { title: 'nightgate', description: 'Midnight network statistics, proving and DUST sponsorship gateway.' },
      { cors: config.server.corsOrigins.length > 0, topics },
    );
  context.addRoutes(
    probeRoutes({
      health,
      missing: () => missingForReadiness(components),
    }),
  );
  context.addRoutes(
    siteRoutes({
      openapi,
      // The networks whose statistics this instance serves (stats/index.ts names them `stats:<network>`).
      networks: () =>
        NETWORKS.filter((n) => {
          const c = components.find((x) => x.name === `stats:${n}`);
          return c !== undefined && c.health().status !== 'disabled';
        }),
    }),
  );
  try {
    for (const mount of opts.modules ?? DEFAULT_MODULES) await mount(context);
  } catch (err) {
    // A module failed to start: release what already started before reporting it.
    for (const c of [...components].reverse()) await c.close?.().catch(() => undefined);
    throw err;
  }
  let scrapes: MetricsListener | undefined;
  if (config.metrics.enabled) {
    collectServer(metrics, { inFlight: () => server.inFlight, keys: () => keys.counts() });
    for (const collect of FEATURE_METRICS) collect(context);
    if (config.metrics.listen === '') context.addRoutes([metricsRoute(metrics, { allow: config.metrics.allow, keyIds: config.metrics.keyIds })]);
    else
      scrapes = metricsListener({
        uws: uws.uws,
        logger: logger.child({ module: 'metrics' }),
        clock,
        keys,
        metrics,
        listen: config.metrics.listen,
        maxHeaderBytes: config.server.maxHeaderBytes,
        maxHeaders: config.server.maxHeaders,
      });
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      log.info({ inFlight: server.inFlight }, 'shutting down: no longer accepting connections');
      server.beginShutdown();
      threads?.beginShutdown();
      scrapes?.close();
      // Queued work is refused now rather than started during the drain: what has not begun
      // would only push the exit towards the deadline, and its client can retry elsewhere.
      for (const c of [...components].reverse()) {
        try {
          c.drain?.();
        } catch (err) {
          log.error({ err, component: c.name }, 'component failed to drain');
        }
      }
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), config.server.shutdownTimeoutMs);
        timer.unref();
      });
      const outcome = await Promise.race([server.drained().then(() => 'drained' as const), deadline]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        log.warn({ inFlight: server.inFlight }, 'shutdown deadline passed: aborting in-flight requests');
        server.abortAll(new GatewayError('SHUTTING_DOWN', 'Server shut down before the request finished'));
      }
      // Nothing is in flight now: idle kept-alive connections are ended rather than left to time out.
      server.closeConnections();
      await threads?.close();
      for (const c of [...components].reverse()) {
        try {
          await c.close?.();
        } catch (err) {
          log.error({ err, component: c.name }, 'component failed to close');
        }
      }
      log.info('shutdown complete');
    })());

  return {
    config,
    devKeyNotice,
    context,
    routes,
    server,
    keys,
    metrics,
    health,
    close,
    listen: async () => {
      if (limiter !== undefined && threads === undefined) {
        threads = await HttpThreads.start({
          count: threadCount,
          server,
          uws: uws.uws,
          topics,
          logger: log,
          write: destinationOf(logger),
          counts: config.metrics.enabled ? metrics.requests : undefined,
          setup: { limiter: limiter.buffer, server: config.server, rateLimit: config.rateLimit, log: config.log, metrics: config.metrics.enabled },
        });
      }
      const port = await server.listen(config.server.host, config.server.port, threads?.acceptor).catch(async (err: unknown) => {
        await threads?.close();
        threads = undefined;
        throw err;
      });
      await scrapes?.listen();
      return port;
    },
  };
}

/**
 * Shared state in Redis, loaded only when configured. The features' stores load first: each
 * registers its Lua scripts as its module loads, before the client that sends them by EVALSHA exists.
 */
async function startShared(config: Readonly<Config>, logger: Logger, clock: Clock): Promise<import('./infra/state/index.js').SharedState> {
  await Promise.all([sponsorshipStores(), provingStores()]);
  return (await import('./infra/state/index.js')).startSharedState(config, logger, clock);
}
