import t from 'tap';
import { GatewayError } from '../../../../src/core/errors.js';
import {
  MAX_FEE_TTL_BLOCKS,
  QUEUE_SLACK_BLOCKS,
  SponsorBacklog,
  feeLifeAtReservation,
  feeTtlBlocks,
  lifeBlocks,
} from '../../../../src/features/sponsorship/admission/backlog.js';
import { FEE_TTL_BLOCKS } from '../../../../src/features/sponsorship/common/fee-margin.js';

t.test("a fee intent outlives the queue of the server's own unlanded transactions", async (t) => {
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

function refusal(f: () => void): GatewayError | undefined {
  try {
    f();
  } catch (e) {
    return e as GatewayError;
  }
  return undefined;
}

t.test('past the blocks a fee intent outlives, new answers are refused with the time the excess drains', async (t) => {
  const b = new SponsorBacklog();
  t.equal(lifeBlocks(0, 6_000), MAX_FEE_TTL_BLOCKS, 'by the queue: at most 12 blocks');
  t.equal(lifeBlocks(20_000, 1_000), 20, 'dust.feeTtlMs fixes it');
  t.equal(lifeBlocks(20_000, 6_000), 3, 'whole blocks only');
  const room = MAX_FEE_TTL_BLOCKS - QUEUE_SLACK_BLOCKS;
  // 21 transfers a block until measured: 210 fill the 10 blocks of room exactly, and still fit.
  t.doesNotThrow(() => b.admit('preview', 21 * room, MAX_FEE_TTL_BLOCKS, 6_000), 'a queue that fills the room exactly leaves the next answer its last block');
  const err = refusal(() => b.admit('preview', 21 * room + 1, MAX_FEE_TTL_BLOCKS, 6_000));
  t.ok(err instanceof GatewayError, 'one more is refused');
  const e = err!;
  t.equal(e.code, 'SPONSOR_BACKLOG_FULL');
  t.equal(e.status, 503);
  t.equal(e.headers?.['Retry-After'], '6', 'a block of excess at 6 s blocks');
  t.match(e.message, /211 sponsored transactions of preview have not landed yet, about 11 blocks of queue: a fee intent answered now lives 12 blocks/);
  t.equal(refusal(() => b.admit('preview', 21 * (room + 5), MAX_FEE_TTL_BLOCKS, 6_000))?.headers?.['Retry-After'], '30', 'five blocks of excess: 30 s');
  t.throws(() => b.admit('preview', 43, 3, 1_000), { code: 'SPONSOR_BACKLOG_FULL' }, 'a short fixed life leaves one block of room: 43 transfers fill 3');
  t.doesNotThrow(() => b.admit('preview', 21, 3, 1_000));
});

t.test('it counts how answers ended', async (t) => {
  const b = new SponsorBacklog();
  b.outcome('landed');
  b.outcome('landed');
  b.outcome('expired');
  t.same({ landed: b.landed, expired: b.expired }, { landed: 2, expired: 1 });
});

t.test("a balance task decides its fee intent's life from the queue as it reserves", async (t) => {
  const q = { network: 'preview', share: 1 / 21, refuse: true, fixedTtlMs: 0 };
  t.equal(feeLifeAtReservation(q, 0, 6_000), 5 * 6_000, 'an empty queue: the default 5 blocks');
  t.equal(feeLifeAtReservation(q, 150, 6_000), (8 + QUEUE_SLACK_BLOCKS) * 6_000, '150 reserved before it: 8 blocks of queue, its own block and one more');
  t.equal(feeLifeAtReservation(q, 210, 6_000), MAX_FEE_TTL_BLOCKS * 6_000, '210: the queue fills the room exactly');
  t.equal(refusal(() => feeLifeAtReservation(q, 211, 6_000))?.code, 'SPONSOR_BACKLOG_FULL', 'one more is refused as it would reserve');
  t.equal(feeLifeAtReservation({ ...q, refuse: false }, 400, 6_000), MAX_FEE_TTL_BLOCKS * 6_000, "the server's own splits are not refused: the longest life");
  const fixed = { ...q, fixedTtlMs: 3_000 };
  t.equal(feeLifeAtReservation(fixed, 21, 1_000), 3_000, 'dust.feeTtlMs fixes the life');
  t.equal(refusal(() => feeLifeAtReservation(fixed, 22, 1_000))?.headers?.['Retry-After'], '1', 'and the room: one block at 1 s blocks');
});
