import t from 'tap';
import { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';
import {
  RESERVED,
  SLOT_CONTROL,
  SLOT_DEADLINE_GENERATION,
  controlGeneration,
  nextGeneration,
  packControl,
  slotBase,
} from '../../../../src/features/sponsorship/allocator/allocator-layout.js';
import { tableWith } from '../../../fixtures/dust/table.js';

const DEADLINE = 1_700_000_300_000;

t.test('markSpent wins over a live reservation', async (t) => {
  const table = tableWith([100n, 200n]);
  const held = table.reserve(150n, DEADLINE);
  if (held === null) throw new Error('200 covers 150');
  t.ok(table.markSpent(held.slot));
  t.notOk(table.release(held), 'the holder cannot put a spent UTXO back');
  t.notOk(table.confirm(held));
  t.equal(table.reclaimExpired(DEADLINE), 0, 'nor can the reclaim sweep');
  t.equal(table.reserve(150n, DEADLINE), null, 'a spent UTXO is never reserved again');
  t.strictSame(table.counts(), { free: 1, reserved: 0, spent: 1, total: 2 });
  t.equal(table.totalValue(), 100n, 'spent value no longer counts');
  t.notOk(table.markSpent(held.slot), 'already spent');
});

t.test('markSpent takes a FREE UTXO out of the pool', async (t) => {
  const table = tableWith([100n, 200n]);
  t.ok(table.markSpent(0));
  t.equal(table.reserve(50n, DEADLINE)?.slot, 1);
  t.strictSame(table.counts(), { free: 0, reserved: 1, spent: 1, total: 2 });
});

t.test('confirm: the holder saw its transaction spend the UTXO', async (t) => {
  const table = tableWith([100n]);
  const held = table.reserve(1n, DEADLINE);
  if (held === null) throw new Error('100 covers 1');
  t.ok(table.confirm(held));
  t.notOk(table.release(held));
  t.strictSame(table.counts(), { free: 0, reserved: 0, spent: 1, total: 1 });
});

t.test('recycle empties only SPENT slots, and add reuses them', async (t) => {
  const table = tableWith([100n, 200n]);
  t.notOk(table.recycle(0), 'a FREE slot is not recycled');
  t.ok(table.markSpent(0));
  t.ok(table.recycle(0));
  t.notOk(table.recycle(0), 'already empty');
  t.strictSame(table.counts(), { free: 1, reserved: 0, spent: 0, total: 1 });
  t.equal(table.slotEntry(0), null);
  t.equal(table.add({ walletIndex: 3, key: 9n, value: 50n }), 0, 'the emptied slot is reused before the full table grows');
  t.match(table.slotEntry(0), { state: 'free', walletIndex: 3, key: 9n, value: 50n });
  t.throws(
    () => table.add({ walletIndex: 0, key: 1, value: 1n }),
    new RangeError('DUST allocator table is full (2 slots): recycle spent slots or raise the capacity'),
  );
});

t.test('recycle waits for a reserver that markSpent overtook before it published its deadline', async (t) => {
  const table = tableWith([100n]);
  const words = new Int32Array(table.buffer);
  const base = slotBase(0);
  // Play a reserver paused right after its winning compareExchange, before its deadline stores.
  const free = Atomics.load(words, base + SLOT_CONTROL);
  const generation = nextGeneration(controlGeneration(free));
  t.equal(Atomics.compareExchange(words, base + SLOT_CONTROL, free, packControl(generation, RESERVED)), free);
  t.ok(table.markSpent(0));
  t.notOk(table.recycle(0), 'its deadline writes could still land on the next UTXO of the slot');
  t.equal(table.reclaimExpired(Number.MAX_SAFE_INTEGER), 0, 'a spent slot is never reclaimed');
  // The paused reserver resumes and publishes.
  Atomics.store(words, base + SLOT_DEADLINE_GENERATION, generation);
  t.ok(table.recycle(0));
  t.equal(table.add({ walletIndex: 0, key: 1, value: 7n }), 0);
});

t.test('an unpublished reservation is never reclaimed by the sweep', async (t) => {
  const table = DustAllocatorTable.create(1);
  table.add({ walletIndex: 0, key: 0, value: 100n });
  const words = new Int32Array(table.buffer);
  const base = slotBase(0);
  const free = Atomics.load(words, base + SLOT_CONTROL);
  Atomics.store(words, base + SLOT_CONTROL, packControl(nextGeneration(controlGeneration(free)), RESERVED));
  t.equal(table.reclaimExpired(Number.MAX_SAFE_INTEGER), 0);
  t.match(table.slotEntry(0), { state: 'reserved', deadline: null });
});
