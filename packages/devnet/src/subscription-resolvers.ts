// Subscriptions: each replays from its offset, then follows the chain live, delivering every item
// once and in order (a reconnecting client passes the next offset and misses nothing). Blocks and
// ledger events older than the indexer's retained history come from its archive; without one, a
// feed that would need them fails with DEVNET_PRUNED instead of skipping them. Unshielded
// transactions, contract actions and contract events cover the retained history (indexer-store.ts).
import { parseUnshieldedAddress } from '@nightgate/ledger/address';
import { contractEventFilter, matchesFilter, type ContractEventFilter, type ContractEventFilterInput } from './contract-events.js';
import { DevnetErrorCode } from './errors.js';
import type { BlockOffsetInput, GraphQLContext, ResolverMap } from './graphql-context.js';
import type {
  BlockRecord,
  ContractActionRecord,
  ContractEventRecord,
  DustEventRecord,
  TransactionRecord,
  UtxoRecord,
  ZswapEventRecord,
} from './indexer-records.js';
import type { IndexerStore } from './indexer-store.js';
import { LiveFeed } from './live-feed.js';
import { blockAt } from './query-resolvers.js';
import { utxosOf } from './type-resolvers.js';
import { GraphQLError } from 'graphql';

/** Blocks, and ledger events, read per pull when replaying: a long replay does not hold the thread. */
const REPLAY_BLOCKS = 100;
const REPLAY_EVENTS = 1_000;

function pruned(what: string, store: IndexerStore, oldest: string): GraphQLError {
  return new GraphQLError(
    `${what} is older than this devnet keeps: it holds its newest ${store.retainBlocks}` +
      ` blocks in memory (${oldest}` +
      `) and has no state directory to read older ones from`,
    { extensions: { code: DevnetErrorCode.PRUNED } },
  );
}

function startHeight(store: IndexerStore, offset: BlockOffsetInput | null | undefined): number {
  if (!offset) return Math.max(0, store.nextHeight - 1);
  const block = blockAt(store, offset);
  if (block) return block.height;
  // A height not produced yet starts the feed there; an unknown hash is an error.
  if (offset.height !== undefined && offset.height !== null) return offset.height;
  throw new GraphQLError(`no block with hash ${offset.hash}`);
}

/**
 * Checked when a feed starts (the subscription fails with the reason) and on every pull after: a
 * client slower than block production can fall behind what is held.
 */
function assertHeld(store: IndexerStore, what: string, next: number, oldest: number, unit: string): void {
  if (next < oldest && !store.hasArchive) throw pruned(`${what} ${next}`, store, `${unit} ${oldest} on`);
}

function blockFeed(store: IndexerStore, from: number): LiveFeed<BlockRecord> {
  let next = from;
  const pull = (): BlockRecord[] => {
    assertHeld(store, 'block', next, store.oldestRetainedHeight, 'heights');
    let out: BlockRecord[];
    if (next >= store.oldestRetainedHeight) out = store.retainedBlocksFrom(next, REPLAY_BLOCKS);
    else {
      out = [];
      for (let b = store.block(next); b !== undefined && out.length < REPLAY_BLOCKS; b = store.block(next + out.length)) out.push(b);
    }
    next += out.length;
    return out;
  };
  assertHeld(store, 'block', next, store.oldestRetainedHeight, 'heights');
  return new LiveFeed(store, pull);
}

function eventFeed<T>(store: IndexerStore, from: number, kind: 'dustEvent' | 'zswapEvent', at: (id: number) => T | undefined): LiveFeed<T> {
  let next = Math.max(1, from);
  const what = kind === 'dustEvent' ? 'DUST ledger event' : 'Zswap ledger event';
  assertHeld(store, what, next, store.oldestRetainedIds()[kind], 'ids');
  return new LiveFeed(store, () => {
    assertHeld(store, what, next, store.oldestRetainedIds()[kind], 'ids');
    const out: T[] = [];
    for (let e = at(next); e !== undefined && out.length < REPLAY_EVENTS; e = at(next)) {
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
  let next = fromId;
  let announcedProgress = false;
  return new LiveFeed(store, () => {
    const ids = store.transactionIdsOfAddress(owner);
    const out: UnshieldedEvent[] = [];
    for (const id of ids) {
      if (id < next) continue;
      next = id + 1;
      const tx = store.transaction(id);
      if (!tx) continue;
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
  let next = 0;
  return new LiveFeed(store, () => {
    const ids = store.contractActionIds(address);
    const out: ContractActionRecord[] = [];
    for (const id of ids) {
      if (id < next) continue;
      next = id + 1;
      const action = store.contractAction(id);
      const tx = action && store.transaction(action.transactionId);
      if (action && tx && tx.blockHeight >= fromHeight) out.push(action);
    }
    return out;
  });
}

/** What a feed's pull yields last when the subscription is complete. */
const END = Symbol('end of subscription');

/** The feed's items up to `END`, where the subscription completes. */
function untilEnd<T>(feed: LiveFeed<T | typeof END>): AsyncIterableIterator<T> {
  const it: AsyncIterableIterator<T> = {
    async next(): Promise<IteratorResult<T>> {
      const r = await feed.next();
      if (!r.done && r.value !== END) return { value: r.value as T, done: false };
      await feed.return();
      return { value: undefined, done: true };
    },
    // LiveFeed's return ends a wait for the next block at once (a generator's would wait for it).
    return: () => feed.return() as Promise<IteratorResult<T>>,
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}

/**
 * The contract's events that pass the filter, by id from `fromId` on (and, through the filter,
 * from `fromBlock`): the held ones, then each block's. With `toBlock`, it completes after the
 * first pull made once the chain has reached that height (decided before the pull reads the
 * store, so it reads every block the decision saw).
 */
function contractEventFeed(store: IndexerStore, filter: ContractEventFilter, fromId: number): AsyncIterableIterator<ContractEventRecord> {
  let next = fromId;
  const feed = new LiveFeed<ContractEventRecord | typeof END>(store, () => {
    const last = filter.toBlock !== undefined && (store.latestBlock?.height ?? -1) >= filter.toBlock;
    const out: Array<ContractEventRecord | typeof END> = [];
    for (const id of store.contractEventIds(filter.contractAddress)) {
      if (id < next) continue;
      next = id + 1;
      const e = store.contractEvent(id);
      if (e && matchesFilter(e, filter, () => store.transaction(e.transactionId)?.hash)) out.push(e);
    }
    if (last) out.push(END);
    return out;
  });
  return untilEnd(feed);
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
        eventFeed<DustEventRecord>(ctx.store, id ?? 1, 'dustEvent', (n) => ctx.store.dustEvent(n)),
      resolve: passThrough,
    },
    zswapLedgerEvents: {
      subscribe: (_: unknown, { id }: { id?: number | null }, ctx: GraphQLContext) =>
        eventFeed<ZswapEventRecord>(ctx.store, id ?? 1, 'zswapEvent', (n) => ctx.store.zswapEvent(n)),
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
    contractEvents: {
      subscribe: (_: unknown, args: { filter: ContractEventFilterInput; id?: number | null }, ctx: GraphQLContext) =>
        contractEventFeed(ctx.store, contractEventFilter(args.filter), args.id ?? 0),
      resolve: passThrough,
    },
  },
};
