/**
 * The sponsorship module: server DUST wallets pay every fee. Per network with server wallets
 * (generated for the embedded devnet, `dust.walletSeeds` elsewhere): a shared allocator table, a
 * wallet snapshot for the workers, the sync thread, and the routes. Needs the prover module's
 * worker pool (mount it first). With balancing disabled the routes exist and answer 404.
 */
import type { AppContext, Module } from '../../infra/app-context.js';
import { ConfigError, NETWORKS, proverBackendOf, type NetworkName } from '../../core/config/index.js';
import { networkEras } from '../../infra/ledger/network-eras.js';
import { sourceOf } from '../../infra/indexer/source.js';
import { WORKER_POOL, type WorkerPoolComponent } from '../../infra/pool/worker-pool.js';
import { PROVER_COMPONENT, type ProverBackends } from '../../infra/prover/component.js';
import { DustAllocatorTable } from './allocator/allocator.js';
import { MIDNIGHT_BLOCK_TIME_MS } from './common/fee-margin.js';
import { PoolKeeper } from './pool/pool-keeper.js';
import { MemoryBudgetStore, SponsorshipPolicy } from './admission/budget.js';
import { ReservationJournal } from './reservations/reservation-journal.js';
import { sponsorshipRoutes } from './routes.js';
import { SharedSnapshot } from './allocator/shared-snapshot.js';
import { POOL_KEY_ID } from './common/pool-constants.js';
import type { SponsoredNetwork } from './common/sponsored-network.js';
import { SponsorshipService } from './sponsorship.js';
import { DustSyncHost } from './wallets/sync-host.js';
import { InputChecker, UnspentUtxoReader } from './reservations/input-check.js';
import { PolicyGate } from './policy/gate.js';
import { usageComponent } from './policy/usage-component.js';
import { UsageLedger } from './policy/usage.js';
import { usageRoutes } from './policy/usage-routes.js';
import { MemoryUserCounters, type UserCounterStore } from './policy/user-counters.js';
import { PolicyWebhook } from './policy/webhook.js';
import { networkSubmitter, type Submitter } from '../../infra/node/submitter.js';
import { WalletBook } from './wallets/wallet-book.js';
import { submitRoute } from './submit-route.js';
import { SPONSORSHIP_COMPONENT, type SponsorshipComponent } from './component.js';

export { SPONSORSHIP_COMPONENT, type SponsorshipComponent } from './component.js';
export { collectSponsorship } from './metrics.js';
export { SPONSORSHIP_TASKS } from './tasks.js';
export { collectUsage } from './policy/usage-component.js';
// What `nightgate wallet` (src/cli/wallet.ts) reads and builds for a server wallet.
export { LEDGER_PARAMETERS } from './common/queries.js';
export { readNightUtxos } from './wallets/night-utxos.js';
export { buildRegistration, type RegistrationUtxo } from './wallets/registration.js';

/** Loads the Redis stores, each registering its Lua scripts as it loads (before the Redis client starts). */
export const loadSharedStores = () =>
  Promise.all([import('./redis/wallet-leases.js'), import('./redis/sponsorship.js'), import('./redis/budget.js'), import('./redis/user-counters.js')]);

/** Readiness of sponsorship from its status per network: the networks whose wallets have not synced, with their phase. */
export function walletsNotSynced(networks: Record<string, unknown>): string[] {
  return Object.entries(networks).flatMap(([network, s]) => {
    const phase = (s as { sync?: { phase?: string } }).sync?.phase ?? 'starting';
    return phase === 'synced' ? [] : [`dust:${network}: server DUST wallets not synced (${phase})`];
  });
}

/** Networks whose pools grow to their targets before the server is ready (`dust.growAtStart`). */
function poolsFilling(service: SponsorshipService): string[] {
  return service.networks.flatMap((n) => {
    const pool = service.keeper(n.name)?.status();
    return pool?.filling ? [`dust:${n.name}: growing the DUST pool to its target (${pool.live} of ${pool.target} UTXOs)`] : [];
  });
}

