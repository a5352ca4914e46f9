/**
 * Epoch and governance data of one network, which change slowly: `currentEpochInfo`,
 * `epochUtilization` and `dParameterHistory` (LEDGER.md, "Indexer"). They come from an optional
 * SPO indexer and may be null or fail without the rest of the indexer failing, so a failure
 * here keeps the last known values and never degrades the network's status by itself.
 *
 * With a node RPC (`networks.<n>.nodeRpc`), what the indexer lacks is read from the node in the
 * same refresh: the epoch when the indexer gave no `currentEpochInfo`, the D-parameter (at the
 * window's tip) while no block in the window carries system parameters. Its failures, too, keep
 * the last known values; the latest one is kept to say why a route has nothing to serve.
 *
 * Refreshed when a new block arrives and the last refresh is older than REFRESH_INTERVAL_MS of
 * the injected clock: no timer of its own, and tests move time instead of waiting.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { toGatewayError, type GatewayError } from '../../core/errors.js';
import type { BlockWindow } from './block-window.js';
import { anchorFromInfo, type EpochAnchor } from './epoch.js';
import type { GraphqlHttpClient } from '../../infra/indexer/graphql-http.js';
import type { NodeRpcClient } from './node-rpc.js';
import { EPOCH_UTILIZATION, GOVERNANCE } from './queries.js';
import { GovernanceData, UtilizationData, expectShape } from './upstream-types.js';

const REFRESH_INTERVAL_MS = 60_000;

export interface DParameterChange {
  blockHeight: number;
  numPermissionedCandidates: number;
  numRegisteredCandidates: number;
}

/** A D-parameter read from the node, and the height of the block it was read at. */
export interface NodeDParameterReading {
  numPermissionedCandidates: number;
  numRegisteredCandidates: number;
  blockHeight: number;
}

/** The node that fills in what the indexer lacks, and the window whose tip it is asked about. */
interface NodeFallback {
  rpc: NodeRpcClient;
  window: BlockWindow;
}

export class Governance extends EventEmitter<{ updated: [] }> {
  /** From the last non-null `currentEpochInfo`, or from the node when the indexer gave none. */
  epoch: EpochAnchor | undefined;
  /** produced/expected blocks of the current epoch, clamped to 0–1; null when unknown. */
  utilization: number | null = null;
  dParameterHistory: readonly DParameterChange[] | undefined;
  /** From the node while no block in the window carries system parameters; undefined otherwise. */
  nodeDParameter: NodeDParameterReading | undefined;
  /** Why the node gave no epoch (or D-parameter) the last time it was asked; cleared by an answer. */
  nodeEpochError: GatewayError | undefined;
  nodeDParameterError: GatewayError | undefined;
  refreshes = 0;
  failures = 0;
  private lastStartedAt: number | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly http: GraphqlHttpClient,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly node?: NodeFallback,
  ) {
    super();
  }

  /** Start a refresh unless one ran within the interval (or is running). */
  maybeRefresh(): void {
    const now = this.clock.now();
    if (this.running || (this.lastStartedAt !== undefined && now - this.lastStartedAt < REFRESH_INTERVAL_MS)) return;
    this.lastStartedAt = now;
    this.running = this.refresh().finally(() => (this.running = undefined));
  }

  /** Resolves when no refresh is running. */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async refresh(): Promise<void> {
    const indexerEpoch = await this.readIndexer();
    if (this.node) await this.readNode(this.node, indexerEpoch);
    this.emit('updated');
  }

  /** Read the indexer's governance data; true when it gave the current epoch. */
  private async readIndexer(): Promise<boolean> {
    try {
      const readAt = this.clock.now();
      const { data, errors } = await this.http.request(GOVERNANCE, {}, { partial: true });
      if (errors.length > 0) this.log.debug({ errors }, 'governance query partly failed (no SPO indexer?)');
      const g = expectShape(GovernanceData, data, GOVERNANCE.name);
      const info = g.currentEpochInfo;
      if (info && info.durationSeconds > 0) this.epoch = anchorFromInfo(info, readAt);
      if (g.dParameterHistory) this.dParameterHistory = [...g.dParameterHistory].sort((a, b) => a.blockHeight - b.blockHeight);
      this.utilization = null;
      if (info) {
        const u = await this.http.request(EPOCH_UTILIZATION, { epoch: info.epochNo }, { partial: true });
        const value = expectShape(UtilizationData, u.data, EPOCH_UTILIZATION.name).epochUtilization;
        this.utilization = value === null || !Number.isFinite(value) ? null : Math.round(Math.min(1, Math.max(0, value)) * 10_000) / 10_000;
      }
      this.refreshes++;
      return info !== null && info !== undefined && info.durationSeconds > 0;
    } catch (err) {
      this.failures++;
      this.log.debug({ err: (err as Error).message }, 'governance refresh failed; keeping the last known values');
      return false;
    }
  }

  private async readNode(node: NodeFallback, indexerEpoch: boolean): Promise<void> {
    this.nodeEpochError = undefined;
    if (!indexerEpoch) {
      try {
        this.epoch = await node.rpc.epoch();
      } catch (err) {
        this.nodeEpochError = this.nodeFailed(err, 'epoch');
      }
    }
    this.nodeDParameterError = undefined;
    const tip = node.window.tip;
    if (tip === undefined || node.window.all.some((b) => b.systemParameters !== undefined)) {
      this.nodeDParameter = undefined;
      return;
    }
    try {
      const d = await node.rpc.dParameter(tip.hash);
      this.nodeDParameter = {
        numPermissionedCandidates: d.numPermissionedCandidates,
        numRegisteredCandidates: d.numRegisteredCandidates,
        blockHeight: tip.height,
      };
    } catch (err) {
      this.nodeDParameterError = this.nodeFailed(err, 'D-parameter');
    }
  }

  private nodeFailed(err: unknown, what: string): GatewayError {
    const e = toGatewayError(err);
    // Configured on purpose, so a failure is news; a refresh runs at most once a minute.
    this.log.warn({ code: e.code, err: e.message }, `node RPC gave no ${what}; keeping the last known value`);
    return e;
  }
}
