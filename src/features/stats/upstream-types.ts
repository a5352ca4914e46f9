/**
 * The shapes the indexer answers our documents (src/features/stats/queries.ts) with, as typebox schemas
 * compiled once: a response that does not match is an indexer error (INDEXER_BAD_RESPONSE),
 * never a crash or a half-rendered page. Field meanings: the indexer schemas v4.3.7 and 4.4
 * (packages/devnet/src/indexer-schema.ts). Which fee fields arrive depends on the indexer's features
 * (queries.ts): `fee` from indexers that have it, else the deprecated `fees`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { GatewayError } from '../../core/errors.js';

const Int = Type.Integer();
const Hex = Type.String();
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const TxKind = Type.Union([Type.Literal('RegularTransaction'), Type.Literal('SystemTransaction'), Type.Literal('BridgeClaimTransaction')]);
export type TxTypename = Static<typeof TxKind>;
const TxStatus = Type.Union([Type.Literal('SUCCESS'), Type.Literal('PARTIAL_SUCCESS'), Type.Literal('FAILURE')]);
const DParameter = Type.Object({ numPermissionedCandidates: Int, numRegisteredCandidates: Int });
/** SPECK, decimal (indexer 4.4's `fee`, and 4.3.7's where it has it). */
const Fee = Type.Optional(Type.String());
/** The deprecated fee object: whichever of its fields the document asked for. */
const LegacyFees = Type.Optional(Type.Object({ paidFees: Type.Optional(Type.String()), estimatedFees: Type.Optional(Type.String()) }));
/** The fee fields of a regular transaction, as the document for the indexer's features asked. */
export interface FeeFields {
  fee?: string | undefined;
  fees?: { paidFees?: string | undefined; estimatedFees?: string | undefined } | undefined;
}

export const RingTransaction = Type.Object({
  __typename: TxKind,
  id: Int,
  hash: Hex,
  transactionResult: Type.Optional(Type.Object({ status: TxStatus })),
  fee: Fee,
  fees: LegacyFees,
});
export type RingTransaction = Static<typeof RingTransaction>;

export const RingBlock = Type.Object({
  height: Int,
  hash: Hex,
  /** Milliseconds (LEDGER.md, "Units"). */
  timestamp: Int,
  protocolVersion: Int,
  author: Nullable(Hex),
  transactions: Type.Array(RingTransaction),
  systemParameters: Type.Optional(Type.Object({ dParameter: DParameter })),
});
export type RingBlock = Static<typeof RingBlock>;

export const TipData = Type.Object({ block: Nullable(RingBlock) });
export const BlocksEvent = Type.Object({ blocks: RingBlock });
export const BackfillData = Type.Record(Type.String(), Nullable(RingBlock));

export const GovernanceData = Type.Object({
  currentEpochInfo: Type.Optional(Nullable(Type.Object({ epochNo: Int, durationSeconds: Int, elapsedSeconds: Int }))),
  dParameterHistory: Type.Optional(Nullable(Type.Array(Type.Object({ blockHeight: Int, numPermissionedCandidates: Int, numRegisteredCandidates: Int })))),
});
export type GovernanceData = Static<typeof GovernanceData>;
export const UtilizationData = Type.Object({ epochUtilization: Nullable(Type.Number()) });

const ActionKind = Type.Union([Type.Literal('ContractDeploy'), Type.Literal('ContractCall'), Type.Literal('ContractUpdate')]);
const Balance = Type.Object({ tokenType: Hex, amount: Type.String() });
const BlockRef = Type.Object({ height: Int, hash: Hex, timestamp: Int });

export const BlockDetailData = Type.Object({
  block: Nullable(
    Type.Object({
      height: Int,
      hash: Hex,
      timestamp: Int,
      protocolVersion: Int,
      author: Nullable(Hex),
      zswapMerkleTreeRoot: Hex,
      zswapEndIndex: Int,
      parent: Nullable(Type.Object({ height: Int, hash: Hex })),
      systemParameters: Type.Object({ dParameter: DParameter, termsAndConditions: Nullable(Type.Object({ hash: Hex, url: Type.String() })) }),
      transactions: Type.Array(
        Type.Object({
          __typename: TxKind,
          id: Int,
          hash: Hex,
          protocolVersion: Int,
          contractActions: Type.Array(Type.Object({ __typename: ActionKind, address: Hex })),
          unshieldedCreatedOutputs: Type.Array(Type.Object({ outputIndex: Int })),
          unshieldedSpentOutputs: Type.Array(Type.Object({ outputIndex: Int })),
          identifiers: Type.Optional(Type.Array(Hex)),
          transactionResult: Type.Optional(Type.Object({ status: TxStatus })),
          fee: Fee,
          fees: LegacyFees,
        }),
      ),
    }),
  ),
});
export type BlockDetailData = Static<typeof BlockDetailData>;

