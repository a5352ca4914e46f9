// What the devnet's indexer stores, one record type per GraphQL object it serves. Records hold plain
// data (no ledger objects, no bigints) so a block's records can be persisted as they are and
// replayed into a fresh store on restart.
export type TransactionResultStatus = 'SUCCESS' | 'PARTIAL_SUCCESS' | 'FAILURE';

export type DustEventTypename = 'DustInitialUtxo' | 'DustGenerationDtimeUpdate' | 'DustSpendProcessed' | 'ParamChange';

type ContractActionTypename = 'ContractDeploy' | 'ContractCall' | 'ContractUpdate';

export type ContractEventTypename =
  | 'ShieldedSpendEvent'
  | 'ShieldedReceiveEvent'
  | 'ShieldedMintEvent'
  | 'ShieldedBurnEvent'
  | 'UnshieldedSpendEvent'
  | 'UnshieldedReceiveEvent'
  | 'UnshieldedMintEvent'
  | 'UnshieldedBurnEvent'
  | 'PausedEvent'
  | 'UnpausedEvent'
  | 'MiscContractEvent';

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
  /**
   * `contractZswapState` after this block, for every contract (contract-zswap.ts); absent from
   * blocks logged before the devnet kept it.
   */
  contractZswap?: ContractZswapTrees;
}

/** The chain's coin-commitment tree after a block, filtered to each contract (serialized ZswapChainState). */
export interface ContractZswapTrees {
  /** Every leaf collapsed: the answer for any contract without a commitment in the tree. */
  collapsed: Uint8Array;
  /** Contracts with commitments in the tree, by address, and theirs. */
  owners: Record<string, Uint8Array>;
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
  /** The contract events it emitted, in order; absent from transactions logged before the devnet indexed them. */
  contractEvents?: ContractEventRecord[];
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

export interface AddressOrContractRecord {
  kind: 'USER' | 'CONTRACT';
  userAddress: string | null;
  contractAddress: string | null;
}

/** A contract event's own fields under their schema names: hex, amounts in decimal, null when absent. */
export type ContractEventFields = Record<string, string | AddressOrContractRecord | null>;

export interface ContractEventRecord {
  id: number;
  typename: ContractEventTypename;
  /** The ledger's `contractLog` event, serialized. */
  raw: Uint8Array;
  protocolVersion: number;
  /** The event schema version the contract declared. */
  version: number;
  contractAddress: string;
  transactionId: number;
  blockHeight: number;
  /** The entry point whose call logged it (text, or hex for a binary one). */
  entryPoint: string;
  /** The call it is attributed to: the one call of its transaction with its address and entry point; null if none or several. */
  contractActionId: number | null;
  fields: ContractEventFields;
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
