// Records older than the indexer store's retained history that a held record still refers to
// through a non-null field (indexer-store.ts, header), with the reference counts that decide how
// long each stays: a transaction while a held UTXO record it created or a kept deploy it carries
// does, a deploy while a retained call of its contract does, a block while a kept transaction of
// it does.
import type { BlockRecord, ContractActionRecord, TransactionRecord } from './indexer-records.js';

function bump<K>(map: Map<K, number>, key: K, by: number): number {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
  return n;
}

export class KeptRecords {
  readonly #transactions = new Map<number, TransactionRecord>();
  readonly #actions = new Map<number, ContractActionRecord>();
  readonly #blocks = new Map<number, BlockRecord>();
  /** Per transaction: held UTXO records it created, plus kept deploys it carries. */
  readonly #transactionRefs = new Map<number, number>();
  /** Per deploy: retained calls of its contract. */
  readonly #deployRefs = new Map<number, number>();
  /** Per height: kept transactions of that block. */
  readonly #blockRefs = new Map<number, number>();

  transaction(id: number): TransactionRecord | undefined {
    return this.#transactions.get(id);
  }

  contractAction(id: number): ContractActionRecord | undefined {
    return this.#actions.get(id);
  }

  block(height: number): BlockRecord | undefined {
    return this.#blocks.get(height);
  }

  /** Records kept, of every kind. */
  get size(): number {
    return this.#transactions.size + this.#actions.size + this.#blocks.size;
  }

  /** A held UTXO record now refers to the transaction `id` that created it. */
  referTransaction(id: number): void {
    bump(this.#transactionRefs, id, 1);
  }

  /** A retained call now refers to its contract's deploy `id`. */
  referDeploy(id: number): void {
    bump(this.#deployRefs, id, 1);
  }

  /** A retained call of the deploy `id` left the retained history. */
  unreferDeploy(id: number): void {
    if (bump(this.#deployRefs, id, -1) === 0) this.#releaseDeploy(id);
  }

  /** A held UTXO record created by the transaction `id` is gone. */
  unreferTransaction(id: number): void {
    if (bump(this.#transactionRefs, id, -1) > 0) return;
    const tx = this.#transactions.get(id);
    if (!tx) return;
    this.#transactions.delete(id);
    if (bump(this.#blockRefs, tx.blockHeight, -1) === 0) this.#blocks.delete(tx.blockHeight);
  }

  /** The deploy `id` leaves the retained history: kept, with its transaction, while a retained call refers to it. */
  evictDeploy(id: number, action: ContractActionRecord, transactionId: number): void {
    if (!this.#deployRefs.has(id)) return;
    this.#actions.set(id, action);
    bump(this.#transactionRefs, transactionId, 1);
  }

  /** The transaction `id` leaves the retained history: kept, with its block, while something refers to it. */
  evictTransaction(id: number, tx: TransactionRecord, height: number): void {
    if (!this.#transactionRefs.has(id)) return;
    this.#transactions.set(id, tx);
    bump(this.#blockRefs, height, 1);
  }

  /** The block leaves the retained history: kept while a kept transaction of it is. */
  evictBlock(block: BlockRecord): void {
    if (this.#blockRefs.has(block.height)) this.#blocks.set(block.height, block);
  }

  #releaseDeploy(id: number): void {
    const deploy = this.#actions.get(id);
    if (!deploy) return;
    this.#actions.delete(id);
    this.unreferTransaction(deploy.transactionId);
  }
}
