import t from 'tap';
import { marginBlocks } from '../../../../src/features/sponsorship/common/fee-margin.js';
import { feeIntentTtl } from '../../../../src/features/sponsorship/reservations/reservations.js';
import { SharedSnapshot } from '../../../../src/features/sponsorship/allocator/shared-snapshot.js';

t.test('the margin counts every block until the TTL and since the prices were confirmed, plus the extra ones', async (t) => {
  t.equal(marginBlocks(60_000, 0, 6_000, 1), 11, '60 s at 6 s blocks: 10 blocks + 1');
  t.equal(marginBlocks(61_000, 0, 6_000, 1), 12, 'a started block counts whole');
  t.equal(marginBlocks(60_000, 30_000, 6_000, 1), 16, 'prices confirmed 30 s ago: 5 more blocks may have moved them');
  t.equal(marginBlocks(-5_000, -1_000, 6_000, 2), 2, 'negative spans count nothing: only the extra blocks');
  t.equal(marginBlocks(10_000, 0, 1_000, 0), 10, '1 s blocks');
  t.throws(() => marginBlocks(0, 0, 0, 1), RangeError);
});

t.test("the fee intent lives dust.feeTtlMs, never past the reservation's safety edge", async (t) => {
  const reservedAt = Date.parse('2026-11-24T12:00:00.400Z');
  t.equal(feeIntentTtl(reservedAt, 300_000, 60_000, 60_000).toISOString(), '2026-11-24T12:01:00.000Z', 'a minute, in whole seconds');
  t.equal(feeIntentTtl(reservedAt, 300_000, 60_000, 10 * 60_000).toISOString(), '2026-11-24T12:04:00.000Z', 'a longer life is cut at reclaim − safety');
  t.equal(feeIntentTtl(reservedAt, 300_000, 60_000).toISOString(), '2026-11-24T12:04:00.000Z', 'no life given: reclaim − safety');
});

t.test('a confirmation tells readers the snapshot still holds without a new version', async (t) => {
  const s = SharedSnapshot.create(1024);
  s.publish(new Uint8Array([1, 2, 3]));
  const version = s.version;
  t.equal(s.confirmedAt, 0);
  s.confirm(Date.parse('2026-11-24T12:00:05.900Z'));
  t.equal(s.confirmedAt, Date.parse('2026-11-24T12:00:05Z'), 'whole seconds');
  t.equal(s.version, version, 'readers do not decode again');
  t.equal(new SharedSnapshot(s.buffer).confirmedAt, s.confirmedAt, 'seen through another view of the memory');
});
