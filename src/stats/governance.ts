/**
 * Epoch and governance data of one network, which change slowly: `currentEpochInfo`,
 * `epochUtilization` and `dParameterHistory` (LEDGER.md, "Indexer"). They come from an optional
 * SPO indexer and may be null or fail without the rest of the indexer failing, so a failure
 * here keeps the last known values and never degrades the network's status by itself.
 *
 * Refreshed when a new block arrives and the last refresh is older than REFRESH_INTERVAL_MS of
 * the injected clock: no timer of its own, and tests move time instead of waiting.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { anchorFromInfo, type EpochAnchor } from './epoch.js';
import type { GraphqlHttpClient } from '../indexer/graphql-http.js';
import { EPOCH_UTILIZATION, GOVERNANCE } from './queries.js';
import { GovernanceData, UtilizationData, expectShape } from './upstream-types.js';

const REFRESH_INTERVAL_MS = 60_000;

export interface DParameterChange {
  blockHeight: number;
  numPermissionedCandidates: number;
  numRegisteredCandidates: number;
}

export class Governance extends EventEmitter<{ updated: [] }> {
  /** From the last non-null `currentEpochInfo`. */
  epoch: EpochAnchor | undefined;
  /** produced/expected blocks of the current epoch, clamped to 0–1; null when unknown. */
  utilization: number | null = null;
  dParameterHistory: readonly DParameterChange[] | undefined;
  refreshes = 0;
  failures = 0;
  private lastStartedAt: number | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly http: GraphqlHttpClient, private readonly clock: Clock, private readonly log: Logger) {
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
    } catch (err) {
      this.failures++;
      this.log.debug({ err: (err as Error).message }, 'governance refresh failed; keeping the last known values');
    }
    this.emit('updated');
  }
}
