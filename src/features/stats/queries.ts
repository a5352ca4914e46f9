/**
 * Every GraphQL document the statistics module sends to the indexer, in one place so one test
 * (test/unit/infra/indexer/documents.test.ts) can validate them all against the indexer schemas v4.3.7
 * and 4.4.
 *
 * Limits of the public indexers (LEDGER.md, "Indexer"): complexity 200, depth 15, no batching.
 * The indexer (async-graphql) counts one point per selected field, lists not multiplied, so a
 * document's complexity is its number of field selections; the test checks that too.
 *
 * The documents that read fees or bridge claims come in variants, one per set of indexer features
 * (indexer-features.ts): an indexer is only ever sent fields its schema has. The exported constants
 * (TIP, BLOCK_DETAIL, …) are the variants for an indexer whose features are unknown, valid against
 * both schemas.
 */

import { gql as doc, type GqlDocument } from '../../infra/indexer/document.js';

export type { GqlDocument };

/**
 * What the indexer's schema offers beyond the oldest v4 API nightgate reads: `RegularTransaction.fee`
 * (which replaces the deprecated `fees { paidFees estimatedFees }`), whether `fees` is still there,
 * and the `BridgeClaimTransaction` type (indexer 4.4).
 */
export interface IndexerFeatures {
  fee: boolean;
  legacyFees: boolean;
  bridgeClaims: boolean;
}

/** Assumed until the indexer has been asked, and when it does not answer introspection. */
export const BASELINE_FEATURES: IndexerFeatures = Object.freeze({ fee: false, legacyFees: true, bridgeClaims: false });

/** The fee of a regular transaction: `fee` where the schema has it, else the deprecated paid fee. */
function feeFields(f: IndexerFeatures, estimate: boolean): string {
  if (!f.fee) {
    if (!f.legacyFees) return '';
    return estimate ? 'fees { paidFees estimatedFees }' : 'fees { paidFees }';
  }
  // The deprecated estimate is read for as long as the indexer still reports it.
  return estimate && f.legacyFees ? 'fee fees { estimatedFees }' : 'fee';
}

/** What a bridge claim adds to a transaction's detail, on indexers that know the type. */
const bridgeClaimFields = (f: IndexerFeatures): string => (f.bridgeClaims ? '... on BridgeClaimTransaction { recipient amount }' : '');

/** What the ring keeps of a transaction: enough for recent-transactions. */
const ringTransaction = (f: IndexerFeatures): string => `__typename id hash ... on RegularTransaction { transactionResult { status } ${feeFields(f, false)} }`;
/** What the ring keeps of a block (at most 14 points with the `block` field itself). */
const ringBlock = (f: IndexerFeatures): string => `height hash timestamp protocolVersion author transactions { ${ringTransaction(f)} }`;
const D_PARAMETER = `dParameter { numPermissionedCandidates numRegisteredCandidates }`;
/** The tip also carries the D-parameter in force (Block.systemParameters). */
const tipBlock = (f: IndexerFeatures): string => `${ringBlock(f)} systemParameters { ${D_PARAMETER} }`;

/** Blocks per backfill request: 12 × 14 points = 168, under the complexity limit of 200. */
export const BACKFILL_BATCH = 12;

/** The documents whose text depends on the indexer's features. */
export interface FeatureDocuments {
  readonly features: IndexerFeatures;
  /** The latest block. */
  readonly tip: GqlDocument;
  /** New blocks, from `offset` (inclusive) or from the latest one. */
  readonly blocks: GqlDocument;
  readonly blockDetail: GqlDocument;
  readonly transactionDetail: GqlDocument;
  readonly contractDetail: GqlDocument;
  /** Aliased `block(offset: {height})` lookups, one per height (`b0` … `bN`). */
  backfill(count: number): GqlDocument;
}

