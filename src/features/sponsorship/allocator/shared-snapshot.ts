/**
 * One writer publishes a byte snapshot (the DUST wallets' serialized state and the ledger
 * parameters) to any number of reader threads through a SharedArrayBuffer, without locks:
 * a seqlock. The writer makes the sequence odd, writes, then makes it even again; a reader copies
 * the bytes between two reads of the same even sequence, else it retries. Readers never block
 * the writer, and a reader never sees a half-written snapshot. A reader that finds a write in
 * progress sleeps on the sequence word (`Atomics.wait`, woken by the writer's `Atomics.notify`)
 * instead of spinning: a writer thread preempted mid-write on a busy machine would otherwise use
 * up every retry within microseconds.
 */
import { randomInt } from 'node:crypto';

const SEQ = 0;
const LENGTH = 1;
/** Random, fixed at create: names the snapshot across threads, where each message that carries
 * the buffer hands the receiver a new SharedArrayBuffer object over the same memory. */
const IDENTITY = 2;
/** Unix seconds at which the writer last confirmed the published snapshot still holds (see `confirm`). */
const CONFIRMED = 3;
/**
 * The writer's current "era" tag (for the DUST wallets: the ledger era they are in), 0 until set.
 * Set on its own, ahead of any publish: readers learn of a change of era at once, even before the
 * new era has anything to publish (see `announceEra`).
 */
const ERA = 4;
const HEADER_WORDS = 5;
const HEADER_BYTES = HEADER_WORDS * Int32Array.BYTES_PER_ELEMENT;
/** A reader that keeps colliding with writes gives up; the writer publishes at block pace. */
const MAX_READ_ATTEMPTS = 1000;
/** Longest sleep per attempt while a write is in progress (the writer wakes readers when done). */
const WRITE_WAIT_MS = 1;

export class SharedSnapshot {
  private readonly header: Int32Array;
  private readonly bytes: Uint8Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.header = new Int32Array(buffer, 0, HEADER_WORDS);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  static create(capacityBytes: number): SharedSnapshot {
    const snapshot = new SharedSnapshot(new SharedArrayBuffer(HEADER_BYTES + capacityBytes));
    Atomics.store(snapshot.header, IDENTITY, randomInt(1, 2 ** 31 - 1));
    return snapshot;
  }

  /**
   * The same number in every thread for the same snapshot memory, so a reader can cache what it
   * decoded by (identity, version): object identity of the buffer does not survive postMessage.
   */
  get identity(): number {
    return Atomics.load(this.header, IDENTITY);
  }

  get capacity(): number {
    return this.bytes.length;
  }

  /** Bytes of the latest snapshot (0 before the first publish). */
  get length(): number {
    return Atomics.load(this.header, LENGTH);
  }

  /** Even, increasing with every publish; 0 until the first one. */
  get version(): number {
    return Atomics.load(this.header, SEQ) & ~1;
  }

  /** Single writer only. Throws if the snapshot does not fit (the capacity is a setting). */
  publish(data: Uint8Array): number {
    if (data.length > this.bytes.length) throw new RangeError(`snapshot of ${data.length} bytes exceeds the shared capacity of ${this.bytes.length} bytes`);
    const seq = Atomics.add(this.header, SEQ, 1) + 1; // odd: write in progress
    this.bytes.set(data, 0);
    Atomics.store(this.header, LENGTH, data.length);
    Atomics.store(this.header, SEQ, seq + 1); // even: published
    Atomics.notify(this.header, SEQ);
    return seq + 1;
  }

  /**
   * Single writer: the published snapshot was checked against its source at `atMs` and still
   * holds (for the DUST wallets: the tip's fee prices were read again and had not moved). Cheaper
   * than publishing the same bytes again, which would make every reader decode them again.
   */
  confirm(atMs: number): void {
    Atomics.store(this.header, CONFIRMED, Math.floor(atMs / 1000));
  }

  /**
   * Single writer: from now on the source is in era `era` (a positive integer). For the DUST
   * wallets it is set when the chain changes ledger era, before the old era's UTXOs are marked
   * spent, so a reader that finds no UTXO left can tell a switch from a drained pool at once,
   * without waiting for a message from the writer's thread.
   */
  announceEra(era: number): void {
    Atomics.store(this.header, ERA, era);
  }

  /** The era last announced, or undefined if none was. */
  get era(): number | undefined {
    return Atomics.load(this.header, ERA) || undefined;
  }

  /** When the writer last confirmed the snapshot (ms, whole seconds), 0 if never. */
  get confirmedAt(): number {
    return Atomics.load(this.header, CONFIRMED) * 1000;
  }

  /** A consistent copy of the latest snapshot, or undefined before the first publish. */
  read(): { version: number; data: Uint8Array } | undefined {
    for (let attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++) {
      const before = Atomics.load(this.header, SEQ);
      if (before === 0) return undefined;
      if (before & 1) {
        // A write is in progress: sleep until the sequence moves on (or a millisecond passes).
        Atomics.wait(this.header, SEQ, before, WRITE_WAIT_MS);
        continue;
      }
      const length = Atomics.load(this.header, LENGTH);
      const copy = this.bytes.slice(0, length);
      if (Atomics.load(this.header, SEQ) === before) return { version: before, data: copy };
    }
    throw new Error('shared snapshot: could not read a consistent copy');
  }
}