export const mountSponsorship: Module = async (ctx: AppContext) => {
  const { config } = ctx;
  const routeDeps = {
    defaultNetwork: config.prover.defaultNetwork,
    bodyLimit: config.server.bodyLimit,
    metrics: ctx.metrics,
    audit: ctx.logger.child({ module: 'audit' }),
  };
  if (!config.dust.enabled) {
    ctx.addRoutes(sponsorshipRoutes({ ...routeDeps, service: undefined }));
    // No sponsorship to count, but a key's requests and configuration still are.
    mountUsage(ctx, new UsageLedger({ clock: ctx.clock, logger: ctx.logger.child({ module: 'sponsorship' }) }));
    const off: SponsorshipComponent = { name: SPONSORSHIP_COMPONENT, service: undefined, health: () => ({ status: 'disabled' }) };
    ctx.addComponent(off);
    return;
  }
  const pool = ctx.component<WorkerPoolComponent>(WORKER_POOL);
  const prover = ctx.component<ProverBackends>(PROVER_COMPONENT);
  if (!pool || !prover) throw new Error('the sponsorship module needs the prover module (worker pool and backends): mount it first');
  const log = ctx.logger.child({ module: 'sponsorship' });

  const networks: SponsoredNetwork[] = [];
  for (const n of NETWORKS) {
    const seeds = ctx.serverWallets.get(n);
    const source = sourceOf(ctx, n);
    if (!seeds?.length || !source) continue;
    networks.push({
      name: n,
      networkId: source.networkId,
      seeds,
      table: DustAllocatorTable.create(config.dust.tableCapacity),
      snapshot: SharedSnapshot.create(config.dust.snapshotBytes),
      prover: { backend: proverBackendOf(config, n), keyDir: config.prover.keyDir },
      backend: prover.backend(n),
      // The fee margin counts blocks: the devnet's own block time, Midnight's 6 s elsewhere.
      blockTimeMs: config.networks[n].indexer === 'embedded' ? config.devnet.blockTimeMs : MIDNIGHT_BLOCK_TIME_MS,
    });
  }
  const sync = new DustSyncHost(
    {
      networks: networks.map((n) => {
        const source = sourceOf(ctx, n.name)!;
        return {
          network: n.name,
          graphqlUrl: source.httpUrl,
          graphqlWsUrl: source.wsUrl,
          credentials: source.credentials,
          seeds: n.seeds,
          table: n.table.buffer,
          snapshot: n.snapshot.buffer,
          timeoutMs: config.stats.upstreamTimeoutMs,
          spentRetentionMs: config.dust.spentRetentionMs,
          reconnectMinMs: config.stats.reconnectMinMs,
          reconnectMaxMs: config.stats.reconnectMaxMs,
          blockTimeMs: n.blockTimeMs,
        };
      }),
    },
    log,
  );
  let journal: ReservationJournal | undefined;
  if (config.dust.stateDir !== '') {
    journal = ReservationJournal.open({ dir: config.dust.stateDir, clock: ctx.clock, logger: log });
  } else if (networks.some((n) => config.networks[n.name].indexer !== 'embedded')) {
    log.warn(
      { networks: networks.filter((n) => config.networks[n.name].indexer !== 'embedded').map((n) => n.name) },
      'dust.stateDir is not set: DUST reservations of answered sponsorships do not survive a restart, so a fee intent answered ' +
        'just before one can share its UTXO with a new one',
    );
  }
  // Several instances: budgets, dedupe and shares in Redis; each wallet leased to one instance.
  const state = ctx.state ? await sharedSponsorship(ctx, networks, log) : undefined;
  const gate = policyGate(ctx, state?.userCounters, log);
  const usage = usageLedger(ctx, log);
  const budgets = state ? new state.RedisBudgetStore(ctx.state!.redis, { local: (id) => id === POOL_KEY_ID }) : new MemoryBudgetStore();
  const policy = new SponsorshipPolicy(
    { maxFee: BigInt(config.dust.maxFee), budget: BigInt(config.dust.budget), windowMs: config.dust.budgetWindowMs },
    budgets,
  );
  const service = new SponsorshipService({
    networks,
    pool,
    sync,
    policy,
    clock: ctx.clock,
    logger: log,
    margin: config.dust.feeMargin,
    reservationTtlMs: config.dust.reservationTtlMs,
    ttlSafetyMs: config.dust.ttlSafetyMs,
    feeTtlMs: config.dust.feeTtlMs,
    maxReservationsPerKey: config.dust.maxReservationsPerKey,
    dedupeWindowMs: config.dust.dedupeWindowMs,
    maxInFlight: config.dust.maxInFlight,
    ...(journal ? { journal } : {}),
    ...(state ? { sharing: state.sharing, sharedInputs: state.inputHolds } : {}),
    ...(config.dust.checkInputs ? { inputs: inputChecker(ctx, networks) } : {}),
    expiryMarginMs: config.dust.expiryMarginMs,
    throttleSlack: config.dust.throttleSlack,
    keyHealthWindowMs: config.dust.keyHealthWindowMs,
    gate,
    usage,
  });
  // One submitter per network the server reaches: the keepers' splits and POST /submit.
  const submitters = new Map<NetworkName, Submitter>();
  for (const n of NETWORKS) {
    const source = sourceOf(ctx, n);
    if (source) submitters.set(n, networkSubmitter(config, n, source.nodeRpcUrl, source.credentials));
  }
  ctx.addRoutes([submitRoute({ submitters, defaultNetwork: config.prover.defaultNetwork, bodyLimit: config.server.bodyLimit, audit: routeDeps.audit })]);
  for (const n of networks) {
    const source = sourceOf(ctx, n.name)!;
    const submitter = submitters.get(n.name)!;
    service.addKeeper(
      new PoolKeeper({
        net: n,
        target: config.dust.targetUtxos,
        submitter,
        indexerWsUrl: source.wsUrl,
        credentials: source.credentials,
        service,
        pool,
        clock: ctx.clock,
        logger: log,
        maxSplits: config.dust.maxReservationsPerKey,
        timeoutMs: config.stats.upstreamTimeoutMs,
        stateDir: config.dust.stateDir || undefined,
        metrics: ctx.metrics,
        growAtStart: config.dust.growAtStart,
        walletBook: new WalletBook({
          net: n,
          pool,
          clock: ctx.clock,
          indexerWsUrl: source.wsUrl,
          credentials: source.credentials,
          timeoutMs: config.stats.upstreamTimeoutMs,
          eraOf: (name) => service.eraOf(name),
        }),
      }),
    );
  }
  // The chain the DUST sync follows says which era each sponsored network runs now.
  const eras = networkEras(ctx);
  sync.onStatus((s) => {
    if (s.era !== undefined) eras.set(s.network as NetworkName, s.era);
  });
  if (networks.length > 0) sync.start();
  else log.warn('balancing enabled but no network has server wallets: set NIGHTGATE_DUST_WALLET_MNEMONIC (docs/going-live.md)');
  ctx.addRoutes(sponsorshipRoutes({ ...routeDeps, service }));
  mountUsage(ctx, usage);
  const component: SponsorshipComponent = {
    name: SPONSORSHIP_COMPONENT,
    service,
    health: () => {
      const status = service.status();
      const syncing = networks.some((n) => !sync.isSynced(n.name));
      return {
        status: networks.length === 0 ? 'disabled' : syncing ? 'starting' : 'ok',
        ...service.stats(),
        journal: journal?.stats() ?? null,
        networks: status,
        ...(state ? { walletLeases: state.leases.status() } : {}),
      };
    },
    // Readiness: every sponsoring network's wallets synced (its reservations restored from the
    // journal by then), or sponsorship answers WALLET_SYNCING.
    ready: () => [...walletsNotSynced(service.status()), ...poolsFilling(service)],
    close: async () => {
      service.close();
      await sync.close();
      journal?.close();
      await Promise.all([...submitters.values()].map((s) => s.close()));
      await gate.close();
      await state?.leases.release();
    },
  };
  ctx.addComponent(component);
};

