// The devnet's GraphQL layer answers indexer 4.4's fields from its records: `protocolVersion` on
// blocks and transactions, `RegularTransaction.fee`, `BridgeClaimTransaction` (resolved through the
// `Transaction` interface for a record that carries a bridge claim), `contract`; 4.4 features the
// devnet has no data for answer NOT_SERVED. Run over a hand-written store: no chain is needed.
import { graphql } from 'graphql';
import t from 'tap';
import { buildExecutableSchema } from '../../../packages/devnet/src/executable-schema.js';
import type { GraphQLContext } from '../../../packages/devnet/src/graphql-context.js';
import type { BlockRecord, ContractActionRecord, TransactionRecord } from '../../../packages/devnet/src/indexer-records.js';
import type { IndexerStore } from '../../../packages/devnet/src/indexer-store.js';
import type { BridgeClaimRecord } from '../../../packages/devnet/src/type-resolvers.js';
import { DEVNET_PROTOCOL_VERSION } from '../../../packages/ledger/src/era.js';

const hex = (n: number): string => n.toString(16).padStart(64, '0');
const CONTRACT = 'cc'.repeat(32);

function tx(id: number, height: number, extra: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    id,
    hash: hex(1000 + id),
    protocolVersion: DEVNET_PROTOCOL_VERSION[9],
    raw: new Uint8Array([id]),
    blockHeight: height,
    identifiers: [hex(2000 + id)],
    status: 'SUCCESS',
    segments: null,
    fee: `${id}000`,
    zswapMerkleTreeRoot: hex(3000 + id),
    zswapStartIndex: 0,
    zswapEndIndex: 0,
    contractActionIds: [],
    createdUtxoKeys: [],
    spentUtxoKeys: [],
    zswapEventIds: [],
    dustEventIds: [],
    ...extra,
  };
}

function block(height: number, transactionIds: number[], protocolVersion: number): BlockRecord {
  return {
    height,
    hash: hex(height),
    parentHash: height > 0 ? hex(height - 1) : null,
    timestamp: 1_700_000_000_000 + height * 6000,
    author: hex(99),
    protocolVersion,
    ledgerParameters: '00',
    zswapMerkleTreeRoot: hex(500 + height),
    zswapEndIndex: 0,
    transactionIds,
  };
}

const claim: BridgeClaimRecord = { ...tx(3, 2), bridgeClaim: { recipient: 'ab'.repeat(32), amount: '000000000000000000000000000f4240' } };
const transactions = new Map<number, TransactionRecord>([
  [1, tx(1, 1, { protocolVersion: DEVNET_PROTOCOL_VERSION[8], contractActionIds: [1] })],
  [2, tx(2, 2, { contractActionIds: [2] })],
  [3, claim],
]);
const blocks = [block(0, [], DEVNET_PROTOCOL_VERSION[8]), block(1, [1], DEVNET_PROTOCOL_VERSION[8]), block(2, [2, 3], DEVNET_PROTOCOL_VERSION[9])];
const action = (id: number, typename: ContractActionRecord['typename'], transactionId: number, state: string): ContractActionRecord => ({
  id,
  typename,
  address: CONTRACT,
  state,
  zswapState: '00',
  entryPoint: typename === 'ContractCall' ? 'increment' : null,
  transactionId,
  deployId: 1,
  balances: [],
});
const actions = new Map([
  [1, action(1, 'ContractDeploy', 1, 'aa')],
  [2, action(2, 'ContractCall', 2, 'bb')],
]);

const store = {
  get latestBlock() {
    return blocks.at(-1);
  },
  block: (h: number) => blocks[h],
  blockByHash: (h: string) => blocks.find((b) => b.hash === h),
  transaction: (id: number) => transactions.get(id),
  transactionsByHash: (h: string) => [...transactions.values()].filter((x) => x.hash === h),
  transactionsByIdentifier: (i: string) => [...transactions.values()].filter((x) => x.identifiers.includes(i)),
  contractAction: (id: number) => actions.get(id),
  contractActionIds: (address: string) => (address === CONTRACT ? [1, 2] : []),
  lastTransactionIdAt: (h: number) => (h >= 2 ? 3 : h === 1 ? 1 : 0),
  maxTransactionId: 3,
  utxo: () => undefined,
  dustEvent: () => undefined,
  zswapEvent: () => undefined,
} as unknown as IndexerStore;

