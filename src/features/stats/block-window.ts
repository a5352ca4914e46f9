/**
 * The ring of recent blocks (with their transactions) one network's statistics derive from:
 * kept sorted by height, bounded, tolerant of blocks arriving out of order (backfill runs
 * newest-first while the subscription appends) and of a chain that is replaced under it
 * (a restarted devnet, a reset testnet).
 */
import type { RingBlock } from './upstream-types.js';

type PutOutcome = 'added' | 'same' | 'replaced' | 'dropped';

export class BlockWindow {
  private readonly blocks: RingBlock[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError('a block window holds at least 2 blocks');
  }

  get size(): number {
    return this.blocks.length;
  }

  get tip(): RingBlock | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  get oldest(): RingBlock | undefined {
    return this.blocks[0];
  }

  /** Oldest first; do not mutate. */
  get all(): readonly RingBlock[] {
    return this.blocks;
  }

  at(height: number): RingBlock | undefined {
    const i = this.indexOf(height);
    return i >= 0 ? this.blocks[i] : undefined;
  }

  /**
   * Insert a block. A different block at a known height replaces it and drops everything above
   * it, which descended from the replaced block. A block older than a full window is dropped.
   */
  put(block: RingBlock): PutOutcome {
    const i = this.indexOf(block.height);
    if (i >= 0) {
      if (this.blocks[i]!.hash === block.hash) return 'same';
      this.blocks.splice(i, this.blocks.length - i, block);
      return 'replaced';
    }
    const at = -i - 1;
    if (at === 0 && this.blocks.length >= this.capacity) return 'dropped';
    this.blocks.splice(at, 0, block);
    if (this.blocks.length > this.capacity) this.blocks.shift();
    return 'added';
  }

  clear(): void {
    this.blocks.length = 0;
  }

  /** Heights from `floor` up that the window should hold below `tipHeight` but does not, newest first. */
  missingBelow(tipHeight: number, floor = 0): number[] {
    const lowest = Math.max(floor, tipHeight - this.capacity + 1);
    const out: number[] = [];
    let j = this.blocks.length - 1;
    for (let h = tipHeight - 1; h >= lowest; h--) {
      while (j >= 0 && this.blocks[j]!.height > h) j--;
      if (j < 0 || this.blocks[j]!.height !== h) out.push(h);
    }
    return out;
  }

  /** Binary search: the index of `height`, or `-(insertion point) - 1`. */
  private indexOf(height: number): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const h = this.blocks[mid]!.height;
      if (h === height) return mid;
      if (h < height) lo = mid + 1;
      else hi = mid - 1;
    }
    return -lo - 1;
  }
}
