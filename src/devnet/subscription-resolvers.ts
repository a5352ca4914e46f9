// Subscriptions: each replays from its offset, then follows the chain live, delivering every item
// once and in order (a reconnecting client passes the next offset and misses nothing).
import { parseUnshieldedAddress } from './address.js';
import type { BlockOffsetInput, GraphQLContext, ResolverMap } from './graphql-context.js';
import type { BlockRecord, ContractActionRecord, DustEventRecord, TransactionRecord, UtxoRecord, ZswapEventRecord } from './indexer-records.js';
import type { IndexerStore } from './indexer-store.js';
import { LiveFeed } from './live-feed.js';
import { blockAt } from './query-resolvers.js';
import { utxosOf } from './type-resolvers.js';
import { GraphQLError } from 'graphql';

function startHeight(store: IndexerStore, offset: BlockOffsetInput | null | undefined): number {
  if (!offset) return store.blocks.length > 0 ? store.blocks.length - 1 : 0;
  const block = blockAt(store, offset);
  if (block) return block.height;
  // A height not produced yet starts the feed there; an unknown hash is an error.
  if (offset.height !== undefined && offset.height !== null) return offset.height;
  throw new GraphQLError(`no block with hash ${offset.hash}`);
}

function blockFeed(store: IndexerStore, from: number): LiveFeed<BlockRecord> {
  let next = from;
  return new LiveFeed(store, () => {
    const out = store.blocks.slice(next);
    next += out.length;
    return out;
  });
}

function eventFeed<T>(store: IndexerStore, from: number, at: (id: number) => T | undefined): LiveFeed<T> {
  let next = Math.max(1, from);
  return new LiveFeed(store, () => {
    const out: T[] = [];
    for (let e = at(next); e !== undefined; e = at(next)) {
      out.push(e);
      next++;
    }
    return out;
  });
}

type UnshieldedEvent =
  | { __typename: 'UnshieldedTransaction'; transaction: TransactionRecord; createdUtxos: UtxoRecord[]; spentUtxos: UtxoRecord[] }
  | { __typename: 'UnshieldedTransactionsProgress'; highestTransactionId: number };

/** Transactions touching `owner` from `fromId`, each followed, once caught up, by a progress marker. */
function unshieldedFeed(store: IndexerStore, owner: string, fromId: number): LiveFeed<UnshieldedEvent> {
  let position = 0;
  let announcedProgress = false;
  return new LiveFeed(store, () => {
    const ids = store.transactionIdsOfAddress(owner);
    const out: UnshieldedEvent[] = [];
    for (; position < ids.length; position++) {
      const id = ids[position] as number;
      const tx = store.transaction(id);
      if (id < fromId || !tx) continue;
      const mine = (u: UtxoRecord) => u.owner === owner;
      out.push({
        __typename: 'UnshieldedTransaction',
        transaction: tx,
        createdUtxos: utxosOf(store, tx.createdUtxoKeys).filter(mine),
        spentUtxos: utxosOf(store, tx.spentUtxoKeys).filter(mine),
      });
    }
    if (out.length > 0 || !announcedProgress) {
      announcedProgress = true;
      out.push({ __typename: 'UnshieldedTransactionsProgress', highestTransactionId: ids[ids.length - 1] ?? 0 });
    }
    return out;
  });
}

function contractFeed(store: IndexerStore, address: string, fromHeight: number): LiveFeed<ContractActionRecord> {
  let position = 0;
  return new LiveFeed(store, () => {
    const ids = store.contractActionIds(address);
    const out: ContractActionRecord[] = [];
    for (; position < ids.length; position++) {
      const action = store.contractAction(ids[position] as number);
      const tx = action && store.transaction(action.transactionId);
      if (action && tx && tx.blockHeight >= fromHeight) out.push(action);
    }
    return out;
  });
}

const passThrough = (event: never) => event;

export const subscriptionResolvers: ResolverMap = {
  Subscription: {
    blocks: {
      subscribe: (_: unknown, { offset }: { offset?: BlockOffsetInput | null }, ctx: GraphQLContext) => blockFeed(ctx.store, startHeight(ctx.store, offset)),
      resolve: passThrough,
    },
    dustLedgerEvents: {
      subscribe: (_: unknown, { id }: { id?: number | null }, ctx: GraphQLContext) =>
        eventFeed<DustEventRecord>(ctx.store, id ?? 1, (n) => ctx.store.dustEvent(n)),
      resolve: passThrough,
    },
    zswapLedgerEvents: {
      subscribe: (_: unknown, { id }: { id?: number | null }, ctx: GraphQLContext) =>
        eventFeed<ZswapEventRecord>(ctx.store, id ?? 1, (n) => ctx.store.zswapEvent(n)),
      resolve: passThrough,
    },
    unshieldedTransactions: {
      subscribe: (_: unknown, args: { address: string; transactionId?: number | null }, ctx: GraphQLContext) => {
        let owner: string;
        try {
          owner = parseUnshieldedAddress(args.address);
        } catch (err) {
          throw new GraphQLError(`invalid unshielded address: ${err instanceof Error ? err.message : String(err)}`);
        }
        return unshieldedFeed(ctx.store, owner, args.transactionId ?? 0);
      },
      resolve: passThrough,
    },
    contractActions: {
      subscribe: (_: unknown, args: { address: string; offset?: BlockOffsetInput | null }, ctx: GraphQLContext) =>
        contractFeed(ctx.store, args.address.toLowerCase(), startHeight(ctx.store, args.offset)),
      resolve: passThrough,
    },
  },
};