const unused = (): never => {
  throw new Error('not used here');
};
const context: GraphQLContext = {
  store,
  networkId: 'undeployed',
  now: () => 1_700_000_100_000,
  zswapState: unused,
  era: 9,
  ledger: undefined as unknown as GraphQLContext['ledger'],
  protocolVersion: DEVNET_PROTOCOL_VERSION[9],
};
const schema = buildExecutableSchema();
/** The result as a client reads it (graphql-js builds null-prototype objects). */
async function run(source: string, variableValues: Record<string, unknown> = {}): Promise<{ data?: unknown; errors?: Array<{ extensions?: unknown }> }> {
  return JSON.parse(JSON.stringify(await graphql({ schema, source, variableValues, contextValue: context })));
}

t.test('protocolVersion per block and transaction, fee, and a bridge claim as its own type', async (t) => {
  const r = await run(`{
    b1: block(offset: { height: 1 }) { protocolVersion transactions { __typename protocolVersion } }
    b2: block(offset: { height: 2 }) {
      protocolVersion
      transactions {
        __typename hash protocolVersion
        ... on RegularTransaction { fee fees { paidFees } }
        ... on BridgeClaimTransaction { recipient amount block { height } }
      }
    }
  }`);
  t.equal(r.errors, undefined);
  t.strictSame(r.data, {
    b1: { protocolVersion: 1_000_000, transactions: [{ __typename: 'RegularTransaction', protocolVersion: 1_000_000 }] },
    b2: {
      protocolVersion: 2_001_000,
      transactions: [
        { __typename: 'RegularTransaction', hash: hex(1002), protocolVersion: 2_001_000, fee: '2000', fees: { paidFees: '2000' } },
        {
          __typename: 'BridgeClaimTransaction',
          hash: hex(1003),
          protocolVersion: 2_001_000,
          recipient: 'ab'.repeat(32),
          amount: '000000000000000000000000000f4240',
          block: { height: 2 },
        },
      ],
    },
  });
});

t.test('a bridge claim is found by hash like any transaction', async (t) => {
  const r = await run('query($h: HexEncoded!) { transactions(offset: { hash: $h }) { __typename id } }', { h: claim.hash });
  t.strictSame(r.data, { transactions: [{ __typename: 'BridgeClaimTransaction', id: 3 }] });
});

t.test('contract: its state as of a block, and its actions up to it', async (t) => {
  const r = await run(`{
    latest: contract(address: "${CONTRACT}") { address state actions { __typename } calls: actions(type: CALL) { __typename } one: actions(limit: 1) {
__typename } }
    atDeploy: contract(address: "${CONTRACT}", offset: { height: 1 }) { state actions { __typename } }
    before: contract(address: "${CONTRACT}", offset: { height: 0 }) { state }
    unknown: contract(address: "${'dd'.repeat(32)}") { state }
  }`);
  t.equal(r.errors, undefined);
  t.strictSame(r.data, {
    latest: {
      address: CONTRACT,
      state: 'bb',
      actions: [{ __typename: 'ContractCall' }, { __typename: 'ContractDeploy' }],
      calls: [{ __typename: 'ContractCall' }],
      one: [{ __typename: 'ContractCall' }],
    },
    atDeploy: { state: 'aa', actions: [{ __typename: 'ContractDeploy' }] },
    before: null,
    unknown: null,
  });
});

t.test('4.4 features without devnet data answer NOT_SERVED, not an invented value', async (t) => {
  const q = '{ bridgePoolSummary { reserveTotal } }';
  const r = await run(q);
  t.match(r.errors?.[0]?.extensions, { code: 'DEVNET_NOT_SERVED' }, q);
});
