// Messages between the main thread (launch.ts) and the devnet worker (chain-worker.ts). Only plain,
// structured-cloneable data crosses: no ledger objects, no logger.
import type { Era } from '@nightgate/ledger/era';
import type { LogLevel } from './logger.js';
import type { NetworkInfo } from './network-config.js';

interface WorkerNetworkConfig {
  name: string;
  networkId: string;
  seed: string;
  sponsorWallets: string[];
  port: number;
  stateDir?: string;
  ledger: Era;
  /** With ledger 8: the height ledger 9 starts at (0: never). */
  ledger9AtHeight: number;
  /**
   * A hosted provider's project id: every request but /health must carry it (`project_id` header,
   * or the GraphQL WebSocket's connection_init payload), else 401. Absent: none wanted.
   */
  projectId?: string;
  /** `public`: as a public network, transactions through the node RPC only, and no faucet. */
  profile?: 'default' | 'public';
}

export interface WorkerConfig {
  networks: WorkerNetworkConfig[];
  blockTimeMs: number;
  genesisAgeMs: number;
  retainBlocks?: number;
  /** Nice value for the chain thread (0 = unchanged). */
  threadNice?: number;
}

export type ToWorker = { type: 'close' };

export type FromWorker =
  | { type: 'ready'; networks: NetworkInfo[] }
  | { type: 'failed'; message: string }
  | { type: 'log'; level: LogLevel; obj: object; msg: string }
  | { type: 'closed' };
