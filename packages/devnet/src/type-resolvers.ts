// Resolvers of the object types: how a record becomes the schema's object. Fields whose record
// property has the schema's name and type need none (graphql-js reads the property).
import { encodeUnshieldedAddress } from '@nightgate/ledger/address';
import { D_PARAMETER } from './epoch.js';
import type { GraphQLContext, ResolverMap } from './graphql-context.js';
import { CONTRACT_EVENT_FIELDS } from './contract-events.js';
import { contractZswapTree } from './contract-zswap.js';
import type {
  BlockRecord,
  ContractActionRecord,
  ContractEventRecord,
  ContractEventTypename,
  DustEventRecord,
  TransactionRecord,
  UtxoRecord,
  ZswapEventRecord,
} from './indexer-records.js';
import type { IndexerStore } from './indexer-store.js';
import { GraphQLError } from 'graphql';
import { DevnetErrorCode } from './errors.js';
import { bytesToHex } from './keys.js';

function defined<T>(items: Array<T | undefined>): T[] {
  return items.filter((x): x is T => x !== undefined);
}

function transactionsOf(store: IndexerStore, ids: readonly number[]): TransactionRecord[] {
  return defined(ids.map((id) => store.transaction(id)));
}

export function utxosOf(store: IndexerStore, keys: readonly string[]): UtxoRecord[] {
  return defined(keys.map((key) => store.utxo(key)));
}

/**
 * A transaction the chain indexed as a claim of bridged NIGHT: its recipient and amount (a 16-byte
 * big-endian u128), both hex, as indexer 4.4's BridgeClaimTransaction serves them. The devnet's
 * chain produces none today; the type and its resolution exist so the served schema is whole.
 */
export interface BridgeClaimRecord extends TransactionRecord {
  bridgeClaim: { recipient: string; amount: string };
}

function isBridgeClaim(tx: TransactionRecord): tx is BridgeClaimRecord {
  return (tx as Partial<BridgeClaimRecord>).bridgeClaim !== undefined;
}

const transactionFields = {
  raw: (tx: TransactionRecord) => bytesToHex(tx.raw),
  block: (tx: TransactionRecord, _: never, ctx: GraphQLContext) => ctx.store.block(tx.blockHeight),
  contractActions: (tx: TransactionRecord, _: never, ctx: GraphQLContext) => defined(tx.contractActionIds.map((id) => ctx.store.contractAction(id))),
  unshieldedCreatedOutputs: (tx: TransactionRecord, _: never, ctx: GraphQLContext) => utxosOf(ctx.store, tx.createdUtxoKeys),
  unshieldedSpentOutputs: (tx: TransactionRecord, _: never, ctx: GraphQLContext) => utxosOf(ctx.store, tx.spentUtxoKeys),
  zswapLedgerEvents: (tx: TransactionRecord, _: never, ctx: GraphQLContext) => defined(tx.zswapEventIds.map((id) => ctx.store.zswapEvent(id))),
  dustLedgerEvents: (tx: TransactionRecord, _: never, ctx: GraphQLContext) => defined(tx.dustEventIds.map((id) => ctx.store.dustEvent(id))),
};

const contractActionFields = {
  transaction: (a: ContractActionRecord, _: never, ctx: GraphQLContext) => ctx.store.transaction(a.transactionId),
  unshieldedBalances: (a: ContractActionRecord) => a.balances,
};

/** What every type of the `ContractEvent` interface resolves alike; `id`, `version`, … are record properties. */
const contractEventFields = {
  raw: (e: ContractEventRecord) => bytesToHex(e.raw),
  maxId: (_: ContractEventRecord, __: never, ctx: GraphQLContext) => ctx.store.maxContractEventId,
  transaction: (e: ContractEventRecord, _: never, ctx: GraphQLContext) => ctx.store.transaction(e.transactionId),
};

/** Each contract event type: the interface's fields, and its own from the record's decoded fields. */
const contractEventTypes = Object.fromEntries(
  (Object.entries(CONTRACT_EVENT_FIELDS) as Array<[ContractEventTypename, readonly string[]]>).map(([typename, fields]) => [
    typename,
    { ...contractEventFields, ...Object.fromEntries(fields.map((field) => [field, (e: ContractEventRecord) => e.fields[field] ?? null])) },
  ]),
);

/**
 * `Block.contractZswapState`: null when no action of the contract is at or before the block (as
 * `Query.contract` decides); the tree kept with the block otherwise (contract-zswap.ts). A block
 * logged before the devnet kept trees has none, as an indexer has no ledger state for a block
 * older than its retention.
 */
function contractZswapState(b: BlockRecord, { address }: { address: string }, ctx: GraphQLContext): string | null | GraphQLError {
  if (!/^(?:[0-9a-f]{2})*$/i.test(address)) return new GraphQLError('invalid address');
  const key = address.toLowerCase();
  const first = ctx.store.contractActionIds(key)[0];
  const oldest = first === undefined ? undefined : ctx.store.contractAction(first);
  const bound = ctx.store.lastTransactionIdAt(b.height);
  if (!oldest || bound === undefined || oldest.transactionId > bound) return null;
  if (!b.contractZswap) {
    return new GraphQLError('ledger state for this block is no longer available, query a more recent block', { extensions: { code: DevnetErrorCode.PRUNED } });
  }
  return bytesToHex(contractZswapTree(b.contractZswap, key));
}

const dustEventFields = {
  raw: (e: DustEventRecord) => bytesToHex(e.raw),
  maxId: (_: DustEventRecord, __: never, ctx: GraphQLContext) => ctx.store.maxDustEventId,
};

