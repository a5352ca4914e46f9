import t from 'tap';
import { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';
import { tableWith } from '../../../fixtures/dust/table.js';

const DEADLINE = 1_700_000_300_000;

t.test('reserves the smallest FREE UTXO whose value covers the fee', async (t) => {
  const table = tableWith([500n, 100n, 300n, 200n, 1_000n]);
  // add: EMPTY (generation 0) → FREE (1); reserve: FREE → RESERVED (2).
  t.strictSame(table.reserve(250n, DEADLINE), { slot: 2, generation: 2, value: 300n, deadline: DEADLINE });
  t.equal(table.reserve(250n, DEADLINE)?.slot, 0, 'the best fit is taken: next smallest covering is 500');
  t.equal(table.reserve(250n, DEADLINE)?.slot, 4);
  t.equal(table.reserve(250n, DEADLINE), null, 'nothing left covers 250');
  t.equal(table.reserve(200n, DEADLINE)?.slot, 3, 'an exact fit covers');
  t.equal(table.reserve(0n, DEADLINE)?.slot, 1, 'a zero fee takes the smallest UTXO');
  t.strictSame(table.counts(), { free: 0, reserved: 5, spent: 0, total: 5 });
});

t.test('equal values: the lowest slot first', async (t) => {
  const table = tableWith([700n, 300n, 300n, 300n]);
  t.strictSame(
    [1, 2, 3, 0].map(() => table.reserve(300n, DEADLINE)?.slot),
    [1, 2, 3, 0],
  );
});

t.test('null, and nothing changed, when no FREE UTXO covers the fee', async (t) => {
  const table = tableWith([10n, 20n, 30n]);
  t.equal(table.reserve(31n, DEADLINE), null);
  t.strictSame(table.counts(), { free: 3, reserved: 0, spent: 0, total: 3 });
  t.equal(DustAllocatorTable.create(4).reserve(1n, DEADLINE), null, 'an empty table has nothing to reserve');
});

t.test('64-bit values compare exactly across both halves', async (t) => {
  const max = 2n ** 64n - 1n;
  const table = tableWith([2n ** 32n, 2n ** 32n - 1n, 2n ** 60n + 9n, 2n ** 60n + 7n, max, 2n ** 53n + 1n]);
  t.equal(table.reserve(2n ** 32n - 1n, DEADLINE)?.value, 2n ** 32n - 1n, 'low half above 2^31 is unsigned');
  t.equal(table.reserve(2n ** 32n - 1n, DEADLINE)?.value, 2n ** 32n, 'a larger high half covers a larger low half');
  t.strictSame(table.reserve(2n ** 60n + 8n, DEADLINE), { slot: 2, generation: 2, value: 2n ** 60n + 9n, deadline: DEADLINE });
  t.equal(table.reserve(2n ** 60n + 10n, DEADLINE)?.value, max, 'the largest 64-bit value round-trips');
  t.equal(table.reserve(2n ** 53n + 2n, DEADLINE)?.value, 2n ** 60n + 7n, 'fees above 2^53 are exact too');
  t.equal(table.reserve(1n, DEADLINE)?.value, 2n ** 53n + 1n);
  t.equal(table.totalValue(), 2n ** 32n + (2n ** 32n - 1n) + 2n ** 61n + 16n + max + 2n ** 53n + 1n);
});

t.test('rejects a fee or a deadline it cannot honour', async (t) => {
  const table = tableWith([10n]);
  t.throws(() => table.reserve(-1n, DEADLINE), new RangeError('fee must be from 0 to 2^64 - 1 SPECK, got -1'));
  t.throws(() => table.reserve(2n ** 64n, DEADLINE), new RangeError('fee must be from 0 to 2^64 - 1 SPECK, got 18446744073709551616'));
  t.throws(() => table.reserve(5 as unknown as bigint, DEADLINE), new TypeError('fee must be a bigint (SPECK), got number'));
  t.throws(() => table.reserve(1n, 1.5), new RangeError('deadline must be a non-negative integer (ms since the epoch), got 1.5'));
  t.throws(() => table.reserve(1n, -1), new RangeError('deadline must be a non-negative integer (ms since the epoch), got -1'));
  t.strictSame(table.counts(), { free: 1, reserved: 0, spent: 0, total: 1 });
});
