/** Messages between the main thread (sync-host.ts) and the DUST sync thread (sync-thread.ts). */
import type { NetworkSyncInit, SyncStatus } from './wallet-sync.js';

export interface SyncThreadData {
  networks: NetworkSyncInit[];
}

export type FromSyncThread =
  | { type: 'status'; status: SyncStatus }
  | { type: 'failed'; network: string; error: string };

export type ToSyncThread = { type: 'close' };
