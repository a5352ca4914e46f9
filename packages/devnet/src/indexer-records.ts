// What the devnet's indexer stores, one record type per GraphQL object it serves. Records hold plain
// data (no ledger objects, no bigints) so a block's records can be persisted as they are and
// replayed into a fresh store on restart.
export type TransactionResultStatus = 'SUCCESS' | 'PARTIAL_SUCCESS' | 'FAILURE';

export type DustEventTypename = 'DustInitialUtxo' | 'DustGenerationDtimeUpdate' | 'DustSpendProcessed' | 'ParamChange';

export type ContractActionTypename = 'ContractDeploy' | 'ContractCall' | 'ContractUpdate';

export interface BlockRecord {
  height: number;
  hash: string;
  parentHash: string | null;
  /** Milliseconds since the Unix epoch, as the indexer reports it. */
  timestamp: number;
  author: string;
  protocolVersion: number;
  ledgerParameters: string;
  zswapMerkleTreeRoot: string;
  zswapEndIndex: number;
  transactionIds: number[];
}

export interface TransactionRecord {
  id: number;
  hash: string;
  protocolVersion: number;
  raw: Uint8Array;
  blockHeight: number;
  identifiers: string[];
  status: TransactionResultStatus;
  segments: Array<{ id: number; success: boolean }> | null;
  /** SPECK, decimal. */
  fee: string;
  zswapMerkleTreeRoot: string;
  zswapStartIndex: number;
  zswapEndIndex: number;
  contractActionIds: number[];
  createdUtxoKeys: string[];
  spentUtxoKeys: string[];
  zswapEventIds: number[];
  dustEventIds: number[];
}

export interface UtxoRecord {
  key: string;
  /** 64-hex ledger address; rendered as Bech32m by the API. */
  owner: string;
  tokenType: string;
  value: string;
  intentHash: string;
  outputIndex: number;
  /** Seconds since the Unix epoch. */
  ctime: number | null;
  initialNonce: string;
  registeredForDustGeneration: boolean;
  createdAtTransactionId: number;
  spentAtTransactionId: number | null;
}

export interface DustEventRecord {
  id: number;
  typename: DustEventTypename;
  raw: Uint8Array;
  protocolVersion: number;
  transactionId: number;
  /** DustInitialUtxo only: the new DUST output's nonce. */
  outputNonce: string | null;
}

export interface ZswapEventRecord {
  id: number;
  raw: Uint8Array;
  protocolVersion: number;
  transactionId: number;
}

export interface ContractActionRecord {
  id: number;
  typename: ContractActionTypename;
  address: string;
  state: string;
  zswapState: string;
  entryPoint: string | null;
  transactionId: number;
  /** The id of the deploy of this address (its own id for a deploy). */
  deployId: number;
  balances: Array<{ tokenType: string; amount: string }>;
}

/** Everything one block adds to the indexer; the unit of persistence. */
export interface BlockBundle {
  block: BlockRecord;
  transactions: TransactionRecord[];
  createdUtxos: UtxoRecord[];
  spentUtxos: Array<{ key: string; transactionId: number }>;
  dustEvents: DustEventRecord[];
  zswapEvents: ZswapEventRecord[];
  contractActions: ContractActionRecord[];
}
