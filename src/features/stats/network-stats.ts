/**
 * Everything the statistics API keeps for one network, wired together: the indexer clients,
 * the block window and its follower, governance data, the pre-rendered views, the lookups —
 * and the component that reports their health and closes them at shutdown.
 */
import type { Logger } from 'pino';
import type { AppContext, Component, ComponentHealth } from '../../infra/app-context.js';
import type { NetworkName } from '../../core/config/index.js';
import type { NetworkSource } from '../../infra/indexer/source.js';
import { GatewayError } from '../../core/errors.js';
import { BlockWindow } from './block-window.js';
import { CHAIN_SPEC_EPOCH_SECONDS, DEVNET_EPOCH_SECONDS } from './epoch.js';
import { ChainFollower, type FollowerState } from './follower.js';
import { Governance } from './governance.js';
import { IndexerFeatureProbe } from './indexer-features.js';
import type { IndexerFeatures } from './queries.js';
import { GraphqlHttpClient } from '../../infra/indexer/graphql-http.js';
import { LookupCache } from './lookup-cache.js';
import { NodeRpcClient } from './node-rpc.js';
import { Lookups } from './lookups.js';
import { DerivedViews } from './views.js';
import { STALE_AFTER_BLOCKS, TARGET_BLOCK_SECONDS, staleReason } from './derive.js';
import { redactUrl } from '../../core/log/url-redaction.js';
import { eraOfProtocolVersion, type Era } from '../../infra/ledger/index.js';
import { networkEras } from '../../infra/ledger/network-eras.js';

/** Client pings on the block subscription; three silent periods mean a dead connection. */
const KEEPALIVE_MS = 15_000;

const NAMES: Record<NetworkName, string> = { mainnet: 'Midnight Mainnet', preprod: 'Midnight Preprod', preview: 'Midnight Preview' };

export const summaryTopic = (network: string): string => `stats/${network}/summary`;

/** A network's statistics in /health (and, read at scrape time, on /metrics: src/features/stats/metrics.ts). */
interface NetworkStatsHealth extends ComponentHealth {
  status: 'ok' | 'degraded' | 'down' | 'starting';
  source: string;
  follower: FollowerState;
  /** Whether the follower's latest exchange with the indexer succeeded (else cached data is served, `X-Cache: STALE`). */
  upstreamOk: boolean;
  subscription: 'connected' | 'disconnected';
  latestHeight: number | null;
  latestBlockAgeSeconds: number | null;
  /** The block time the network is expected to keep, and the block age from which it is stale (`degraded`, missing from /readyz, not sponsored). */
  blockTimeSeconds: number;
  staleAfterSeconds: number;
  /** Why the chain is stale (its newest block's height and age), else null. */
  stale: string | null;
  dataAgeSeconds: number | null;
  windowBlocks: number;
  /** Times the block subscription was lost and reopened. */
  reconnects: number;
  /** Failed exchanges with the indexer. */
  upstreamErrors: number;
  upstreamRequests: number;
  lastError: { code: string; message: string; at: string } | null;
  /** The lookup cache: entries, and its decisions since start. */
  cache: { entries: number; inFlight: number; hits: number; misses: number; stale: number };
  addressStreams: { open: number; max: number; refused: number };
  governance: { refreshes: number; failures: number; nodeRpc: { requests: number; failures: number } | null };
  indexerFeatures: IndexerFeatures | null;
  ledger: Era | null;
}

export class NetworkStats implements Component {
  readonly name: string;
  readonly http: GraphqlHttpClient;
  readonly window: BlockWindow;
  readonly follower: ChainFollower;
  readonly governance: Governance;
  /** The node the epoch and D-parameter are read from when the indexer lacks them (`networks.<n>.nodeRpc`). */
  readonly nodeRpc: NodeRpcClient | undefined;
  readonly features: IndexerFeatureProbe;
  readonly views: DerivedViews;
  readonly cache: LookupCache;
  readonly lookups: Lookups;
  /**
   * The block time this network is expected to keep, which its freshness is judged by: the embedded
   * devnet's `devnet.blockTimeMs`, else Midnight's 6 s (as sponsorship prices fees by).
   */
  readonly blockTimeMs: number;
  private readonly log: Logger;
  private pushedTip: string | undefined;

  constructor(
    private readonly ctx: AppContext,
    readonly network: NetworkName,
    readonly source: NetworkSource,
  ) {
    const cfg = ctx.config.stats;
    this.name = `stats:${network}`;
    this.log = ctx.logger.child({ module: 'stats', network });
    this.http = new GraphqlHttpClient(source.httpUrl, {
      timeoutMs: cfg.upstreamTimeoutMs,
      maxResponseBytes: cfg.maxResponseBytes,
      headers: source.credentials.headers,
    });
    this.window = new BlockWindow(cfg.ringSize);
    this.blockTimeMs = source.embedded ? ctx.config.devnet.blockTimeMs : TARGET_BLOCK_SECONDS * 1000;
    this.features = new IndexerFeatureProbe(this.http, this.log);
    this.follower = new ChainFollower({
      http: this.http,
      wsUrl: source.wsUrl,
      credentials: source.credentials,
      network,
      window: this.window,
      clock: ctx.clock,
      log: this.log,
      pollIntervalMs: cfg.pollIntervalMs,
      reconnectMinMs: cfg.reconnectMinMs,
      reconnectMaxMs: cfg.reconnectMaxMs,
      ackTimeoutMs: cfg.upstreamTimeoutMs,
      keepAliveMs: KEEPALIVE_MS,
      features: this.features,
    });
    // The devnet's node has no epoch or D-parameter methods: its indexer serves both.
    const nodeRpc = source.embedded ? undefined : source.nodeRpcUrl;
    this.nodeRpc = nodeRpc === undefined ? undefined : new NodeRpcClient(nodeRpc, { timeoutMs: cfg.upstreamTimeoutMs, headers: source.credentials.headers });
    this.governance = new Governance(this.http, ctx.clock, this.log, this.nodeRpc && { rpc: this.nodeRpc, window: this.window });
    this.views = new DerivedViews({
      network: { id: network, name: NAMES[network], source: source.label },
      window: this.window,
      follower: this.follower,
      governance: this.governance,
      chainEpochSeconds: source.embedded ? DEVNET_EPOCH_SECONDS : CHAIN_SPEC_EPOCH_SECONDS[network],
      blockTimeMs: this.blockTimeMs,
    });
    this.cache = new LookupCache(cfg.lookupCacheSize, ctx.clock);
    this.lookups = new Lookups({
      network,
      networkId: source.networkId,
      http: this.http,
      wsUrl: source.wsUrl,
      credentials: source.credentials,
      cache: this.cache,
      window: this.window,
      timeoutMs: cfg.upstreamTimeoutMs,
      maxAddressStreams: cfg.maxAddressStreams,
      features: this.features,
    });
    this.follower.on('blocks', () => this.onBlocks());
    this.follower.on('state', () => this.views.invalidate());
    this.governance.on('updated', () => this.views.invalidate());
  }

