// What `startDevnet` takes and gives back (index.ts), in a module of its own so that launch.ts
// can use them without importing its own caller.
import type { Logger } from 'pino';
import type { NetworkInfo } from './network-config.js';

export interface DevnetOptions {
  networks: Array<{
    name: 'mainnet' | 'preprod' | 'preview' | string;
    /** Genesis seed; different per network. */
    seed: string;
    /**
     * Server wallets funded and registered at genesis: each its keys (`WalletKeys`, 128 hex: DUST
     * seed ‖ NIGHT key, @nightgate/ledger/wallet-keys) or a legacy 32-byte seed (64 hex).
     */
    sponsorWallets: string[];
    /** Ledger era of the genesis (default 9, as every public network). */
    ledger?: 8 | 9;
    /** With ledger 8: the height whose block starts ledger 9 from a fresh state (0 or absent: never). */
    ledger9AtHeight?: number;
    /**
     * A hosted provider's project id: every request but /health must carry it (`project_id` header,
     * or the GraphQL WebSocket's connection_init payload), else 401. Absent: none wanted.
     */
    projectId?: string;
    /** `public`: as a public network, transactions through the node RPC only, and no faucet. */
    profile?: 'default' | 'public';
  }>;
  blockTimeMs: number;
  stateDir?: string;
  /**
   * Blocks each network's indexer keeps in memory (default 1000); older ones are read from the
   * state directory when there is one, and pruned otherwise (indexer-store.ts).
   */
  retainBlocks?: number;
  /**
   * Nice value of the devnet's thread (Linux, 0–19; default 0 = as the caller): block production
   * is background work and then yields the CPU to the caller's threads under load.
   */
  threadNice?: number;
  /** Ledger network id, default 'undeployed'. */
  networkId?: string;
  logger?: Logger;
}

/** Endpoints of one devnet network (the same record the network reports when it starts). */
export type DevnetNetworkInfo = NetworkInfo;

export interface EmbeddedDevnet {
  networks: DevnetNetworkInfo[];
  close(): Promise<void>;
}