export const typeResolvers: ResolverMap = {
  Block: {
    // Null also for the parent of the oldest block held, when older ones were pruned.
    parent: (b: BlockRecord, _: never, ctx: GraphQLContext) => (b.height > 0 ? (ctx.store.block(b.height - 1) ?? null) : null),
    transactions: (b: BlockRecord, _: never, ctx: GraphQLContext) => transactionsOf(ctx.store, b.transactionIds),
    systemParameters: () => ({ dParameter: D_PARAMETER, termsAndConditions: null }),
    contractZswapState,
  },
  RegularTransaction: {
    ...transactionFields,
    transactionResult: (tx: TransactionRecord) => ({ status: tx.status, segments: tx.segments }),
    merkleTreeRoot: (tx: TransactionRecord) => tx.zswapMerkleTreeRoot,
    startIndex: (tx: TransactionRecord) => tx.zswapStartIndex,
    endIndex: (tx: TransactionRecord) => tx.zswapEndIndex,
    fees: (tx: TransactionRecord) => ({ paidFees: tx.fee, estimatedFees: tx.fee }),
  },
  BridgeClaimTransaction: {
    ...transactionFields,
    recipient: (tx: BridgeClaimRecord) => tx.bridgeClaim.recipient,
    amount: (tx: BridgeClaimRecord) => tx.bridgeClaim.amount,
  },
  Contract: {
    actions: (c: ContractView, { limit, type }: { limit?: number | null; type?: ContractActionType | null }, ctx: GraphQLContext) =>
      contractActions(ctx.store, c, limit, type),
  },
  UnshieldedUtxo: {
    owner: (u: UtxoRecord, _: never, ctx: GraphQLContext) => encodeUnshieldedAddress(u.owner, ctx.networkId),
    createdAtTransaction: (u: UtxoRecord, _: never, ctx: GraphQLContext) => ctx.store.transaction(u.createdAtTransactionId),
    spentAtTransaction: (u: UtxoRecord, _: never, ctx: GraphQLContext) =>
      u.spentAtTransactionId === null ? null : ctx.store.transaction(u.spentAtTransactionId),
  },
  ContractDeploy: contractActionFields,
  ContractUpdate: contractActionFields,
  ContractCall: {
    ...contractActionFields,
    deploy: (a: ContractActionRecord, _: never, ctx: GraphQLContext) =>
      ctx.store.contractAction(a.deployId) ??
      new GraphQLError(`the deploy of contract ${a.address} is older than this devnet keeps (no state directory)`, {
        extensions: { code: DevnetErrorCode.PRUNED },
      }),
    // Read from the transaction, which carries its events even when archived.
    contractEvents: (a: ContractActionRecord, _: never, ctx: GraphQLContext) =>
      (ctx.store.transaction(a.transactionId)?.contractEvents ?? []).filter((e) => e.contractActionId === a.id),
  },
  ...contractEventTypes,
  DustInitialUtxo: { ...dustEventFields, output: (e: DustEventRecord) => ({ nonce: e.outputNonce }) },
  DustGenerationDtimeUpdate: dustEventFields,
  DustSpendProcessed: dustEventFields,
  ParamChange: dustEventFields,
  ZswapLedgerEvent: {
    raw: (e: ZswapEventRecord) => bytesToHex(e.raw),
    maxId: (_: ZswapEventRecord, __: never, ctx: GraphQLContext) => ctx.store.maxZswapEventId,
  },
};

/** What `Query.contract` answers: the contract's latest action at or before the queried block. */
export interface ContractView {
  address: string;
  state: string;
  /** Actions above this transaction id are after the queried block. */
  transactionBound: number;
}

type ContractActionType = 'DEPLOY' | 'CALL' | 'UPDATE';
const ACTION_TYPE: Record<ContractActionType, ContractActionRecord['typename']> = { DEPLOY: 'ContractDeploy', CALL: 'ContractCall', UPDATE: 'ContractUpdate' };
/** `Contract.actions`: 100 by default, at most 500 (the schema's documented limits). */
const ACTIONS_DEFAULT = 100;
const ACTIONS_MAX = 500;

/** The contract's actions up to its view's block, newest first, optionally of one type. */
function contractActions(
  store: IndexerStore,
  c: ContractView,
  limit: number | null | undefined,
  type: ContractActionType | null | undefined,
): ContractActionRecord[] {
  const max = Math.min(ACTIONS_MAX, Math.max(0, limit ?? ACTIONS_DEFAULT));
  const ids = store.contractActionIds(c.address);
  const out: ContractActionRecord[] = [];
  for (let i = ids.length - 1; i >= 0 && out.length < max; i--) {
    const action = store.contractAction(ids[i] as number);
    if (!action || action.transactionId > c.transactionBound) continue;
    if (!type || action.typename === ACTION_TYPE[type]) out.push(action);
  }
  return out;
}

/**
 * Abstract types: the devnet indexes regular transactions (genesis claims included); a record
 * carrying a bridge claim is served as indexer 4.4's BridgeClaimTransaction.
 */
export const typeNames = {
  Transaction: (tx: TransactionRecord) => (isBridgeClaim(tx) ? 'BridgeClaimTransaction' : 'RegularTransaction'),
  ContractAction: (a: ContractActionRecord) => a.typename,
  DustLedgerEvent: (e: DustEventRecord) => e.typename,
  ContractEvent: (e: ContractEventRecord) => e.typename,
  UnshieldedTransactionsEvent: (e: { __typename: string }) => e.__typename,
};
