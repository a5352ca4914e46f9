/**
 * Response bodies of the statistics API as typebox schemas: one source for the TypeScript types
 * the module renders and for the OpenAPI document (src/core/http/openapi.ts). Examples are real shapes.
 * Every schema with an `$id` becomes a named schema under `components.schemas` in the document
 * (referenced with `$ref`), so clients generated from it get named types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ActionType, FeeUnit, Fraction, Hex, Iso, LedgerEra, Nullable, Speck, TxKind, TxStatus, UtxoTimes } from './schemas-common.js';

/** The ledger's `ctime` (Unix seconds) as ISO 8601. */
export const ctimeIso = (ctime: number | null | undefined): string | null =>
  ctime === null || ctime === undefined ? null : new Date(ctime * 1000).toISOString();
const HASH_EXAMPLE = '3f1c5a0e9b7d2c4a6e8f0b1d3c5e7a9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c';

const NetworkInfo = Type.Object(
  {
    id: Type.Union([Type.Literal('mainnet'), Type.Literal('preprod'), Type.Literal('preview')]),
    name: Type.String({ examples: ['Midnight Mainnet'] }),
    source: Type.String({ description: '`embedded-devnet`, or `indexer:` and the indexer host', examples: ['indexer:indexer.mainnet.midnight.network'] }),
  },
  { $id: 'NetworkInfo' },
);

export const LatestBlock = Type.Object(
  {
    height: Type.Integer({ minimum: 0 }),
    hash: Hex('Block hash'),
    timestamp: Iso,
    ageSeconds: Type.Integer({ minimum: 0, description: 'Whole seconds since the block was produced' }),
    protocolVersion: Type.Integer(),
    ledger: LedgerEra,
  },
  {
    $id: 'LatestBlock',
    examples: [{ height: 1234567, hash: HASH_EXAMPLE, timestamp: '2026-01-02T03:04:05.000Z', ageSeconds: 3, protocolVersion: 2001000, ledger: 9 }],
  },
);
export type LatestBlock = Static<typeof LatestBlock>;

export const BlockTime = Type.Object(
  {
    averageSeconds: Nullable(
      Type.Number({
        description:
          'Mean block interval over the latest (up to 100) intervals, 3 decimals; gaps over 60 s per block are halts and left out ' +
          '(uptime reports them); null with no interval',
      }),
    ),
    sampleSize: Type.Integer({ minimum: 0, description: 'Number of block intervals averaged' }),
    targetSeconds: Type.Literal(6),
  },
  { $id: 'BlockTime', examples: [{ averageSeconds: 6.012, sampleSize: 999, targetSeconds: 6 }] },
);
export type BlockTime = Static<typeof BlockTime>;

export const BlocksProduced = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'Blocks in the chain, genesis (height 0) included: latest height + 1' }),
    estimatedHourly: Nullable(Type.Integer({ description: '3600 / averageSeconds, rounded' })),
    estimatedDaily: Nullable(Type.Integer({ description: '86400 / averageSeconds, rounded' })),
  },
  { $id: 'BlocksProduced', examples: [{ total: 1234568, estimatedHourly: 599, estimatedDaily: 14371 }] },
);
export type BlocksProduced = Static<typeof BlocksProduced>;

export const Uptime = Type.Object(
  {
    status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded')], {
      description:
        'degraded when the indexer fails, the chain is stale (its latest block is 10 block times old or more: 60 s at 6 s blocks, ' +
        "the devnet's own block time on an embedded devnet) or production is below 0.8",
    }),
    score: Fraction(
      'freshness × production, 3 decimals: freshness is 1 up to 2 block times of block age and falls linearly to 0 at 10 (12 s ' +
        'and 60 s at 6 s blocks), where the chain is stale; production is epochUtilization when known, else min(1, 6 / ' +
        'averageSeconds)',
    ),
    latestBlockAgeSeconds: Type.Integer({ minimum: 0 }),
    epochUtilization: Nullable(Fraction('Produced / expected blocks of the current epoch (SPO indexer); null when unavailable')),
  },
  { $id: 'Uptime', examples: [{ status: 'healthy', score: 1, latestBlockAgeSeconds: 3, epochUtilization: 0.98 }] },
);
export type Uptime = Static<typeof Uptime>;

