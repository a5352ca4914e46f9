/** GraphQL documents of the DUST wallet sync (validated against the v4.3.7 schema in tests). */
import { gql } from '../../../infra/indexer/document.js';

/** The ledger parameters in force at the tip (DUST parameters and the fee model), the tip's time and its era. */
export const LEDGER_PARAMETERS = gql(
  'NightgateLedgerParameters',
  `query NightgateLedgerParameters { block { height timestamp protocolVersion ledgerParameters } }`,
);

/** Every DUST ledger event from `id` on (the very start when omitted), each with its serialized bytes and the protocol version (era) they are of. */
export const DUST_EVENTS = gql(
  'NightgateDustEvents',
  `subscription NightgateDustEvents($id: Int) { dustLedgerEvents(id: $id) { __typename id raw maxId protocolVersion } }`,
);

/**
 * Every transaction touching an unshielded address with the protocol version it was made in, then
 * a progress marker: the address's unspent UTXOs of each era, which a sponsored transaction's
 * inputs are checked against before a DUST UTXO is reserved for it (input-check.ts).
 */
export const UNSPENT_UTXOS = gql(
  'NightgateUnspentUtxos',
  `subscription NightgateUnspentUtxos($address: UnshieldedAddress!) { unshieldedTransactions(address: $address) { __typename
    ... on UnshieldedTransaction { transaction { protocolVersion } createdUtxos { tokenType value intentHash outputIndex ctime registeredForDustGeneration }
spentUtxos { intentHash outputIndex } }
    ... on UnshieldedTransactionsProgress { highestTransactionId } } }`,
);
