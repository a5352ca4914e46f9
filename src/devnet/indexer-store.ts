// The devnet's indexer database: append-only arrays plus the lookups the GraphQL API needs. Ids
// start at 1, like the indexer's BIGSERIAL columns, so 0 can mean "none" or "from the start". Subscriptions wait on `changed()`, which settles on every appended block and
// on close, so a live feed never polls.
import type {
  BlockBundle,
  BlockRecord,
  ContractActionRecord,
  DustEventRecord,
  TransactionRecord,
  UtxoRecord,
  ZswapEventRecord,
} from './indexer-records.js';

function pushTo<K>(map: Map<K, number[]>, key: K, id: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [id]);
  else if (list[list.length - 1] !== id) list.push(id);
}

export class IndexerStore {
  readonly blocks: BlockRecord[] = [];
  readonly #transactions: TransactionRecord[] = [];
  readonly #dustEvents: DustEventRecord[] = [];
  readonly #zswapEvents: ZswapEventRecord[] = [];
  readonly #contractActions: ContractActionRecord[] = [];
  readonly #utxos = new Map<string, UtxoRecord>();
  readonly #blockByHash = new Map<string, number>();
  readonly #txByHash = new Map<string, number[]>();
  readonly #txByIdentifier = new Map<string, number[]>();
  readonly #txByAddress = new Map<string, number[]>();
  readonly #actionsByAddress = new Map<string, number[]>();
  #closed = false;
  /**
   * When live block production (re)started. Genesis is backdated and a stopped devnet produces
   * nothing, so slot utilization counts from here: the devnet's own downtime is not the chain's.
   */
  liveSinceMs: number | undefined;
  #wake: { promise: Promise<void>; resolve: () => void } = IndexerStore.#signal();

  static #signal(): { promise: Promise<void>; resolve: () => void } {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }

  get closed(): boolean {
    return this.#closed;
  }

  get latestBlock(): BlockRecord | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  /** The next ids a new block's records take. */
  nextIds(): { transaction: number; dustEvent: number; zswapEvent: number; contractAction: number } {
    return {
      transaction: this.#transactions.length + 1,
      dustEvent: this.#dustEvents.length + 1,
      zswapEvent: this.#zswapEvents.length + 1,
      contractAction: this.#contractActions.length + 1,
    };
  }

  append(bundle: BlockBundle): void {
    const { block } = bundle;
    if (block.height !== this.blocks.length) throw new Error(`block ${block.height} appended at height ${this.blocks.length}`);
    this.blocks.push(block);
    this.#blockByHash.set(block.hash, block.height);
    for (const tx of bundle.transactions) {
      this.#transactions[tx.id - 1] = tx;
      pushTo(this.#txByHash, tx.hash, tx.id);
      for (const identifier of tx.identifiers) pushTo(this.#txByIdentifier, identifier, tx.id);
    }
    const touched: Array<{ owner: string; id: number }> = [];
    for (const utxo of bundle.createdUtxos) {
      this.#utxos.set(utxo.key, utxo);
      touched.push({ owner: utxo.owner, id: utxo.createdAtTransactionId });
    }
    for (const { key, transactionId } of bundle.spentUtxos) {
      const utxo = this.#utxos.get(key);
      if (!utxo) continue;
      utxo.spentAtTransactionId = transactionId;
      touched.push({ owner: utxo.owner, id: transactionId });
    }
    // Keep each address's list ascending: a block may spend an address's UTXO before creating one.
    touched.sort((a, b) => a.id - b.id);
    for (const { owner, id } of touched) pushTo(this.#txByAddress, owner, id);
    for (const event of bundle.dustEvents) this.#dustEvents[event.id - 1] = event;
    for (const event of bundle.zswapEvents) this.#zswapEvents[event.id - 1] = event;
    for (const action of bundle.contractActions) {
      this.#contractActions[action.id - 1] = action;
      pushTo(this.#actionsByAddress, action.address, action.id);
    }
    const wake = this.#wake;
    this.#wake = IndexerStore.#signal();
    wake.resolve();
  }

  /** Settles when the next block is appended or the store closes. */
  changed(): Promise<void> {
    return this.#closed ? Promise.resolve() : this.#wake.promise;
  }

  close(): void {
    this.#closed = true;
    this.#wake.resolve();
  }

  transaction(id: number): TransactionRecord | undefined {
    return this.#transactions[id - 1];
  }

  dustEvent(id: number): DustEventRecord | undefined {
    return this.#dustEvents[id - 1];
  }

  zswapEvent(id: number): ZswapEventRecord | undefined {
    return this.#zswapEvents[id - 1];
  }

  contractAction(id: number): ContractActionRecord | undefined {
    return this.#contractActions[id - 1];
  }

  get maxTransactionId(): number {
    return this.#transactions.length;
  }

  get maxDustEventId(): number {
    return this.#dustEvents.length;
  }

  get maxZswapEventId(): number {
    return this.#zswapEvents.length;
  }

  blockByHash(hash: string): BlockRecord | undefined {
    const height = this.#blockByHash.get(hash.toLowerCase());
    return height === undefined ? undefined : this.blocks[height];
  }

  transactionsByHash(hash: string): TransactionRecord[] {
    return (this.#txByHash.get(hash.toLowerCase()) ?? []).map((id) => this.#transactions[id - 1] as TransactionRecord);
  }

  transactionsByIdentifier(identifier: string): TransactionRecord[] {
    return (this.#txByIdentifier.get(identifier.toLowerCase()) ?? []).map((id) => this.#transactions[id - 1] as TransactionRecord);
  }

  /** Ids of the transactions that created or spent a UTXO of `owner` (64-hex), ascending. */
  transactionIdsOfAddress(owner: string): readonly number[] {
    return this.#txByAddress.get(owner) ?? [];
  }

  utxo(key: string): UtxoRecord | undefined {
    return this.#utxos.get(key);
  }

  contractActionIds(address: string): readonly number[] {
    return this.#actionsByAddress.get(address.toLowerCase()) ?? [];
  }
}