export const Epoch = Type.Object(
  {
    number: Type.Integer({ minimum: 0 }),
    durationSeconds: Type.Integer({ minimum: 1 }),
    elapsedSeconds: Type.Integer({ minimum: 0 }),
    remainingSeconds: Type.Integer({ minimum: 0 }),
    progress: Fraction('elapsed / duration, 4 decimals'),
  },
  { $id: 'Epoch', examples: [{ number: 987654, durationSeconds: 1800, elapsedSeconds: 900, remainingSeconds: 900, progress: 0.5 }] },
);
export type Epoch = Static<typeof Epoch>;

export const DParameter = Type.Object(
  {
    numPermissionedCandidates: Type.Integer({ minimum: 0 }),
    numRegisteredCandidates: Type.Integer({ minimum: 0 }),
    blockHeight: Type.Integer({
      minimum: 0,
      description: 'Height of the block whose system parameters this value was read from (the latest one carrying them)',
    }),
    effectiveSinceHeight: Nullable(
      Type.Integer({ minimum: 0, description: 'Height at which this value took effect, from dParameterHistory; null when the history is unavailable' }),
    ),
  },
  { $id: 'DParameter', examples: [{ numPermissionedCandidates: 10, numRegisteredCandidates: 0, blockHeight: 1234567, effectiveSinceHeight: 0 }] },
);
export type DParameter = Static<typeof DParameter>;

export const NightSupply = Type.Object(
  {
    total: Type.String({ description: 'NIGHT, decimal string' }),
    totalSmallestUnit: Type.String({ description: 'STAR (1 NIGHT = 10^6 STAR), decimal string' }),
    decimals: Type.Literal(6),
    source: Type.Object({ name: Type.String(), url: Type.String({ format: 'uri' }) }),
  },
  { $id: 'NightSupply', description: 'A protocol constant: the indexer does not expose supply figures.' },
);
export type NightSupply = Static<typeof NightSupply>;

export const Summary = Type.Object(
  {
    network: NetworkInfo,
    generatedAt: Iso,
    status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded')], {
      description:
        'degraded when the indexer fails (cached data is then served), the chain is stale (its latest block is 10 block times old ' +
        'or more) or the epoch under-produces: `uptime.status`',
    }),
    dataAgeSeconds: Nullable(Type.Integer({ minimum: 0, description: 'Seconds since the indexer last answered' })),
    ledger: LedgerEra,
    latestBlock: LatestBlock,
    blockTime: BlockTime,
    blocksProduced: BlocksProduced,
    uptime: Uptime,
    epoch: Nullable(Epoch),
    dParameter: Nullable(DParameter),
    nightSupply: NightSupply,
  },
  { $id: 'Summary', description: 'Every statistics part in one object; also the message the push channel (`/api/v1/{network}/ws`) sends' },
);
export type Summary = Static<typeof Summary>;

const RecentTransaction = Type.Object(
  {
    hash: Hex('Transaction hash'),
    id: Type.Integer({ description: 'Indexer transaction id (a running counter)' }),
    kind: TxKind,
    status: TxStatus,
    paidFees: Nullable(Speck, { description: 'The fee paid; null for system transactions and bridge claims' }),
    paidFeesUnit: FeeUnit,
    blockHeight: Type.Integer(),
    blockHash: Hex('Block hash'),
    timestamp: Iso,
  },
  { $id: 'RecentTransaction' },
);
export const RecentTransactions = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100 }),
    count: Type.Integer({ minimum: 0 }),
    transactions: Type.Array(RecentTransaction, { description: 'Newest first, from the recent-block window' }),
  },
  { $id: 'RecentTransactions' },
);
export type RecentTransactions = Static<typeof RecentTransactions>;

const Fees = Nullable(
  Type.Object(
    {
      paid: Speck,
      estimated: Type.String({
        pattern: '^[0-9]+$',
        deprecated: true,
        description: 'Deprecated by the indexer (its `fees.estimatedFees`): its estimate in SPECK while it still reports one, else the fee paid',
      }),
      unit: FeeUnit,
    },
    { $id: 'Fees' },
  ),
  { description: 'null for system transactions and bridge claims' },
);
/** A claim of NIGHT bridged from Cardano (indexer 4.4's BridgeClaimTransaction). */
const BridgeClaim = Nullable(
  Type.Object(
    {
      recipient: Hex('The Midnight address the bridged NIGHT is claimed to'),
      amount: Type.String({ pattern: '^[0-9]+$', description: 'NIGHT claimed, in STAR (1 NIGHT = 10^6 STAR), decimal string' }),
    },
    { $id: 'BridgeClaim' },
  ),
  { description: 'null unless the transaction is a bridge claim' },
);
const Balance = Type.Object({ tokenType: Hex('Token type'), amount: Type.String({ description: 'Decimal string (u128)' }) }, { $id: 'TokenBalance' });