function buildBackfill(f: IndexerFeatures, count: number): GqlDocument {
  const vars: string[] = [];
  const fields: string[] = [];
  for (let i = 0; i < count; i++) {
    vars.push(`$h${i}: Int!`);
    fields.push(`b${i}: block(offset: { height: $h${i} }) { ${ringBlock(f)} }`);
  }
  return doc(`Backfill${count}`, `query Backfill${count}(${vars.join(', ')}) { ${fields.join(' ')} }`);
}

function buildBlockDetail(f: IndexerFeatures): GqlDocument {
  return doc(
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
          ... on RegularTransaction { identifiers transactionResult { status } ${feeFields(f, true)} }
        }
      }
    }`,
  );
}

function buildTransactionDetail(f: IndexerFeatures): GqlDocument {
  return doc(
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
          ${feeFields(f, true)}
          transactionResult { status segments { id success } }
        }
        ${bridgeClaimFields(f)}
      }
    }`,
  );
}

function buildContractDetail(f: IndexerFeatures): GqlDocument {
  return doc(
    'ContractDetail',
    `query ContractDetail($address: HexEncoded!) {
      contractAction(address: $address) {
        __typename address
        unshieldedBalances { tokenType amount }
        transaction {
          id hash block { height hash timestamp }
          ... on RegularTransaction { identifiers zswapMerkleTreeRoot transactionResult { status } ${feeFields(f, false)} }
        }
        ... on ContractCall { entryPoint deploy { address transaction { hash block { height timestamp } } } }
      }
    }`,
  );
}

function buildDocuments(f: IndexerFeatures): FeatureDocuments {
  const features = Object.freeze({ ...f });
  const backfills = Array.from({ length: BACKFILL_BATCH }, (_, i) => buildBackfill(features, i + 1));
  return {
    features,
    tip: doc('Tip', `query Tip { block { ${tipBlock(features)} } }`),
    blocks: doc('Blocks', `subscription Blocks($offset: BlockOffset) { blocks(offset: $offset) { ${tipBlock(features)} } }`),
    blockDetail: buildBlockDetail(features),
    transactionDetail: buildTransactionDetail(features),
    contractDetail: buildContractDetail(features),
    backfill(count: number): GqlDocument {
      if (!Number.isInteger(count) || count < 1 || count > BACKFILL_BATCH) throw new RangeError(`backfill batch must be 1..${BACKFILL_BATCH}, got ${count}`);
      return backfills[count - 1]!;
    },
  };
}

const featureKey = (f: IndexerFeatures): string => `${+f.fee}${+f.legacyFees}${+f.bridgeClaims}`;
const built = new Map<string, FeatureDocuments>();

/** The documents for an indexer with `features`, built once per set (the same objects every time). */
export function documentsFor(features: IndexerFeatures): FeatureDocuments {
  const key = featureKey(features);
  let d = built.get(key);
  if (!d) built.set(key, (d = buildDocuments(features)));
  return d;
}

/**
 * Which features the indexer has, from its own schema: one cheap introspection request, whose
 * answer indexer-features.ts reads.
 */
export const FEATURES_PROBE = doc(
  'IndexerFeatures',
  `query IndexerFeatures {
    regular: __type(name: "RegularTransaction") { fields(includeDeprecated: true) { name } }
    bridgeClaim: __type(name: "BridgeClaimTransaction") { name }
  }`,
);

/** Epoch (from the optional SPO indexer; may be null) and the D-parameter's history. */
export const GOVERNANCE = doc(
  'Governance',
  `query Governance {
    currentEpochInfo { epochNo durationSeconds elapsedSeconds }
    dParameterHistory { blockHeight numPermissionedCandidates numRegisteredCandidates }
  }`,
);

export const EPOCH_UTILIZATION = doc('EpochUtilization', `query EpochUtilization($epoch: Int!) { epochUtilization(epoch: $epoch) }`);

export const SEARCH_HEIGHT = doc('SearchHeight', `query SearchHeight($height: Int!) { block(offset: { height: $height }) { height hash timestamp } }`);

/**
 * One request tries a hex value as everything it could be (docs/api.md, "Routes"): block hash
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
