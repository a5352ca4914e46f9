// The async iterator behind every subscription: replay what the store already has, then wait for
// appended blocks. `pull` returns the items that became available since its previous call (it
// keeps its own cursor). `return()` — graphql-ws calls it when a client completes or disconnects —
// ends the feed at once, even while it is waiting for the next block.
import type { IndexerStore } from './indexer-store.js';

export class LiveFeed<T> implements AsyncIterableIterator<T> {
  readonly #store: IndexerStore;
  readonly #pull: () => T[];
  #queue: T[] = [];
  #next = 0;
  #done = false;
  readonly #stopped: Promise<void>;
  #stop!: () => void;

  constructor(store: IndexerStore, pull: () => T[]) {
    this.#store = store;
    this.#pull = pull;
    this.#stopped = new Promise<void>((resolve) => (this.#stop = resolve));
  }

  async next(): Promise<IteratorResult<T>> {
    while (!this.#done) {
      if (this.#next < this.#queue.length) return { value: this.#queue[this.#next++] as T, done: false };
      this.#queue = this.#pull();
      this.#next = 0;
      if (this.#queue.length > 0) continue;
      if (this.#store.closed) break;
      // Nothing can be appended between the pull above and this wait: both run on this thread.
      await Promise.race([this.#store.changed(), this.#stopped]);
    }
    this.#done = true;
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<T>> {
    this.#done = true;
    this.#stop();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
