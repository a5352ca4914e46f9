/** Messages between the main thread (sync-host.ts) and the DUST sync thread (sync-thread.ts). */
import type { UpstreamCredentials } from '../../../core/config/index.js';
import type { Era } from '../../../infra/ledger/index.js';

export interface NetworkSyncInit {
  network: string;
  graphqlUrl: string;
  graphqlWsUrl: string;
  /** What the indexer wants with each request (a hosted provider's project id): secrets. */
  credentials?: UpstreamCredentials;
  /** The keys of the server wallets (`WalletKeys`); the wallet index is the position here. */
  seeds: readonly string[];
  table: SharedArrayBuffer;
  snapshot: SharedArrayBuffer;
  timeoutMs: number;
  /** SPENT slots stay visible (wallet-status counts) this long before their slot is reused. */
  spentRetentionMs: number;
  /**
   * How often the tip's ledger parameters are read again (fee prices move every block with its
   * fullness, so fees must be computed from the tip's, not from those read at start). Default 1 000.
   */
  paramsRefreshMs?: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** The network's block interval: how far behind the chain's head the indexer's tip may be is counted in blocks. */
  blockTimeMs: number;
}

export type SyncPhase = 'starting' | 'syncing' | 'synced' | 'reconnecting';

/** The fee prices of the tip's ledger parameters (`LedgerParameters.feePrices`), as numbers the ledger gives them. */
export interface TipFees {
  /** The tip block the prices were last read at. */
  atHeight: number;
  prices: { overall: number; read: number; compute: number; blockUsage: number; write: number };
}

export interface SyncStatus {
  network: string;
  phase: SyncPhase;
  /** The ledger era the wallets are replayed in (undefined before the chain has said). */
  era: Era | undefined;
  /** How many times the wallets started afresh because the chain changed era. */
  eraSwitches: number;
  /** Last event replayed, and the indexer's latest event id when it was sent. */
  eventId: number;
  maxId: number;
  /** Spendable DUST of all server wallets now (SPECK, decimal string). */
  balance: string;
  wallets: Array<{ index: number; balance: string; utxos: number }>;
  /** The fee prices the wallets price fees with now (undefined until the tip's parameters of their era are read). */
  fees: TipFees | undefined;
  lastError: string | undefined;
  updatedAt: number;
}

export interface SyncThreadData {
  networks: NetworkSyncInit[];
}

export type FromSyncThread = { type: 'status'; status: SyncStatus } | { type: 'failed'; network: string; error: string };

export type ToSyncThread = { type: 'close' };