const Utxo = {
  owner: Type.String(),
  tokenType: Hex,
  value: Type.String({ pattern: '^[0-9]{1,40}$' }),
  intentHash: Hex,
  outputIndex: Int,
  ctime: Type.Optional(Nullable(Int)),
};

export const TransactionDetailData = Type.Object({
  transactions: Type.Array(
    Type.Object({
      __typename: TxKind,
      id: Int,
      hash: Hex,
      protocolVersion: Int,
      block: BlockRef,
      contractActions: Type.Array(
        Type.Object({ __typename: ActionKind, address: Hex, unshieldedBalances: Type.Array(Balance), entryPoint: Type.Optional(Type.String()) }),
      ),
      unshieldedCreatedOutputs: Type.Array(Type.Object({ ...Utxo, registeredForDustGeneration: Type.Boolean() })),
      unshieldedSpentOutputs: Type.Array(Type.Object({ ...Utxo, createdAtTransaction: Type.Object({ hash: Hex }) })),
      zswapLedgerEvents: Type.Array(Type.Object({ id: Int })),
      dustLedgerEvents: Type.Array(Type.Object({ id: Int })),
      identifiers: Type.Optional(Type.Array(Hex)),
      zswapMerkleTreeRoot: Type.Optional(Hex),
      zswapStartIndex: Type.Optional(Int),
      zswapEndIndex: Type.Optional(Int),
      fee: Fee,
      fees: LegacyFees,
      /** Bridge claims (indexer 4.4): the recipient and the amount as a 16-byte big-endian u128. */
      recipient: Type.Optional(Hex),
      amount: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{1,64}$' })),
      transactionResult: Type.Optional(Type.Object({ status: TxStatus, segments: Nullable(Type.Array(Type.Object({ id: Int, success: Type.Boolean() }))) })),
    }),
  ),
});
export type TransactionDetailData = Static<typeof TransactionDetailData>;

export const ContractDetailData = Type.Object({
  contractAction: Nullable(
    Type.Object({
      __typename: ActionKind,
      address: Hex,
      unshieldedBalances: Type.Array(Balance),
      transaction: Type.Object({
        id: Int,
        hash: Hex,
        block: BlockRef,
        identifiers: Type.Optional(Type.Array(Hex)),
        zswapMerkleTreeRoot: Type.Optional(Hex),
        transactionResult: Type.Optional(Type.Object({ status: TxStatus })),
        fee: Fee,
        fees: LegacyFees,
      }),
      entryPoint: Type.Optional(Type.String()),
      deploy: Type.Optional(Type.Object({ address: Hex, transaction: Type.Object({ hash: Hex, block: Type.Object({ height: Int, timestamp: Int }) }) })),
    }),
  ),
});
export type ContractDetailData = Static<typeof ContractDetailData>;

const TxRef = Type.Object({ hash: Hex, block: Type.Object({ height: Int }) });
export const SearchHeightData = Type.Object({ block: Nullable(BlockRef) });
export const SearchHexData = Type.Object({
  block: Type.Optional(Nullable(BlockRef)),
  byHash: Type.Optional(Nullable(Type.Array(TxRef))),
  byIdentifier: Nullable(Type.Array(TxRef)),
  contract: Nullable(Type.Object({ __typename: ActionKind, address: Hex, transaction: Type.Object({ hash: Hex }) })),
});
export type SearchHexData = Static<typeof SearchHexData>;

export const AddressEvent = Type.Object({
  unshieldedTransactions: Type.Union([
    Type.Object({
      __typename: Type.Literal('UnshieldedTransaction'),
      transaction: Type.Object({
        id: Int,
        hash: Hex,
        block: Type.Object({ height: Int, timestamp: Int }),
        transactionResult: Type.Optional(Type.Object({ status: TxStatus })),
      }),
      createdUtxos: Type.Array(Type.Object({ ...Utxo, registeredForDustGeneration: Type.Boolean(), spentAtTransaction: Nullable(Type.Object({ hash: Hex })) })),
      spentUtxos: Type.Array(Type.Object(Utxo)),
    }),
    Type.Object({ __typename: Type.Literal('UnshieldedTransactionsProgress'), highestTransactionId: Int }),
  ]),
});
export type AddressEvent = Static<typeof AddressEvent>;

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** Check `data` against `schema` (compiled once); INDEXER_BAD_RESPONSE naming the first mismatch. */
export function expectShape<T extends TSchema>(schema: T, data: unknown, what: string): Static<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (check.Check(data)) return data as Static<T>;
  const first = check.Errors(data).First();
  throw new GatewayError('INDEXER_BAD_RESPONSE', `The indexer's answer to ${what} is malformed${first ? ` at ${first.path || '/'}: ${first.message}` : ''}`);
}
