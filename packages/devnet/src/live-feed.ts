// The async iterator behind every subscription: replay what the store already has, then wait for
// appended blocks. `pull` returns the items that became available since its previous call (it
// keeps its own cursor); when it throws (the client fell behind what the store holds), the feed
// ends with that error. `return()` — graphql-ws calls it when a client completes or disconnects —
// ends the feed at once, even while it is waiting for the next block.
import type { IndexerStore } from './indexer-store.js';

export class LiveFeed<T> implements AsyncIterableIterator<T> {
  readonly #store: IndexerStore;
  readonly #pull: () => T[];
  #queue: T[] = [];
  #next = 0;
  #done = false;
  /** Ends the current wait; set only while waiting. */
  #stopWaiting: (() => void) | undefined;

  constructor(store: IndexerStore, pull: () => T[]) {
    this.#store = store;
    this.#pull = pull;
  }

  async next(): Promise<IteratorResult<T>> {
    while (!this.#done) {
      if (this.#next < this.#queue.length) return { value: this.#queue[this.#next++] as T, done: false };
      try {
        this.#queue = this.#pull();
      } catch (err) {
        this.#done = true;
        throw err;
      }
      this.#next = 0;
      if (this.#queue.length > 0) continue;
      if (this.#store.closed) break;
      // Nothing can be appended between the pull above and this wait: both run on this thread.
      // One promise per wait, settled by the next block or by return(): racing a promise that
      // lives as long as the feed would add a reaction to it on every block, kept until the end.
      await new Promise<void>((resolve) => {
        this.#stopWaiting = resolve;
        void this.#store.changed().then(resolve);
      });
      this.#stopWaiting = undefined;
    }
    this.#done = true;
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<T>> {
    this.#done = true;
    this.#stopWaiting?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