/** Keys' policies (docs/policies.md): per-user counters shared through Redis with several instances, the owners' webhooks. */
function policyGate(ctx: AppContext, shared: UserCounterStore | undefined, log: AppContext['logger']): PolicyGate {
  return new PolicyGate({ counters: shared ?? new MemoryUserCounters(), webhook: new PolicyWebhook({ clock: ctx.clock }), logger: log });
}

/** What each key's DUST paid for, kept in `dust.stateDir` when set, and GET /usage that reads it with the keys' requests. */
function usageLedger(ctx: AppContext, log: AppContext['logger']): UsageLedger {
  const usage = new UsageLedger({ clock: ctx.clock, logger: log });
  if (ctx.config.dust.stateDir !== '') usage.load(ctx.config.dust.stateDir);
  return usage;
}

function mountUsage(ctx: AppContext, usage: UsageLedger): void {
  ctx.addRoutes(
    usageRoutes({ ledger: usage, keyRequests: ctx.config.metrics.enabled ? ctx.metrics.requests.keys : undefined, describe: (id) => ctx.keys.describe(id) }),
  );
  ctx.addComponent(usageComponent(usage));
}

/** Reads each sponsored network's unspent UTXOs from the indexer its DUST sync follows. */
function inputChecker(ctx: AppContext, networks: readonly SponsoredNetwork[]): InputChecker {
  const byName = new Map(networks.map((n) => [n.name as string, n]));
  const readers = new Map(
    networks.map((n) => [
      n.name as string,
      new UnspentUtxoReader(sourceOf(ctx, n.name)!.wsUrl, ctx.config.stats.upstreamTimeoutMs, undefined, sourceOf(ctx, n.name)!.credentials),
    ]),
  );
  return new InputChecker({
    clock: ctx.clock,
    cacheMs: ctx.config.dust.inputCheckCacheMs,
    networkIdOf: (name) => byName.get(name)?.networkId,
    reader: (name, address) => readers.get(name)!.read(address),
    close: () => {
      for (const r of readers.values()) r.close();
    },
  });
}

/** The shared side of sponsorship: wallet leases taken (or the start refused), dedupe and shares in Redis. */
async function sharedSponsorship(ctx: AppContext, networks: readonly SponsoredNetwork[], log: AppContext['logger']) {
  const [{ WalletLeases, WalletLeaseError }, { RedisSponsorshipSharing, redisInputHolds }, { RedisBudgetStore }, { RedisUserCounters }] =
    await loadSharedStores();
  const redis = ctx.state!.redis;
  const leases = new WalletLeases({
    redis,
    clock: ctx.clock,
    logger: log,
    ttlMs: ctx.config.state.leaseTtlMs,
    wallets: new Map(networks.map((n) => [n.name, n.seeds])),
  });
  try {
    await leases.start();
  } catch (err) {
    // Two instances on the same wallets is a configuration error: stated as one, without a stack.
    if (err instanceof WalletLeaseError) throw new ConfigError(err.message);
    throw err;
  }
  const sharing = new RedisSponsorshipSharing({ redis, leases, clock: ctx.clock, logger: log, dedupeWindowMs: ctx.config.dust.dedupeWindowMs });
  return { leases, sharing, inputHolds: redisInputHolds(redis), RedisBudgetStore, userCounters: new RedisUserCounters(redis) };
}
