// What the tests use of Midnight.js 5's indexer public data provider
// (@midnight-ntwrk/midnight-js-indexer-public-data-provider), declared here so that the tests
// type-check where the package is not installed (README.md): its names and shapes, reduced to
// what the tests pass and read. Ledger and contract objects are reduced to their serialize().

export interface Serializable {
  serialize(): Uint8Array;
}

/** rxjs's Observable, as the tests subscribe to it. */
export interface Observable<T> {
  subscribe(observer: { next(value: T): void; error(err: unknown): void; complete(): void }): { unsubscribe(): void };
}

export type BlockHeightConfig = { readonly type: 'blockHeight'; readonly blockHeight: number };
export type BlockHashConfig = { readonly type: 'blockHash'; readonly blockHash: string };
export type BlockConfig = BlockHeightConfig | BlockHashConfig;
export type ContractStateObservableConfig =
  | ((BlockHeightConfig | BlockHashConfig | { readonly type: 'txId'; readonly txId: string }) & { readonly inclusive?: boolean })
  | { readonly type: 'latest' }
  | { readonly type: 'all' };

export type UnshieldedBalances = Array<{ readonly balance: bigint; readonly tokenType: string }>;

export interface FinalizedTxData {
  readonly tx: Serializable;
  readonly status: 'SucceedEntirely' | 'FailFallible' | 'FailEntirely';
  readonly txId: string;
  readonly identifiers: readonly string[];
  readonly txHash: string;
  readonly blockHash: string;
  readonly blockHeight: number;
  readonly blockTimestamp: number;
  readonly blockAuthor: string | null;
  readonly indexerId: number;
  readonly protocolVersion: number;
  readonly fees: { readonly paidFees: string; readonly estimatedFees: string };
  readonly segmentStatusMap: Map<number, 'SegmentSuccess' | 'SegmentFail'> | undefined;
  readonly unshielded: { readonly created: readonly unknown[]; readonly spent: readonly unknown[] };
}

export type ContractEventType =
  | 'ShieldedSpend'
  | 'ShieldedReceive'
  | 'ShieldedMint'
  | 'ShieldedBurn'
  | 'UnshieldedSpend'
  | 'UnshieldedReceive'
  | 'UnshieldedMint'
  | 'UnshieldedBurn'
  | 'Paused'
  | 'Unpaused'
  | 'Misc';

/** One event a contract logged; each type adds its own fields. */
export interface ContractEvent {
  readonly eventType: ContractEventType;
  readonly id: number;
  readonly maxId: number;
  readonly version: number;
  readonly contractAddress: string;
  readonly transactionId: number;
  readonly raw: string;
}

export interface ContractEventFilter {
  readonly contractAddress: string;
  readonly types?: ContractEventType[];
  readonly fieldPrefixes?: Array<{ readonly fieldName: string; readonly prefix: string }>;
  readonly transactionHash?: string;
  readonly toBlock?: number;
}
export interface ContractEventQueryFilter extends ContractEventFilter {
  readonly fromBlock?: number;
}

export interface IndexerPublicDataProvider {
  dispose(): Promise<void>;
  queryBlock(config?: BlockConfig): Promise<{ readonly hash: string; readonly height: number } | null>;
  queryContractState(address: string, config?: BlockConfig): Promise<Serializable | null>;
  /** The coin-commitment tree filtered to the contract, its state and the ledger parameters. */
  queryZSwapAndContractState(address: string, config?: BlockConfig): Promise<[Serializable, Serializable, Serializable] | null>;
  queryUnshieldedBalances(address: string, config?: BlockConfig): Promise<UnshieldedBalances | null>;
  queryDeployContractState(address: string): Promise<Serializable | null>;
  watchForContractState(address: string): Promise<Serializable>;
  watchForUnshieldedBalances(address: string): Promise<UnshieldedBalances>;
  watchForDeployTxData(address: string): Promise<FinalizedTxData>;
  watchForTxData(txId: string): Promise<FinalizedTxData>;
  contractStateObservable(address: string, config?: ContractStateObservableConfig): Observable<Serializable>;
  unshieldedBalancesObservable(address: string, config?: ContractStateObservableConfig): Observable<UnshieldedBalances>;
  queryContractEvents(filter: ContractEventQueryFilter, page?: { readonly limit?: number; readonly offset?: number }): Promise<ContractEvent[]>;
  contractEventsObservable(
    filter: ContractEventFilter,
    opts?: { readonly startAt?: { readonly fromId: number } | { readonly fromBlock: number } },
  ): Observable<ContractEvent>;
}

export function indexerPublicDataProvider(config: {
  readonly queryURL: string;
  readonly subscriptionURL: string;
  readonly pollInterval?: number;
}): IndexerPublicDataProvider;

export function getAllContractEvents(
  provider: Pick<IndexerPublicDataProvider, 'queryContractEvents'>,
  filter: ContractEventQueryFilter,
): AsyncIterable<ContractEvent>;