  start(): void {
    const nodeRpc = this.source.embedded ? undefined : this.source.nodeRpcUrl;
    this.log.info(
      {
        indexer: redactUrl(this.source.httpUrl),
        ws: redactUrl(this.source.wsUrl),
        nodeRpc: nodeRpc === undefined ? null : redactUrl(nodeRpc),
        source: this.source.label,
      },
      'following the chain',
    );
    this.follower.start();
  }

  /** The window changed: re-render once; on a new tip, push the summary to WebSocket subscribers. */
  private onBlocks(): void {
    this.views.invalidate();
    this.governance.maybeRefresh();
    // Backfilled history changes the window but not the tip: subscribers hear of new blocks only.
    const tip = this.window.tip;
    if (!tip || tip.hash === this.pushedTip) return;
    this.pushedTip = tip.hash;
    // The tip says which ledger the network runs now: proving picks its era from it even where no
    // DUST sync follows this network.
    networkEras(this.ctx).set(this.network, eraOfProtocolVersion(tip.protocolVersion));
    const text = this.views.summaryText(this.ctx.clock.now());
    if (text !== undefined) this.ctx.publish(summaryTopic(this.network), text);
  }

  /** Why this network's chain is stale at `now` (derive.ts, `isStale`); undefined while it is fresh or has no block yet. */
  staleReason(now: number): string | undefined {
    const tip = this.window.tip;
    return tip && staleReason(tip, now, this.blockTimeMs);
  }

  health(): NetworkStatsHealth {
    const f = this.follower;
    const now = this.ctx.clock.now();
    const tip = this.window.tip;
    const stale = this.staleReason(now);
    const status =
      f.state === 'stopped' ? 'down' : tip === undefined ? (f.lastError ? 'down' : 'starting') : f.upstreamOk && stale === undefined ? 'ok' : 'degraded';
    return {
      status,
      source: this.source.label,
      follower: f.state,
      upstreamOk: f.upstreamOk,
      subscription: f.subscriptionConnected ? 'connected' : 'disconnected',
      latestHeight: tip?.height ?? null,
      latestBlockAgeSeconds: tip ? Math.max(0, Math.floor((now - tip.timestamp) / 1000)) : null,
      blockTimeSeconds: this.blockTimeMs / 1000,
      staleAfterSeconds: (STALE_AFTER_BLOCKS * this.blockTimeMs) / 1000,
      stale: stale ?? null,
      dataAgeSeconds: f.dataAgeSeconds(now),
      windowBlocks: this.window.size,
      reconnects: f.reconnects,
      upstreamErrors: f.upstreamErrors,
      upstreamRequests: this.http.requests,
      lastError: f.lastError ? { code: f.lastError.code, message: f.lastError.message, at: new Date(f.lastErrorAt!).toISOString() } : null,
      cache: { entries: this.cache.size, inFlight: this.cache.inFlight, hits: this.cache.hits, misses: this.cache.misses, stale: this.cache.stale },
      addressStreams: { open: this.lookups.addressStreams, max: this.ctx.config.stats.maxAddressStreams, refused: this.lookups.addressStreamsRefused },
      governance: {
        refreshes: this.governance.refreshes,
        failures: this.governance.failures,
        nodeRpc: this.nodeRpc ? { requests: this.nodeRpc.requests, failures: this.nodeRpc.failures } : null,
      },
      indexerFeatures: this.features.current ?? null,
      ledger: tip ? eraOfProtocolVersion(tip.protocolVersion) : null,
    };
  }

  /**
   * Ready once the follower holds a block and that block is fresh: an indexer that answers while
   * the chain behind it has stopped serves old state (sponsorship then refuses, CHAIN_STALE).
   */
  ready(): string[] {
    const f = this.follower;
    if (f.state === 'stopped') return [`${this.name}: follower stopped`];
    if (this.window.tip === undefined) return [`${this.name}: no block from the indexer yet${f.lastError ? ` (${f.lastError.code})` : ''}`];
    const stale = this.staleReason(this.ctx.clock.now());
    return stale === undefined ? [] : [`${this.name}: chain stale: ${stale}`];
  }

  async close(): Promise<void> {
    this.follower.stop();
    this.cache.abortAll(new GatewayError('SHUTTING_DOWN'));
    // Destroying the pool fails whatever is still in flight (a catch-up, a governance refresh).
    await Promise.all([this.http.close(), this.nodeRpc?.close()]);
    await this.governance.settled();
  }
}
