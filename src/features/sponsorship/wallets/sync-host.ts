/**
 * Main-thread side of the DUST sync: starts the sync thread (ledger-v8 replays stay off the uWS
 * thread), keeps the latest status per network for /health, /wallet-status and the "wallet
 * syncing" 503, and restarts the thread with backoff if it dies.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { startModuleWorker } from '@nightgate/threads';
import type { FromSyncThread, SyncThreadData, ToSyncThread } from './sync-protocol.js';
import type { SyncStatus } from './wallet-sync.js';

const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 60_000;
const CLOSE_GRACE_MS = 5_000;

export class DustSyncHost {
  private worker: Worker | undefined;
  private readonly statuses = new Map<string, SyncStatus>();
  private readonly failures = new Map<string, string>();
  private restartDelay = RESTART_MIN_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners = new Set<(s: SyncStatus) => void>();

  constructor(
    private readonly data: SyncThreadData,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.closed) return;
    const worker = startModuleWorker(new URL('./sync-thread', import.meta.url), import.meta.url, { workerData: this.data, name: 'nightgate-dust-sync' });
    this.worker = worker;
    worker.on('message', (m: FromSyncThread) => this.receive(m));
    worker.on('error', (err) => this.log.error({ err }, 'DUST sync thread failed'));
    worker.on('exit', (code) => {
      if (this.closed) return;
      this.log.error({ code, restartInMs: this.restartDelay }, 'DUST sync thread exited; restarting');
      this.statuses.clear();
      this.restartTimer = setTimeout(() => this.start(), this.restartDelay);
      this.restartTimer.unref();
      this.restartDelay = Math.min(this.restartDelay * 2, RESTART_MAX_MS);
    });
  }

  /** A message of the sync thread: a network's status, or why its sync could not start. */
  receive(m: FromSyncThread): void {
    if (m.type === 'status') {
      const previous = this.statuses.get(m.status.network);
      this.statuses.set(m.status.network, m.status);
      this.failures.delete(m.status.network);
      if (previous?.phase !== m.status.phase)
        this.log.info({ network: m.status.network, phase: m.status.phase, eventId: m.status.eventId, maxId: m.status.maxId }, 'DUST wallet sync');
      // Each error once, when it appears, not at every status that still carries it.
      if (m.status.lastError !== undefined && m.status.lastError !== previous?.lastError)
        this.log.warn({ network: m.status.network, phase: m.status.phase, err: m.status.lastError }, 'DUST wallet sync error');
      if (m.status.phase === 'synced') this.restartDelay = RESTART_MIN_MS;
      for (const l of this.listeners) l(m.status);
    } else {
      this.failures.set(m.network, m.error);
      this.log.warn({ network: m.network, err: m.error }, 'DUST wallet sync could not start; retrying');
    }
  }

  status(network: string): SyncStatus | undefined {
    return this.statuses.get(network);
  }

  failure(network: string): string | undefined {
    return this.failures.get(network);
  }

  isSynced(network: string): boolean {
    return this.statuses.get(network)?.phase === 'synced';
  }

  /** Called on every status update (tests wait on this instead of sleeping). */
  onStatus(listener: (s: SyncStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToSyncThread);
    const timer = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
    timer.unref();
    await exited;
    clearTimeout(timer);
  }
}
