/** The building blocks the statistics response schemas (schemas.ts) share: nullable, hex, time, fee, ledger-era and UTXO-time schemas. */
import { Type, type SchemaOptions, type TSchema } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(t: T, options?: SchemaOptions) => Type.Union([t, Type.Null()], options);
export const Hex = (description: string) => Type.String({ pattern: '^[0-9a-f]*$', description });
export const Iso = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
export const Fraction = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });
export const TxStatus = Nullable(
  Type.Union([Type.Literal('SUCCESS'), Type.Literal('PARTIAL_SUCCESS'), Type.Literal('FAILURE')], { $id: 'TransactionResult' }),
  {
    description: 'Ledger result; null for system transactions and bridge claims',
  },
);
export const TxKind = Type.Union([Type.Literal('regular'), Type.Literal('system'), Type.Literal('bridge-claim')], {
  $id: 'TransactionKind',
  description: '`bridge-claim`: a claim of NIGHT bridged from Cardano (indexer 4.4 and later)',
});
/** Midnight's ledger era, from the protocol version: 2 000 000 and above run ledger 9. */
export const LedgerEra = Type.Union([Type.Literal(8), Type.Literal(9)], {
  $id: 'LedgerEra',
  description: 'Ledger era of the protocol version: 9 from protocol version 2000000, else 8',
});
export const ActionType = Type.Union([Type.Literal('deploy'), Type.Literal('call'), Type.Literal('update')], { $id: 'ContractActionType' });
/** Fees are DUST amounts in SPECK, its smallest unit (LEDGER.md, "Units": 1 DUST = 10^15 SPECK). */
export const Speck = Type.String({ pattern: '^[0-9]+$', description: 'DUST in SPECK, its smallest unit (1 DUST = 10^15 SPECK), decimal string' });
export const FeeUnit = Type.Literal('SPECK', { description: 'The unit of the fee amounts: SPECK (1 DUST = 10^15 SPECK)' });
/** Creation time of a UTXO: ISO 8601 like every other time; `ctime` keeps the indexer's Unix seconds. */
export const UtxoTimes = {
  createdAt: Nullable(Type.String({ format: 'date-time', description: "Creation time, ISO 8601, UTC (from the ledger's ctime)" })),
  ctime: Nullable(
    Type.Integer({ description: 'Deprecated: the same creation time in Unix seconds, kept for clients of API 1.0; use createdAt', deprecated: true }),
  ),
};
