// Messages between the main thread (launch.ts) and the devnet worker (chain-worker.ts). Only plain,
// structured-cloneable data crosses: no ledger objects, no logger.
import type { Era } from '@nightgate/ledger/era';
import type { LogLevel } from './logger.js';
import type { NetworkInfo } from './network-config.js';

export interface WorkerNetworkConfig {
  name: string;
  networkId: string;
  seed: string;
  sponsorDustSeeds: string[];
  port: number;
  stateDir?: string;
  ledger: Era;
  /** With ledger 8: the height ledger 9 starts at (0: never). */
  ledger9AtHeight: number;
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