export const BlockDetail = Type.Object(
  {
    height: Type.Integer(),
    hash: Hex('Block hash'),
    parent: Nullable(Type.Object({ height: Type.Integer(), hash: Hex('Parent hash') })),
    author: Nullable(Hex('Block author')),
    timestamp: Iso,
    protocolVersion: Type.Integer(),
    ledger: LedgerEra,
    zswapMerkleTreeRoot: Hex('Zswap state Merkle tree root after this block'),
    zswapEndIndex: Type.Integer(),
    systemParameters: Type.Object({
      dParameter: Type.Object({ numPermissionedCandidates: Type.Integer(), numRegisteredCandidates: Type.Integer() }),
      termsAndConditions: Nullable(Type.Object({ hash: Hex('Document hash'), url: Type.String() })),
    }),
    transactionCount: Type.Integer(),
    transactions: Type.Array(
      Type.Object(
        {
          id: Type.Integer(),
          hash: Hex('Transaction hash'),
          kind: TxKind,
          protocolVersion: Type.Integer(),
          status: TxStatus,
          identifiers: Type.Array(Hex('Transaction identifier')),
          fees: Fees,
          contractActions: Type.Array(Type.Object({ type: ActionType, address: Hex('Contract address') })),
          unshieldedOutputsCreated: Type.Integer(),
          unshieldedOutputsSpent: Type.Integer(),
        },
        { $id: 'BlockTransaction' },
      ),
    ),
  },
  { $id: 'BlockDetail' },
);
export type BlockDetail = Static<typeof BlockDetail>;

const Utxo = {
  owner: Type.String({ description: 'Bech32m unshielded address' }),
  tokenType: Hex('Token type'),
  value: Type.String({ description: 'Decimal string (u128)' }),
  intentHash: Hex('Intent hash'),
  outputIndex: Type.Integer(),
  ...UtxoTimes,
};

export const TransactionDetail = Type.Object(
  {
    id: Type.Integer(),
    hash: Hex('Transaction hash'),
    kind: TxKind,
    protocolVersion: Type.Integer(),
    ledger: LedgerEra,
    status: TxStatus,
    segments: Nullable(Type.Array(Type.Object({ id: Type.Integer(), success: Type.Boolean() }))),
    block: Type.Object({ height: Type.Integer(), hash: Hex('Block hash'), timestamp: Iso }),
    identifiers: Type.Array(Hex('Transaction identifier')),
    fees: Fees,
    bridgeClaim: BridgeClaim,
    zswap: Nullable(Type.Object({ merkleTreeRoot: Hex('Zswap state root after this transaction'), startIndex: Type.Integer(), endIndex: Type.Integer() })),
    contractActions: Type.Array(
      Type.Object({ type: ActionType, address: Hex('Contract address'), entryPoint: Nullable(Type.String()), balances: Type.Array(Balance) }),
    ),
    utxos: Type.Object({
      created: Type.Array(Type.Object({ ...Utxo, registeredForDustGeneration: Type.Boolean() }, { $id: 'CreatedUtxo' })),
      spent: Type.Array(Type.Object({ ...Utxo, createdAtTransaction: Hex('Hash of the creating transaction') }, { $id: 'SpentUtxo' })),
    }),
    ledgerEvents: Type.Object({ zswap: Type.Integer(), dust: Type.Integer() }),
  },
  { $id: 'TransactionDetail' },
);
export type TransactionDetail = Static<typeof TransactionDetail>;

