// The devnet's indexer database, held in memory and bounded: the newest `retainBlocks` blocks with
// every record they carry and every lookup over them, plus the few older records a held record
// refers to (below). Ids start at 1, like the indexer's BIGSERIAL columns, so 0 can mean "none"
// or "from the start". Subscriptions wait on `changed()`, which settles on every appended block and
// on close, so a live feed never polls.
//
// What happens to a block older than the retained history (keeping every block made the worker
// grow by every block it produced, without end):
//  - With an archive (a devnet with a state directory: its block log, persistence.ts), records by
//    height or id — blocks, transactions, ledger events, contract actions — are read back from
//    disk, so feeds replay the whole chain (a wallet syncing DUST or Zswap events from id 1).
//  - Without one, they are gone: a query answers as for a record that does not exist (null or an
//    empty list), and a subscription asked to start before the retained history — or one whose
//    client fell that far behind — fails with DEVNET_PRUNED rather than skip what a wallet needs.
//  - Either way, lookups by hash, identifier or address cover the retained history only (their
//    indexes are what would grow); so do contract events, which have no id index in the archive
//    (an archived call still reaches its own through its transaction). Block 0 (genesis) is
//    always kept.
//  - A record the retained history refers to through a non-null field stays: the transaction that
//    created a UTXO which is unspent or spent within the retained history
//    (UnshieldedUtxo.createdAtTransaction), the deploy of a retained contract call
//    (ContractCall.deploy), and the block of any transaction so kept (Transaction.block). Such a
//    record keeps its own fields; its lists (a block's transactions, a transaction's events) hold
//    only what is still kept. Unspent UTXO records stay: they are the chain's current state.
import { IdRange, pushTo, trimFront } from './id-range.js';
import { sameTrees } from './contract-zswap.js';
import type {
  BlockBundle,
  BlockRecord,
  ContractActionRecord,
  ContractEventRecord,
  DustEventRecord,
  TransactionRecord,
  UtxoRecord,
  ZswapEventRecord,
} from './indexer-records.js';
import type { BlockArchive, IndexerStoreOptions, RecordIds, StoreSizes } from './indexer-store-types.js';
import { KeptRecords } from './kept-records.js';

export type { BlockArchive, StoreSizes } from './indexer-store-types.js';

export class IndexerStore {
  readonly retainBlocks: number;
  readonly #archive: BlockArchive | undefined;
  #genesis: BlockRecord | undefined;
  readonly #blocks = new IdRange<BlockRecord>(0);
  /** First transaction id of each retained block (a block may have none). */
  readonly #firstTxIds = new IdRange<number>(0);
  readonly #transactions = new IdRange<TransactionRecord>(1);
  readonly #dustEvents = new IdRange<DustEventRecord>(1);
  readonly #zswapEvents = new IdRange<ZswapEventRecord>(1);
  readonly #contractActions = new IdRange<ContractActionRecord>(1);
  /** The same records as their transactions' `contractEvents`, by id. */
  readonly #contractEvents = new IdRange<ContractEventRecord>(1);
  readonly #utxos = new Map<string, UtxoRecord>();
  readonly #blockByHash = new Map<string, number>();
  readonly #txByHash = new Map<string, number[]>();
  readonly #txByIdentifier = new Map<string, number[]>();
  readonly #txByAddress = new Map<string, number[]>();
  readonly #actionsByAddress = new Map<string, number[]>();
  readonly #eventsByAddress = new Map<string, number[]>();
  /** Older records kept because a held record refers to them (see the header). */
  readonly #kept = new KeptRecords();
  #latestDeploy: string | undefined;
  #closed = false;
  /**
   * When live block production (re)started. Genesis is backdated and a stopped devnet produces
   * nothing, so slot utilization counts from here: the devnet's own downtime is not the chain's.
   */
  liveSinceMs: number | undefined;
  #wake: { promise: Promise<void>; resolve: () => void } = IndexerStore.#signal();

  constructor(opts: IndexerStoreOptions) {
    if (!Number.isSafeInteger(opts.retainBlocks) || opts.retainBlocks < 1) throw new RangeError('retainBlocks must be a positive integer');
    this.retainBlocks = opts.retainBlocks;
    this.#archive = opts.archive;
  }

