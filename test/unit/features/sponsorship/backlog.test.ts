import t from 'tap';
import { MAX_FEE_TTL_BLOCKS, QUEUE_SLACK_BLOCKS, SponsorBacklog, feeTtlBlocks } from '../../../../src/features/sponsorship/backlog.js';
import { FEE_TTL_BLOCKS } from '../../../../src/features/sponsorship/fee-margin.js';

t.test('a fee intent outlives the queue of the server\'s own unlanded transactions', async (t) => {
  t.equal(feeTtlBlocks(0), FEE_TTL_BLOCKS, 'no queue: the default life');
  t.equal(feeTtlBlocks(2.5), FEE_TTL_BLOCKS, 'a short queue fits in the default life');
  t.equal(feeTtlBlocks(7.1), 8 + QUEUE_SLACK_BLOCKS, '150 transfers at 21 a block: 8 blocks of queue, its own block and one more');
  t.equal(feeTtlBlocks(40), MAX_FEE_TTL_BLOCKS, 'capped');
});

t.test('the backlog in blocks follows the measured share of a block', async (t) => {
  const b = new SponsorBacklog();
  t.equal(b.blocks(21), 1, 'until measured: 21 transfers a block');
  for (let i = 0; i < 200; i++) b.record(0.1);
  t.ok(Math.abs(b.blocks(10) - 1) < 1e-6, 'after many answers of a tenth of a block each: 10 fill one block');
  for (const bad of [undefined, 0, -1, 2, Number.NaN]) b.record(bad);
  t.ok(Math.abs(b.blocks(10) - 1) < 1e-6, 'unmeasured or impossible shares are ignored');
  t.equal(b.blocks(-3), 0);
});
