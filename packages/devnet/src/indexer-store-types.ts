// The shapes around the devnet's indexer store (indexer-store.ts): the ids a block's records take,
// the archive older blocks are read back from, the store's options and its collection sizes.
import type { BlockRecord, ContractActionRecord, DustEventRecord, TransactionRecord, ZswapEventRecord } from './indexer-records.js';

/** An id of each kind of record a block carries. */
export interface RecordIds {
  transaction: number;
  dustEvent: number;
  zswapEvent: number;
  contractAction: number;
  contractEvent: number;
}

/** Records read back by height or id, for blocks older than the retained history. */
export interface BlockArchive {
  block(height: number): BlockRecord | undefined;
  transaction(id: number): TransactionRecord | undefined;
  dustEvent(id: number): DustEventRecord | undefined;
  zswapEvent(id: number): ZswapEventRecord | undefined;
  contractAction(id: number): ContractActionRecord | undefined;
  /** The highest transaction id in blocks at or below `height`, 0 when there is none. */
  lastTransactionIdAt(height: number): number | undefined;
}

export interface IndexerStoreOptions {
  /** Blocks kept in memory with everything they carry; at least 1. */
  retainBlocks: number;
  archive?: BlockArchive;
}

/** Collection sizes, for tests and /health: what the bound applies to. */
export interface StoreSizes {
  blocks: number;
  transactions: number;
  dustEvents: number;
  zswapEvents: number;
  contractActions: number;
  contractEvents: number;
  utxos: number;
  keptForReferences: number;
  blockHashes: number;
  transactionHashes: number;
  identifiers: number;
  addresses: number;
  addressEntries: number;
  contractAddresses: number;
  /** Addresses with contract events held. */
  contractEventAddresses: number;
}
