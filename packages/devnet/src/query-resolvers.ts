// Root query fields. Offsets are the schema's `@oneOf` inputs, so exactly one key is present.
import { contractEventFilter, matchesFilter, type ContractEventFilterInput } from './contract-events.js';
import { epochAt, epochBoundsMs, D_PARAMETER, SLOT_SECONDS } from './epoch.js';
import type { BlockOffsetInput, GraphQLContext, ResolverMap, TransactionOffsetInput } from './graphql-context.js';
import type { BlockRecord, ContractActionRecord, ContractEventRecord } from './indexer-records.js';
import type { IndexerStore } from './indexer-store.js';
import { bytesToHex } from './keys.js';
import type { ContractView } from './type-resolvers.js';
import { release, type L } from './ledger-kit.js';

export function blockAt(store: IndexerStore, offset: BlockOffsetInput | null | undefined): BlockRecord | undefined {
  if (!offset) return store.latestBlock;
  if (offset.hash !== undefined && offset.hash !== null) return store.blockByHash(offset.hash);
  return offset.height === undefined || offset.height === null ? undefined : store.block(offset.height);
}

function transactionsAt(store: IndexerStore, offset: TransactionOffsetInput) {
  if (offset.hash !== undefined && offset.hash !== null) return store.transactionsByHash(offset.hash);
  return offset.identifier ? store.transactionsByIdentifier(offset.identifier) : [];
}

/** The highest transaction id a contract-action offset admits (a block's last, or the transaction's). */
function transactionBound(
  store: IndexerStore,
  offset: { blockOffset?: BlockOffsetInput; transactionOffset?: TransactionOffsetInput } | null | undefined,
): number | undefined {
  if (!offset) return store.maxTransactionId;
  if (offset.blockOffset) {
    const block = blockAt(store, offset.blockOffset);
    return block && store.lastTransactionIdAt(block.height);
  }
  const txs = offset.transactionOffset ? transactionsAt(store, offset.transactionOffset) : [];
  return txs.length > 0 ? Math.max(...txs.map((t) => t.id)) : undefined;
}

function latestAction(store: IndexerStore, address: string, bound: number): ContractActionRecord | null {
  const ids = store.contractActionIds(address);
  for (let i = ids.length - 1; i >= 0; i--) {
    const action = store.contractAction(ids[i] as number);
    if (action && action.transactionId <= bound) return action;
  }
  return null;
}

/** `Query.contract`: the contract as of the block (the latest if none), null before its deploy. */
function contractAt(store: IndexerStore, address: string, offset: BlockOffsetInput | null | undefined): ContractView | null {
  const block = blockAt(store, offset);
  const bound = block && store.lastTransactionIdAt(block.height);
  if (bound === undefined) return null;
  const action = latestAction(store, address, bound);
  return action ? { address: action.address, state: action.state, transactionBound: bound } : null;
}

/** `Query.contractEvents`: 100 by default, at most 500 (the schema's documented limits). */
const EVENTS_DEFAULT = 100;
const EVENTS_MAX = 500;

/** The contract's retained events that pass the filter, by id, from `offset` on (at most `limit`). */
function contractEvents(store: IndexerStore, args: { filter: ContractEventFilterInput; limit?: number | null; offset?: number | null }): ContractEventRecord[] {
  const filter = contractEventFilter(args.filter);
  const limit = Math.min(EVENTS_MAX, Math.max(1, args.limit ?? EVENTS_DEFAULT));
  let skip = Math.max(0, args.offset ?? 0);
  const out: ContractEventRecord[] = [];
  for (const id of store.contractEventIds(filter.contractAddress)) {
    const e = store.contractEvent(id);
    if (!e || !matchesFilter(e, filter, () => store.transaction(e.transactionId)?.hash)) continue;
    if (skip > 0) skip--;
    else if (out.push(e) === limit) break;
  }
  return out;
}

export const queryResolvers: ResolverMap = {
  Query: {
    block: (_: unknown, { offset }: { offset?: BlockOffsetInput | null }, ctx: GraphQLContext) => blockAt(ctx.store, offset) ?? null,
    transactions: (_: unknown, { offset }: { offset: TransactionOffsetInput }, ctx: GraphQLContext) => transactionsAt(ctx.store, offset),
    contractAction: (_: unknown, args: { address: string; offset?: Parameters<typeof transactionBound>[1] }, ctx: GraphQLContext) => {
      const bound = transactionBound(ctx.store, args.offset);
      return bound === undefined ? null : latestAction(ctx.store, args.address, bound);
    },
    contract: (_: unknown, args: { address: string; offset?: BlockOffsetInput | null }, ctx: GraphQLContext) =>
      contractAt(ctx.store, args.address, args.offset),
    contractEvents: (_: unknown, args: Parameters<typeof contractEvents>[1], ctx: GraphQLContext) => contractEvents(ctx.store, args),
    dParameterHistory: (_: unknown, __: unknown, ctx: GraphQLContext) => {
      const genesis = ctx.store.genesis;
      return genesis ? [{ blockHeight: 0, blockHash: genesis.hash, timestamp: genesis.timestamp, ...D_PARAMETER }] : [];
    },
    // The devnet never sets Terms and Conditions.
    termsAndConditionsHistory: () => [],
    currentEpochInfo: (_: unknown, __: unknown, ctx: GraphQLContext) => epochAt(ctx.now()),
    epochUtilization: (_: unknown, { epoch }: { epoch: number }, ctx: GraphQLContext) => {
      const { startMs, endMs } = epochBoundsMs(epoch);
      const { store } = ctx;
      const genesis = store.genesis;
      const until = Math.min(endMs, ctx.now());
      if (!genesis || until <= startMs || endMs <= genesis.timestamp) return null;
      // Counted over the blocks held in memory: an epoch that began before the oldest of them is
      // measured from there (at 6 s the default history holds more than three epochs).
      const oldest = store.block(store.oldestRetainedHeight);
      const heldSince = store.oldestRetainedHeight > 0 && oldest ? oldest.timestamp : genesis.timestamp;
      const from = Math.max(startMs, genesis.timestamp, store.liveSinceMs ?? genesis.timestamp, heldSince);
      if (until <= from) return null;
      // A slot's block lands just after the slot ends; half a slot of grace keeps a block still
      // being produced from counting as missed.
      const expected = Math.floor((until - from) / (SLOT_SECONDS * 1000) - 0.5);
      // Less than one full live slot so far: nothing to measure yet.
      if (expected < 1) return null;
      const produced = store.firstRetainedHeightFrom(until) - store.firstRetainedHeightFrom(from);
      return Math.min(1, produced / expected);
    },
    zswapMerkleTreeCollapsedUpdate: (_: unknown, { startIndex, endIndex }: { startIndex: number; endIndex: number }, ctx: GraphQLContext) => {
      // Both are WASM objects made for this answer alone: free them now (ledger-release.ts).
      const zswap = ctx.zswapState();
      let update: L.MerkleTreeCollapsedUpdate | undefined;
      try {
        update = new ctx.ledger.MerkleTreeCollapsedUpdate(zswap, BigInt(startIndex), BigInt(endIndex));
        return { startIndex, endIndex, update: bytesToHex(update.serialize()), protocolVersion: ctx.protocolVersion };
      } finally {
        release(zswap, update);
      }
    },
  },
};
