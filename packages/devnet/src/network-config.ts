// What one embedded network is configured with and what it reports once it runs (network.ts).
import type { Era } from '@nightgate/ledger/era';

/**
 * The era a network switches from at `ledger9AtHeight` (ledger-switch.ts), and the era it switches
 * to: the network's history, not what either era is (that is `ERA_TABLE`'s).
 */
export const SWITCH_FROM: Era = 8;
export const SWITCH_TO: Era = 9;

export interface NetworkConfig {
  name: string;
  networkId: string;
  seed: string;
  sponsorWallets: string[];
  /** 0: blocks only on `produceBlock()`. */
  blockTimeMs: number;
  /** 0 picks a free port. */
  port: number;
  /** This network's own directory; absent: in memory. */
  stateDir?: string;
  /** Blocks the indexer keeps in memory (default DEFAULT_RETAIN_BLOCKS). */
  retainBlocks?: number;
  genesisAgeMs: number;
  /** Ledger era of the genesis (default 9). */
  ledger?: Era;
  /** With `ledger` 8: the height whose block starts ledger 9 from a fresh state (0 or absent: never). */
  ledger9AtHeight?: number;
  /**
   * A hosted provider's project id: every request but /health must carry it (`project_id` header,
   * or the GraphQL WebSocket's connection_init payload), else 401. Absent: none wanted.
   */
  projectId?: string;
  /** `public`: as a public network, transactions through the node RPC only, and no faucet. */
  profile?: 'default' | 'public';
  now?: () => number;
}

/** Endpoints of one devnet network: what `startDevnet` reports and `/health` lists. */
export interface NetworkInfo {
  name: string;
  networkId: string;
  graphqlUrl: string;
  graphqlWsUrl: string;
  /** The node RPC (JSON-RPC `author_submitExtrinsic`) over HTTP, and over WebSocket. */
  nodeRpcUrl: string;
  nodeRpcWsUrl: string;
  /** On a network of the `public` profile these two answer 404: transactions go through the node RPC. */
  submitUrl: string;
  faucetUrl: string;
  /** `default`, or `public`: behaves as a hosted public network (project id, node RPC only, no faucet). */
  profile: 'default' | 'public';
  /** The ledger era the network ran when it started. */
  ledger: Era;
  /** The height whose block runs ledger 9 first: 0 from genesis, the switch height, or null (never). */
  ledger9AtHeight: number | null;
}

export const MIN_GENESIS_AGE_MS = 60 * 60 * 1000;

/**
 * About 100 minutes at 6 s: the statistics ring's default backfill (1000 blocks) and more than
 * three 30-minute epochs (epoch utilization counts the blocks of the current one).
 */
export const DEFAULT_RETAIN_BLOCKS = 1_000;
