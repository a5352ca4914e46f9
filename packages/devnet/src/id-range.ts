// Ascending ids, as the indexer store holds them (indexer-store.ts): records in a range of
// consecutive ids that old ones leave from the front, and per-key lists of ids.

/** Records with consecutive ids `base`, `base + 1`, …; old ones leave from the front. */
export class IdRange<T> {
  base: number;
  readonly items: T[] = [];

  constructor(base: number) {
    this.base = base;
  }

  get next(): number {
    return this.base + this.items.length;
  }

  at(id: number): T | undefined {
    return id >= this.base ? this.items[id - this.base] : undefined;
  }

  push(id: number, item: T): void {
    if (id !== this.next) throw new Error(`record ${id} appended where ${this.next} was due`);
    this.items.push(item);
  }

  /** Drops every record up to and including `id`. */
  dropThrough(id: number): void {
    const n = id - this.base + 1;
    if (n <= 0) return;
    this.items.splice(0, n);
    this.base += n;
  }
}

export function pushTo<K>(map: Map<K, number[]>, key: K, id: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [id]);
  else if (list[list.length - 1] !== id) list.push(id);
}

/** Removes ids up to `lastId` from the front of `key`'s ascending list. */
export function trimFront<K>(map: Map<K, number[]>, key: K, lastId: number): void {
  const list = map.get(key);
  if (!list) return;
  let n = 0;
  while (n < list.length && (list[n] as number) <= lastId) n++;
  if (n === list.length) map.delete(key);
  else if (n > 0) list.splice(0, n);
}
