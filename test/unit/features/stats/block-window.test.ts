import t from 'tap';
import { BlockWindow } from '../../../../src/features/stats/block-window.js';
import type { RingBlock } from '../../../../src/features/stats/upstream-types.js';

const blk = (height: number, hash = `h${height}`): RingBlock => ({
  height,
  hash,
  timestamp: height * 6000,
  protocolVersion: 1,
  author: null,
  transactions: [],
});
const heights = (w: BlockWindow): number[] => w.all.map((b) => b.height);

t.test('keeps blocks sorted whatever the arrival order, bounded by capacity', async (t) => {
  const w = new BlockWindow(4);
  t.equal(w.put(blk(10)), 'added');
  t.equal(w.put(blk(8)), 'added');
  t.equal(w.put(blk(9)), 'added');
  t.equal(w.put(blk(9)), 'same');
  t.strictSame(heights(w), [8, 9, 10]);
  t.equal(w.put(blk(11)), 'added');
  t.equal(w.put(blk(12)), 'added');
  t.strictSame(heights(w), [9, 10, 11, 12], 'the oldest falls out');
  t.equal(w.put(blk(5)), 'dropped', 'older than a full window');
  t.equal(w.tip?.height, 12);
  t.equal(w.oldest?.height, 9);
  t.equal(w.at(11)?.hash, 'h11');
  t.equal(w.at(7), undefined);
});

t.test('a different block at a known height replaces it and everything above', async (t) => {
  const w = new BlockWindow(10);
  for (let h = 0; h < 5; h++) w.put(blk(h));
  t.equal(w.put(blk(2, 'other')), 'replaced');
  t.strictSame(heights(w), [0, 1, 2]);
  t.equal(w.tip?.hash, 'other');
});

t.test('missingBelow lists the holes under a tip, newest first, within capacity', async (t) => {
  const w = new BlockWindow(6);
  t.strictSame(w.missingBelow(3), [2, 1, 0], 'empty window, short chain');
  w.put(blk(20));
  w.put(blk(17));
  t.strictSame(w.missingBelow(20), [19, 18, 16, 15]);
  t.strictSame(new BlockWindow(3).missingBelow(100), [99, 98]);
  w.clear();
  t.equal(w.size, 0);
  t.throws(() => new BlockWindow(1), RangeError);
});

t.test('missingBelow stops at a floor (heights known not to exist)', async (t) => {
  const w = new BlockWindow(10);
  w.put(blk(5));
  t.strictSame(w.missingBelow(5, 2), [4, 3, 2]);
});
