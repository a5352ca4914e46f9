/**
 * Every GraphQL document the statistics module sends to the indexer, in one place so one test
 * (test/unit/indexer/documents.test.ts) can validate them all against the indexer schema v4.3.7.
 *
 * Limits of the public indexers (LEDGER.md, "Indexer"): complexity 200, depth 15, no batching.
 * The indexer (async-graphql) counts one point per selected field, lists not multiplied, so a
 * document's complexity is its number of field selections; the test checks that too.
 */

import { gql as doc, type GqlDocument } from '../indexer/document.js';

export type { GqlDocument };

/** What the ring keeps of a transaction: enough for recent-transactions. */
const RING_TRANSACTION = `__typename id hash ... on RegularTransaction { transactionResult { status } fees { paidFees } }`;
/** What the ring keeps of a block (14 points with the `block` field itself). */
const RING_BLOCK = `height hash timestamp protocolVersion author transactions { ${RING_TRANSACTION} }`;
const D_PARAMETER = `dParameter { numPermissionedCandidates numRegisteredCandidates }`;
/** The tip also carries the D-parameter in force (Block.systemParameters). */
const TIP_BLOCK = `${RING_BLOCK} systemParameters { ${D_PARAMETER} }`;

/** The latest block. */
export const TIP = doc('Tip', `query Tip { block { ${TIP_BLOCK} } }`);

/** New blocks, from `offset` (inclusive) or from the latest one. */
export const BLOCKS_SUBSCRIPTION = doc('Blocks', `subscription Blocks($offset: BlockOffset) { blocks(offset: $offset) { ${TIP_BLOCK} } }`);

/** Blocks per backfill request: 12 × 14 points = 168, under the complexity limit of 200. */
export const BACKFILL_BATCH = 12;

/** Aliased `block(offset: {height})` lookups, one per height (`b0` … `bN`). */
export function backfillQuery(count: number): GqlDocument {
  if (!Number.isInteger(count) || count < 1 || count > BACKFILL_BATCH) throw new RangeError(`backfill batch must be 1..${BACKFILL_BATCH}, got ${count}`);
  const vars: string[] = [];
  const fields: string[] = [];
  for (let i = 0; i < count; i++) {
    vars.push(`$h${i}: Int!`);
    fields.push(`b${i}: block(offset: { height: $h${i} }) { ${RING_BLOCK} }`);
  }
  return doc(`Backfill${count}`, `query Backfill${count}(${vars.join(', ')}) { ${fields.join(' ')} }`);
}

/** Epoch (from the optional SPO indexer; may be null) and the D-parameter's history. */
export const GOVERNANCE = doc(
  'Governance',
  `query Governance {
    currentEpochInfo { epochNo durationSeconds elapsedSeconds }
    dParameterHistory { blockHeight numPermissionedCandidates numRegisteredCandidates }
  }`,
);

export const EPOCH_UTILIZATION = doc('EpochUtilization', `query EpochUtilization($epoch: Int!) { epochUtilization(epoch: $epoch) }`);

export const BLOCK_DETAIL = doc(
  'BlockDetail',
  `query BlockDetail($offset: BlockOffset!) {
    block(offset: $offset) {
      height hash timestamp protocolVersion author zswapMerkleTreeRoot zswapEndIndex
      parent { height hash }
      systemParameters { ${D_PARAMETER} termsAndConditions { hash url } }
      transactions {
        __typename id hash protocolVersion
        contractActions { __typename address }
        unshieldedCreatedOutputs { outputIndex }
        unshieldedSpentOutputs { outputIndex }
        ... on RegularTransaction { identifiers transactionResult { status } fees { paidFees estimatedFees } }
      }
    }
  }`,
);

export const TRANSACTION_DETAIL = doc(
  'TransactionDetail',
  `query TransactionDetail($hash: HexEncoded!) {
    transactions(offset: { hash: $hash }) {
      __typename id hash protocolVersion
      block { height hash timestamp }
      contractActions { __typename address unshieldedBalances { tokenType amount } ... on ContractCall { entryPoint } }
      unshieldedCreatedOutputs { owner tokenType value intentHash outputIndex ctime registeredForDustGeneration }
      unshieldedSpentOutputs { owner tokenType value intentHash outputIndex ctime createdAtTransaction { hash } }
      zswapLedgerEvents { id }
      dustLedgerEvents { id }
      ... on RegularTransaction {
        identifiers zswapMerkleTreeRoot zswapStartIndex zswapEndIndex
        fees { paidFees estimatedFees }
        transactionResult { status segments { id success } }
      }
    }
  }`,
);

export const CONTRACT_DETAIL = doc(
  'ContractDetail',
  `query ContractDetail($address: HexEncoded!) {
    contractAction(address: $address) {
      __typename address
      unshieldedBalances { tokenType amount }
      transaction {
        id hash block { height hash timestamp }
        ... on RegularTransaction { identifiers zswapMerkleTreeRoot transactionResult { status } fees { paidFees } }
      }
      ... on ContractCall { entryPoint deploy { address transaction { hash block { height timestamp } } } }
    }
  }`,
);

export const SEARCH_HEIGHT = doc('SearchHeight', `query SearchHeight($height: Int!) { block(offset: { height: $height }) { height hash timestamp } }`);

/**
 * One request tries a hex value as everything it could be (DESIGN.md, "Statistics"): block hash
 * and transaction hash only when it has the 64 characters of a hash.
 */
export const SEARCH_HEX = doc(
  'SearchHex',
  `query SearchHex($hex: HexEncoded!, $isHash: Boolean!) {
    block(offset: { hash: $hex }) @include(if: $isHash) { height hash timestamp }
    byHash: transactions(offset: { hash: $hex }) @include(if: $isHash) { hash block { height } }
    byIdentifier: transactions(offset: { identifier: $hex }) { hash block { height } }
    contract: contractAction(address: $hex) { __typename address transaction { hash } }
  }`,
);

/** An address's unshielded transactions from the first, interleaved with progress events. */
export const ADDRESS_ACTIVITY = doc(
  'AddressActivity',
  `subscription AddressActivity($address: UnshieldedAddress!) {
    unshieldedTransactions(address: $address) {
      __typename
      ... on UnshieldedTransaction {
        transaction { id hash block { height timestamp } ... on RegularTransaction { transactionResult { status } } }
        createdUtxos { owner tokenType value intentHash outputIndex ctime registeredForDustGeneration spentAtTransaction { hash } }
        spentUtxos { owner tokenType value intentHash outputIndex }
      }
      ... on UnshieldedTransactionsProgress { highestTransactionId }
    }
  }`,
);

/** Every fixed document (the backfill family is generated; the test builds each size). */
export const DOCUMENTS: readonly GqlDocument[] = [
  TIP, BLOCKS_SUBSCRIPTION, GOVERNANCE, EPOCH_UTILIZATION, BLOCK_DETAIL, TRANSACTION_DETAIL, CONTRACT_DETAIL, SEARCH_HEIGHT, SEARCH_HEX, ADDRESS_ACTIVITY,
];