  static #signal(): { promise: Promise<void>; resolve: () => void } {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }

  get closed(): boolean {
    return this.#closed;
  }

  get latestBlock(): BlockRecord | undefined {
    return this.#blocks.items[this.#blocks.items.length - 1];
  }

  get genesis(): BlockRecord | undefined {
    return this.#genesis;
  }

  /** Height the next block takes (the number of blocks ever appended). */
  get nextHeight(): number {
    return this.#blocks.next;
  }

  /** The oldest height held in full; older blocks come from the archive, if any. */
  get oldestRetainedHeight(): number {
    return this.#blocks.base;
  }

  /** Whether records older than the retained history can still be read (from the archive). */
  get hasArchive(): boolean {
    return this.#archive !== undefined;
  }

  /** The address of the most recently deployed contract. */
  get latestDeploy(): string | undefined {
    return this.#latestDeploy;
  }

  /** Keys of every held UTXO not spent yet (the chain's current unshielded state). */
  unspentUtxoKeys(): string[] {
    const keys: string[] = [];
    for (const [key, utxo] of this.#utxos) if (utxo.spentAtTransactionId === null) keys.push(key);
    return keys;
  }

  /** The next ids a new block's records take. */
  nextIds(): RecordIds {
    return {
      transaction: this.#transactions.next,
      dustEvent: this.#dustEvents.next,
      zswapEvent: this.#zswapEvents.next,
      contractAction: this.#contractActions.next,
      contractEvent: this.#contractEvents.next,
    };
  }

  /** The lowest id of each kind that is still held in full (feeds start there without an archive). */
  oldestRetainedIds(): RecordIds {
    return {
      transaction: this.#transactions.base,
      dustEvent: this.#dustEvents.base,
      zswapEvent: this.#zswapEvents.base,
      contractAction: this.#contractActions.base,
      contractEvent: this.#contractEvents.base,
    };
  }

  append(bundle: BlockBundle): void {
    const { block } = bundle;
    if (block.height !== this.#blocks.next) throw new Error(`block ${block.height} appended at height ${this.#blocks.next}`);
    // Ledger parameters rarely change: share the previous block's text (1.4 kB per block otherwise).
    const previous = this.latestBlock;
    if (previous && previous.ledgerParameters === block.ledgerParameters) block.ledgerParameters = previous.ledgerParameters;
    // So do the filtered commitment trees (≈ 1.6 KiB), which the block indexer already shares
    // when nothing changed, but blocks read back from the log do not.
    if (
      previous?.contractZswap &&
      block.contractZswap &&
      previous.contractZswap !== block.contractZswap &&
      sameTrees(previous.contractZswap, block.contractZswap)
    ) {
      block.contractZswap = previous.contractZswap;
    }
    this.#blocks.push(block.height, block);
    this.#firstTxIds.push(block.height, this.#transactions.next);
    if (block.height === 0) this.#genesis = block;
    this.#blockByHash.set(block.hash, block.height);
    for (const tx of bundle.transactions) {
      this.#transactions.push(tx.id, tx);
      pushTo(this.#txByHash, tx.hash, tx.id);
      for (const identifier of tx.identifiers) pushTo(this.#txByIdentifier, identifier, tx.id);
      for (const event of tx.contractEvents ?? []) {
        this.#contractEvents.push(event.id, event);
        pushTo(this.#eventsByAddress, event.contractAddress, event.id);
      }
    }
    const touched: Array<{ owner: string; id: number }> = [];
    for (const utxo of bundle.createdUtxos) {
      this.#utxos.set(utxo.key, utxo);
      this.#kept.referTransaction(utxo.createdAtTransactionId);
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
    for (const event of bundle.dustEvents) this.#dustEvents.push(event.id, event);
    for (const event of bundle.zswapEvents) this.#zswapEvents.push(event.id, event);
    for (const action of bundle.contractActions) {
      this.#contractActions.push(action.id, action);
      pushTo(this.#actionsByAddress, action.address, action.id);
      if (action.typename === 'ContractDeploy') this.#latestDeploy = action.address;
      else if (action.deployId > 0) this.#kept.referDeploy(action.deployId);
    }
    while (this.#blocks.items.length > this.retainBlocks) this.#evictOldest();
    const wake = this.#wake;
    this.#wake = IndexerStore.#signal();
    wake.resolve();
  }

  /** Moves the oldest retained block out of the retained history (see the header). */
  #evictOldest(): void {
    const block = this.#blocks.items[0] as BlockRecord;
    let lastTx = 0;
    let lastDust = 0;
    let lastZswap = 0;
    let lastAction = 0;
    let lastEvent = 0;
    for (const id of block.transactionIds) {
      const tx = this.#transactions.at(id) as TransactionRecord;
      lastTx = id;
      for (const event of tx.contractEvents ?? []) {
        lastEvent = event.id;
        trimFront(this.#eventsByAddress, event.contractAddress, event.id);
      }
      lastDust = Math.max(lastDust, ...tx.dustEventIds);
      lastZswap = Math.max(lastZswap, ...tx.zswapEventIds);
      // Its spends leave the retained history: the records they spent are no longer referred to.
      for (const key of tx.spentUtxoKeys) {
        const utxo = this.#utxos.get(key);
        if (!utxo || utxo.spentAtTransactionId !== id) continue;
        this.#utxos.delete(key);
        trimFront(this.#txByAddress, utxo.owner, id);
        this.#kept.unreferTransaction(utxo.createdAtTransactionId);
      }
      for (const key of tx.createdUtxoKeys) {
        const utxo = this.#utxos.get(key);
        if (utxo) trimFront(this.#txByAddress, utxo.owner, id);
      }
      for (const actionId of tx.contractActionIds) {
        const action = this.#contractActions.at(actionId) as ContractActionRecord;
        lastAction = actionId;
        trimFront(this.#actionsByAddress, action.address, actionId);
        if (action.typename !== 'ContractDeploy' && action.deployId > 0) this.#kept.unreferDeploy(action.deployId);
        if (action.typename === 'ContractDeploy') this.#kept.evictDeploy(actionId, action, id);
      }
      trimFront(this.#txByHash, tx.hash, id);
      for (const identifier of tx.identifiers) trimFront(this.#txByIdentifier, identifier, id);
      this.#kept.evictTransaction(id, tx, block.height);
    }
    this.#transactions.dropThrough(lastTx);
    this.#dustEvents.dropThrough(lastDust);
    this.#zswapEvents.dropThrough(lastZswap);
    this.#contractActions.dropThrough(lastAction);
    this.#contractEvents.dropThrough(lastEvent);
    this.#blockByHash.delete(block.hash);
    this.#kept.evictBlock(block);
    this.#blocks.dropThrough(block.height);
    this.#firstTxIds.dropThrough(block.height);
  }

  /** Settles when the next block is appended or the store closes. */
  changed(): Promise<void> {
    return this.#closed ? Promise.resolve() : this.#wake.promise;
  }

  close(): void {
    this.#closed = true;
    this.#wake.resolve();
  }

  block(height: number): BlockRecord | undefined {
    if (height === 0 && this.#genesis) return this.#genesis;
    return this.#blocks.at(height) ?? this.#kept.block(height) ?? (height >= 0 && height < this.#blocks.base ? this.#archive?.block(height) : undefined);
  }

  transaction(id: number): TransactionRecord | undefined {
    return this.#transactions.at(id) ?? this.#kept.transaction(id) ?? (id >= 1 && id < this.#transactions.base ? this.#archive?.transaction(id) : undefined);
  }

  dustEvent(id: number): DustEventRecord | undefined {
    return this.#dustEvents.at(id) ?? (id >= 1 && id < this.#dustEvents.base ? this.#archive?.dustEvent(id) : undefined);
  }

  zswapEvent(id: number): ZswapEventRecord | undefined {
    return this.#zswapEvents.at(id) ?? (id >= 1 && id < this.#zswapEvents.base ? this.#archive?.zswapEvent(id) : undefined);
  }

  contractAction(id: number): ContractActionRecord | undefined {
    return (
      this.#contractActions.at(id) ??
      this.#kept.contractAction(id) ??
      (id >= 1 && id < this.#contractActions.base ? this.#archive?.contractAction(id) : undefined)
    );
  }

  /** A contract event of the retained history (see the header). */
  contractEvent(id: number): ContractEventRecord | undefined {
    return this.#contractEvents.at(id);
  }

  /** The highest transaction id in blocks at or below `height` (0: none); undefined when not known. */
  lastTransactionIdAt(height: number): number | undefined {
    if (height < 0) return undefined;
    if (height >= this.#blocks.next - 1) return this.#transactions.next - 1;
    const nextFirst = this.#firstTxIds.at(height + 1);
    if (nextFirst !== undefined) return nextFirst - 1;
    return this.#archive?.lastTransactionIdAt(height);
  }

  get maxTransactionId(): number {
    return this.#transactions.next - 1;
  }

  get maxDustEventId(): number {
    return this.#dustEvents.next - 1;
  }

  get maxZswapEventId(): number {
    return this.#zswapEvents.next - 1;
  }

  /** The highest contract event id ever indexed (0: none). */
  get maxContractEventId(): number {
    return this.#contractEvents.next - 1;
  }

  /** Retained blocks from `height` on, oldest first (at most `limit`). */
  retainedBlocksFrom(height: number, limit: number): BlockRecord[] {
    const from = Math.max(height, this.#blocks.base) - this.#blocks.base;
    return this.#blocks.items.slice(from, from + limit);
  }

  /** The first retained height whose block is at or after `timestampMs` (timestamps strictly increase). */
  firstRetainedHeightFrom(timestampMs: number): number {
    const blocks = this.#blocks.items;
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((blocks[mid] as BlockRecord).timestamp < timestampMs) lo = mid + 1;
      else hi = mid;
    }
    return this.#blocks.base + lo;
  }

  blockByHash(hash: string): BlockRecord | undefined {
    const lower = hash.toLowerCase();
    const height = this.#blockByHash.get(lower);
    if (height !== undefined) return this.#blocks.at(height);
    return this.#genesis?.hash === lower ? this.#genesis : undefined;
  }

  transactionsByHash(hash: string): TransactionRecord[] {
    return (this.#txByHash.get(hash.toLowerCase()) ?? []).map((id) => this.#transactions.at(id) as TransactionRecord);
  }

  transactionsByIdentifier(identifier: string): TransactionRecord[] {
    return (this.#txByIdentifier.get(identifier.toLowerCase()) ?? []).map((id) => this.#transactions.at(id) as TransactionRecord);
  }

  /** Ids of the retained transactions that created or spent a UTXO of `owner` (64-hex), ascending. */
  transactionIdsOfAddress(owner: string): readonly number[] {
    return this.#txByAddress.get(owner) ?? [];
  }

  utxo(key: string): UtxoRecord | undefined {
    return this.#utxos.get(key);
  }

  /** Ids of the retained actions on `address`, ascending. */
  contractActionIds(address: string): readonly number[] {
    return this.#actionsByAddress.get(address.toLowerCase()) ?? [];
  }

  /** Ids of the retained contract events of `address`, ascending. */
  contractEventIds(address: string): readonly number[] {
    return this.#eventsByAddress.get(address.toLowerCase()) ?? [];
  }

  sizes(): StoreSizes {
    let addressEntries = 0;
    for (const list of this.#txByAddress.values()) addressEntries += list.length;
    return {
      blocks: this.#blocks.items.length,
      transactions: this.#transactions.items.length,
      dustEvents: this.#dustEvents.items.length,
      zswapEvents: this.#zswapEvents.items.length,
      contractActions: this.#contractActions.items.length,
      contractEvents: this.#contractEvents.items.length,
      utxos: this.#utxos.size,
      keptForReferences: this.#kept.size,
      blockHashes: this.#blockByHash.size,
      transactionHashes: this.#txByHash.size,
      identifiers: this.#txByIdentifier.size,
      addresses: this.#txByAddress.size,
      addressEntries,
      contractAddresses: this.#actionsByAddress.size,
      contractEventAddresses: this.#eventsByAddress.size,
    };
  }
}
