import t from 'tap';
import { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';
import { BYTES_PER_WORD, HEADER_VERSION, LAYOUT_VERSION, SLOT_WORDS, tableWords } from '../../../../src/features/sponsorship/allocator/allocator-layout.js';
import { tableWith } from '../../../fixtures/dust/table.js';

t.test('fromShared sees the same table through the same buffer', async (t) => {
  const owner = tableWith([100n, 200n], 4);
  const other = DustAllocatorTable.fromShared(owner.buffer);
  t.equal(other.capacity, 4);
  const held = other.reserve(150n, 1_000);
  t.equal(held?.slot, 1);
  t.strictSame(owner.counts(), { free: 1, reserved: 1, spent: 0, total: 2 });
  t.ok(held !== null && owner.release(held), 'a reservation made through one view is released through the other');
});

t.test('fromShared refuses buffers that are not a table of this layout', async (t) => {
  const message = (text: string) => new TypeError(`DustAllocatorTable.fromShared: ${text}`);
  t.throws(
    () => DustAllocatorTable.fromShared(new SharedArrayBuffer(8)),
    new TypeError('DustAllocatorTable.fromShared needs the SharedArrayBuffer of a DustAllocatorTable'),
  );
  t.throws(
    () => DustAllocatorTable.fromShared(new ArrayBuffer(4096) as unknown as SharedArrayBuffer),
    new TypeError('DustAllocatorTable.fromShared needs the SharedArrayBuffer of a DustAllocatorTable'),
  );
  t.throws(() => DustAllocatorTable.fromShared(new SharedArrayBuffer(tableWords(2) * BYTES_PER_WORD)), message('the buffer is not a DUST allocator table'));
  const table = DustAllocatorTable.create(2);
  const words = new Int32Array(table.buffer);
  words[HEADER_VERSION] = LAYOUT_VERSION + 1;
  t.throws(() => DustAllocatorTable.fromShared(table.buffer), message(`table layout version ${LAYOUT_VERSION + 1}, this code reads ${LAYOUT_VERSION}`));
  words[HEADER_VERSION] = LAYOUT_VERSION;
  const bigger = new SharedArrayBuffer(table.buffer.byteLength + SLOT_WORDS * BYTES_PER_WORD);
  new Int32Array(bigger).set(words);
  t.throws(() => DustAllocatorTable.fromShared(bigger), message('buffer size does not match the capacity in its header'));
});

t.test('slotEntry maps a slot back to the caller’s UTXO identity', async (t) => {
  const table = DustAllocatorTable.create(3);
  t.equal(table.add({ walletIndex: 2, key: 2n ** 64n - 1n, value: 5n }), 0);
  t.equal(table.add({ walletIndex: 2 ** 31 - 1, key: Number.MAX_SAFE_INTEGER, value: 7n }), 1);
  t.strictSame(table.slotEntry(0), { slot: 0, state: 'free', generation: 1, walletIndex: 2, key: 2n ** 64n - 1n, value: 5n, deadline: null });
  const held = table.reserve(6n, 1_700_000_000_123);
  t.strictSame(table.slotEntry(1), {
    slot: 1,
    state: 'reserved',
    generation: 2,
    walletIndex: 2 ** 31 - 1,
    key: BigInt(Number.MAX_SAFE_INTEGER),
    value: 7n,
    deadline: 1_700_000_000_123,
  });
  t.ok(held !== null && table.confirm(held));
  t.match(table.slotEntry(1), { state: 'spent', deadline: null });
  t.equal(table.slotEntry(2), null, 'never used');
  t.throws(() => table.slotEntry(3), new RangeError('slot must be an integer from 0 to 2, got 3'));
});

t.test('snapshot for /health is JSON-safe and adds up', async (t) => {
  const table = tableWith([10n, 2n ** 63n, 30n, 40n], 8);
  table.reserve(25n, 5_000);
  table.reserve(35n, 4_000);
  table.markSpent(0);
  const snapshot = table.snapshot();
  t.strictSame(snapshot, {
    capacity: 8,
    slotsInUse: 4,
    free: 1,
    reserved: 2,
    spent: 1,
    total: 4,
    totalValue: String(2n ** 63n + 70n),
    freeValue: String(2n ** 63n),
    largestFreeValue: String(2n ** 63n),
    nextDeadline: 4_000,
  });
  t.equal(JSON.parse(JSON.stringify(snapshot)).totalValue, String(2n ** 63n + 70n));
  t.equal(table.totalValue(), 2n ** 63n + 70n);
});

t.test('updateValue refreshes FREE UTXOs only', async (t) => {
  const table = tableWith([100n, 200n]);
  t.ok(table.updateValue(0, 300n));
  t.equal(table.reserve(250n, 1)?.slot, 0, 'the new value takes part in best fit at once');
  t.notOk(table.updateValue(0, 1n), 'a reserved UTXO keeps the value its holder saw');
  t.ok(table.markSpent(1));
  t.notOk(table.updateValue(1, 1n));
  t.equal(table.totalValue(), 300n);
  t.throws(() => table.updateValue(0, -1n), new RangeError('value must be a bigint from 0 to 2^64 - 1 SPECK, got -1'));
});

t.test('add and create check their input', async (t) => {
  const table = DustAllocatorTable.create(2);
  t.throws(() => table.add({ walletIndex: -1, key: 0, value: 1n }), new RangeError('walletIndex must be an integer from 0 to 2147483647, got -1'));
  t.throws(() => table.add({ walletIndex: 0, key: 1.5, value: 1n }), new RangeError('key must be a non-negative safe integer or a bigint below 2^64, got 1.5'));
  t.throws(
    () => table.add({ walletIndex: 0, key: 2n ** 64n, value: 1n }),
    new RangeError('key must be a non-negative safe integer or a bigint below 2^64, got 18446744073709551616'),
  );
  t.throws(
    () => table.add({ walletIndex: 0, key: 0, value: 2n ** 64n }),
    new RangeError('value must be a bigint from 0 to 2^64 - 1 SPECK, got 18446744073709551616'),
  );
  t.strictSame(table.counts(), { free: 0, reserved: 0, spent: 0, total: 0 }, 'nothing was added');
  t.throws(() => DustAllocatorTable.create(0), new RangeError('DUST allocator capacity must be an integer from 1 to 1048576, got 0'));
});

t.test('releaseWithDeadline releases exactly the reservations published under that deadline', async (t) => {
  const table = DustAllocatorTable.create(8);
  for (let i = 0; i < 5; i++) table.add({ walletIndex: 0, key: i, value: 100n + BigInt(i) });
  const a = table.reserve(1n, 5_000)!;
  const b = table.reserve(1n, 5_000)!;
  const c = table.reserve(1n, 6_000)!;
  t.equal(table.releaseWithDeadline(4_999), 0, 'no such deadline: nothing');
  t.equal(table.releaseWithDeadline(5_000), 2, 'both under 5 000');
  t.notOk(table.isLive(a));
  t.notOk(table.isLive(b));
  t.ok(table.isLive(c), 'the other deadline stays');
  t.equal(table.releaseWithDeadline(5_000), 0, 'a second pass finds nothing');
  const spent = table.reserve(1n, 7_000)!;
  table.markSpent(spent.slot);
  t.equal(table.releaseWithDeadline(7_000), 0, 'a UTXO marked spent is never made free');
  t.equal(table.slotEntry(spent.slot)!.state, 'spent');
  t.same(table.counts(), { free: 3, reserved: 1, spent: 1, total: 5 });
});
