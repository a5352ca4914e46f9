/**
 * Which DUST reservation each in-flight balancing task holds, in shared memory. A worker writes
 * the slot and generation the moment it reserves and clears them when it releases; the main
 * thread reads them when a task ends without an answer. That is how a client abort (piscina
 * terminates the worker mid-proof) or a worker crash still releases the UTXO at once instead of
 * leaving it to the 5-minute reclaim.
 */
const NONE = -1;
const WORDS_PER_ENTRY = 2;
const SLOT = 0;
const GENERATION = 1;

export class InFlightReservations {
  private readonly words: Int32Array;
  private readonly free: number[] = [];

  constructor(readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer);
  }

  /** Main thread: a registry for `entries` concurrent tasks. */
  static create(entries: number): InFlightReservations {
    const r = new InFlightReservations(new SharedArrayBuffer(entries * WORDS_PER_ENTRY * Int32Array.BYTES_PER_ELEMENT));
    r.words.fill(NONE);
    for (let i = entries - 1; i >= 0; i--) r.free.push(i);
    return r;
  }

  /** Main thread: an entry for a new task, or undefined when every entry is taken. */
  acquire(): number | undefined {
    const entry = this.free.pop();
    if (entry !== undefined) this.clear(entry);
    return entry;
  }

  /** Main thread: the task ended. Returns what it still held, if anything. */
  finish(entry: number): { slot: number; generation: number } | undefined {
    const held = this.read(entry);
    this.clear(entry);
    this.free.push(entry);
    return held;
  }

  /** Any thread (the worker): record or clear the reservation this task holds. */
  hold(entry: number, slot: number, generation: number): void {
    Atomics.store(this.words, entry * WORDS_PER_ENTRY + GENERATION, generation);
    Atomics.store(this.words, entry * WORDS_PER_ENTRY + SLOT, slot);
  }

  clear(entry: number): void {
    Atomics.store(this.words, entry * WORDS_PER_ENTRY + SLOT, NONE);
  }

  read(entry: number): { slot: number; generation: number } | undefined {
    const slot = Atomics.load(this.words, entry * WORDS_PER_ENTRY + SLOT);
    if (slot === NONE) return undefined;
    return { slot, generation: Atomics.load(this.words, entry * WORDS_PER_ENTRY + GENERATION) };
  }
}
