// What every resolver of one network sees. The executable schema is shared by all networks of the
// worker; the context carries the network.
import type { IndexerStore } from './indexer-store.js';
import type { Era, L, Ledger } from './ledger-kit.js';

export interface GraphQLContext {
  store: IndexerStore;
  networkId: string;
  now(): number;
  /** The chain's current Zswap state, for collapsed Merkle-tree updates. */
  zswapState(): L.ZswapChainState;
  /** The ledger era the network runs now, and its package (the Zswap state above is of this era). */
  era: Era;
  ledger: Ledger;
  /** What the network's current era reports as its protocol version. */
  protocolVersion: number;
}

type Resolver = (source: never, args: never, context: GraphQLContext) => unknown;

export interface SubscriptionResolver {
  subscribe: (source: unknown, args: never, context: GraphQLContext) => AsyncIterable<unknown>;
  resolve: (event: never) => unknown;
}

export type ResolverMap = Record<string, Record<string, Resolver | SubscriptionResolver>>;

/** `@oneOf` inputs of the schema: exactly one key is set (GraphQL validates that). */
export interface BlockOffsetInput {
  hash?: string;
  height?: number;
}

export interface TransactionOffsetInput {
  hash?: string;
  identifier?: string;
}
