import t from 'tap';
import { tableWith } from '../../../fixtures/dust/table.js';

const DEADLINE = 1_700_000_300_000;

t.test('a release succeeds once, for the exact reservation', async (t) => {
  const table = tableWith([100n]);
  const first = table.reserve(10n, DEADLINE);
  if (first === null) throw new Error('the only UTXO covers the fee');
  t.ok(table.isLive(first));
  t.ok(table.release(first));
  t.notOk(table.isLive(first));
  t.notOk(table.release(first), 'a second release of the same reservation is refused');
  t.strictSame(table.counts(), { free: 1, reserved: 0, spent: 0, total: 1 });
});

t.test('ABA: a stale release cannot free the next holder of the same slot', async (t) => {
  const table = tableWith([100n]);
  const stale = table.reserve(10n, DEADLINE);
  if (stale === null) throw new Error('the only UTXO covers the fee');
  t.equal(table.reclaimExpired(DEADLINE), 1, 'the reservation expires and is reclaimed');
  const current = table.reserve(10n, DEADLINE + 1);
  t.equal(current?.slot, stale.slot, 'the same UTXO is reserved again');
  t.not(current?.generation, stale.generation);
  t.notOk(table.release(stale), 'the late release of the reclaimed reservation is a no-op');
  t.notOk(table.confirm(stale), 'so is a late confirmation');
  t.ok(current !== null && table.isLive(current), 'the current holder keeps the UTXO');
  t.strictSame(table.counts(), { free: 0, reserved: 1, spent: 0, total: 1 });
});

t.test('reclaimExpired reclaims only published deadlines that are due', async (t) => {
  const table = tableWith([100n, 200n, 300n]);
  const early = table.reserve(100n, 1_000);
  const late = table.reserve(200n, 2_000);
  t.equal(table.reclaimExpired(999), 0, 'never before the deadline');
  t.equal(table.reclaimExpired(1_000), 1, 'at the deadline');
  t.ok(early !== null && !table.isLive(early));
  t.ok(late !== null && table.isLive(late));
  t.equal(table.reclaimExpired(10_000), 1);
  t.strictSame(table.counts(), { free: 3, reserved: 0, spent: 0, total: 3 });
});

t.test('release and confirm refuse references the table never issued', async (t) => {
  const table = tableWith([100n]);
  const live = table.reserve(1n, DEADLINE);
  if (live === null) throw new Error('the only UTXO covers the fee');
  for (const generation of [live.generation + 1, -1, 1.5, 2 ** 30, Number.NaN]) {
    t.notOk(table.release({ slot: live.slot, generation }), `generation ${generation}`);
  }
  t.throws(() => table.release({ slot: 1, generation: live.generation }), new RangeError('slot must be an integer from 0 to 0, got 1'));
  t.throws(() => table.confirm({ slot: -1, generation: 0 }), new RangeError('slot must be an integer from 0 to 0, got -1'));
  t.ok(table.isLive(live), 'none of that touched the live reservation');
});