export const ContractDetail = Type.Object(
  {
    address: Hex('Contract address'),
    latestAction: Type.Object({
      type: ActionType,
      entryPoint: Nullable(Type.String({ description: 'Circuit called; null for deploys and updates' })),
      transaction: Type.Object({
        id: Type.Integer(),
        hash: Hex('Transaction hash'),
        status: TxStatus,
        identifiers: Type.Array(Hex('Transaction identifier')),
        paidFees: Nullable(Speck),
        paidFeesUnit: FeeUnit,
        block: Type.Object({ height: Type.Integer(), hash: Hex('Block hash'), timestamp: Iso }),
      }),
    }),
    balances: Type.Array(Balance, { description: 'Unshielded balances held by the contract after its latest action' }),
    stateRoots: Type.Object(
      { zswapMerkleTreeRoot: Nullable(Hex('Zswap state root after the latest action')) },
      { description: 'The indexer exposes no per-contract state root; this is the shielded state root after the latest action' },
    ),
    deploy: Nullable(Type.Object({ transactionHash: Hex('Deploying transaction'), blockHeight: Type.Integer(), timestamp: Iso })),
  },
  { $id: 'ContractDetail' },
);
export type ContractDetail = Static<typeof ContractDetail>;

export const AddressUtxo = Type.Object(
  {
    ...Utxo,
    registeredForDustGeneration: Type.Boolean(),
    spent: Type.Boolean(),
    spentAtTransaction: Nullable(Hex('Hash of the spending transaction')),
    createdAtTransaction: Hex('Hash of the creating transaction'),
    createdAtHeight: Type.Integer(),
  },
  { $id: 'AddressUtxo' },
);
export type AddressUtxo = Static<typeof AddressUtxo>;

export const AddressActivity = Type.Object(
  {
    address: Type.String({ description: 'Bech32m form for this network' }),
    addressHex: Hex('The 32-byte address'),
    highestTransactionId: Type.Integer({ description: 'Highest indexer transaction id touching this address' }),
    transactionCount: Type.Integer({ description: 'Transactions touching this address' }),
    limit: Type.Integer({ minimum: 1, maximum: 100 }),
    transactions: Type.Array(
      Type.Object(
        {
          id: Type.Integer(),
          hash: Hex('Transaction hash'),
          blockHeight: Type.Integer(),
          timestamp: Iso,
          status: TxStatus,
          utxosCreated: Type.Integer(),
          utxosSpent: Type.Integer(),
        },
        { $id: 'AddressTransaction' },
      ),
      { description: 'Newest first, at most `limit`' },
    ),
    balances: Type.Array(Type.Object({ tokenType: Hex('Token type'), unspent: Type.String({ description: 'Sum of unspent UTXO values' }) })),
    utxos: Type.Array(AddressUtxo, { description: 'Every unspent UTXO, plus the spent ones created by the listed transactions; newest first' }),
  },
  { $id: 'AddressActivity' },
);
export type AddressActivity = Static<typeof AddressActivity>;

const SearchBlock = Type.Object(
  { type: Type.Literal('block'), result: Type.Object({ height: Type.Integer(), hash: Hex('Block hash'), timestamp: Iso, href: Type.String() }) },
  { $id: 'SearchBlockHit' },
);
const SearchTx = Type.Object(
  {
    type: Type.Literal('transaction'),
    result: Type.Object({
      hash: Hex('Transaction hash'),
      blockHeight: Type.Integer(),
      matchedBy: Type.Union([Type.Literal('hash'), Type.Literal('identifier')]),
      href: Type.String(),
    }),
  },
  { $id: 'SearchTransactionHit' },
);
const SearchContract = Type.Object(
  {
    type: Type.Literal('contract'),
    result: Type.Object({
      address: Hex('Contract address'),
      latestActionType: ActionType,
      transactionHash: Hex('Transaction of the latest action'),
      href: Type.String(),
    }),
  },
  { $id: 'SearchContractHit' },
);
const SearchAddress = Type.Object(
  { type: Type.Literal('address'), result: Type.Object({ address: Type.String(), addressHex: Hex('The 32-byte address'), href: Type.String() }) },
  { $id: 'SearchAddressHit' },
);
export const SearchHit = Type.Union([SearchBlock, SearchTx, SearchContract, SearchAddress], { $id: 'SearchHit' });
export type SearchHit = Static<typeof SearchHit>;
export const SearchResult = Type.Intersect([Type.Object({ query: Type.String({ description: 'The query as given (trimmed)' }) }), SearchHit], {
  $id: 'SearchResult',
});
export type SearchResult = Static<typeof SearchResult>;
