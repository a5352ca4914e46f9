import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import t from 'tap';
import { startModuleWorker } from '../../../../packages/threads/src/worker-thread.js';
import { SYNC_ROUND, createSync, raise } from '../../../fixtures/dust/barrier.js';
import { RELEASE, START } from '../../../fixtures/dust/burst-protocol.js';
import type { BurstJob } from '../../../fixtures/dust/burst-protocol.js';
import { tableWith } from '../../../fixtures/dust/table.js';
import type { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';

// The pool keeper's reserve is kept by the reservation itself: reservations passing keepFree k,
// from many threads at once, never bring the FREE UTXOs below k; reservations passing none (the
// keeper's) take what is left. 66 UTXOs as on the devnet's genesis, a reserve of 8 as the keeper's.

const UTXOS = 66;
const KEEP = 8;
const REQUEST_THREADS = 4;

interface Burst {
  /** Per worker, the slots it got (-1 for null), in the order of `jobs`. */
  slots: number[][];
  release(): Promise<boolean[]>;
}

/** Starts one burst worker per job, lets them all reserve at the same signal, and waits for their slots. */
async function burst(t: { teardown(fn: () => unknown): void }, table: DustAllocatorTable, jobs: Array<Pick<BurstJob, 'count' | 'keepFree'>>): Promise<Burst> {
  const sync = createSync();
  const workers: Worker[] = jobs.map((job) =>
    startModuleWorker(new URL('../../../fixtures/dust/burst-worker', import.meta.url), import.meta.url, {
      workerData: { table: table.buffer, sync: sync.buffer as SharedArrayBuffer, fee: 500n, ...job } satisfies BurstJob,
    }),
  );
  t.teardown(() => Promise.all(workers.map((worker) => worker.terminate())));
  await Promise.all(workers.map((worker) => once(worker, 'message')));
  const reserved = workers.map((worker) => once(worker, 'message') as Promise<[number[]]>);
  raise(sync, SYNC_ROUND, START);
  const slots = (await Promise.all(reserved)).map(([s]) => s);
  return {
    slots,
    release: async () => {
      const released = workers.map((worker) => once(worker, 'message') as Promise<[boolean[]]>);
      raise(sync, SYNC_ROUND, RELEASE);
      return (await Promise.all(released)).flatMap(([r]) => r);
    },
  };
}

const granted = (slots: number[][]): number[] => slots.flat().filter((slot) => slot >= 0);

t.test('one thread: a reservation never takes one of the last keepFree free UTXOs; one without keepFree does', async (t) => {
  const table = tableWith(Array.from({ length: 10 }, (_, i) => 1_000n + BigInt(i)));
  const keep = { keepFree: 8 };
  t.ok(table.reserve(1n, 1, keep), '10 free: the first leaves 9');
  t.ok(table.reserve(1n, 1, keep), 'the second leaves 8');
  t.equal(table.reserve(1n, 1, keep), null, 'a third would leave 7');
  t.equal(table.freeTokens(), 8);
  const keeper = table.reserve(1n, 1);
  t.ok(keeper, 'without keepFree the reserve is taken');
  t.equal(table.reserve(1n, 1, { keepFree: 7 }), null, 'now 7 are free: keepFree 7 refuses too');
  t.ok(table.release(keeper!));
  t.ok(table.reserve(1n, 1, { keepFree: 7 }), 'back to 8: keepFree 7 takes one');
  t.equal(table.reserve(2_000n, 1), null, 'no UTXO covers the fee: null, and no token kept');
  t.equal(table.freeTokens(), 7);
  t.equal(table.counts().free, 7);
  // Every other way in and out of FREE keeps the header's count equal to the FREE slots.
  const entry = table.slotEntry(9)!;
  t.ok(table.reserveExact({ slot: 9, generation: entry.generation }, 5), 'reserveExact (journal restore) keeps no reserve');
  t.ok(table.markSpent(8) && table.recycle(8));
  t.ok(table.updateValue(7, 5n));
  t.equal(table.reclaimExpired(1), 3, 'the three reservations due at 1 come back');
  table.add({ walletIndex: 0, key: 99, value: 7n });
  t.equal(table.freeTokens(), table.counts().free);
  t.equal(table.counts().free, 9, '10 less the one restored; the spent one recycled and refilled');
  t.throws(() => table.reserve(1n, 1, { keepFree: -1 }), RangeError);
  t.throws(() => table.reserve(1n, 1, { keepFree: 1.5 }), RangeError);
});

t.test(
  `${REQUEST_THREADS} threads bursting 200 reservations with keepFree ${KEEP}` +
    ` against ${UTXOS}` +
    ` UTXOs take ${UTXOS - KEEP}` +
    `; the keeper then takes the last ${KEEP}`,
  async (t) => {
    const table = tableWith(Array.from({ length: UTXOS }, (_, i) => 1_000n + BigInt(i)));
    const requests = await burst(
      t,
      table,
      Array.from({ length: REQUEST_THREADS }, () => ({ count: 50, keepFree: KEEP })),
    );
    const taken = granted(requests.slots);
    t.equal(taken.length, UTXOS - KEEP, `requests got ${taken.length}: never one of the last ${KEEP}`);
    t.equal(new Set(taken).size, taken.length, 'each UTXO reserved once');
    t.strictSame(table.counts(), { free: KEEP, reserved: UTXOS - KEEP, spent: 0, total: UTXOS });
    t.equal(table.freeTokens(), KEEP, 'the free count in the header agrees with the table');

    // Requests and the keeper at once on what is left: the keeper gets all of it, the requests none.
    const mixed = await burst(t, table, [{ count: 20, keepFree: KEEP }, { count: 20 }, { count: 20, keepFree: KEEP }]);
    t.equal(granted([mixed.slots[0]!, mixed.slots[2]!]).length, 0, 'requests racing the keeper got none of the reserve');
    t.equal(granted([mixed.slots[1]!]).length, KEEP, `the keeper got all ${KEEP}, from 0 free for requests`);
    t.strictSame(table.counts(), { free: 0, reserved: UTXOS, spent: 0, total: UTXOS });
    t.equal(table.freeTokens(), 0);

    t.ok((await requests.release()).every(Boolean));
    t.ok((await mixed.release()).every(Boolean));
    t.strictSame(table.counts(), { free: UTXOS, reserved: 0, spent: 0, total: UTXOS });
    t.equal(table.freeTokens(), UTXOS);
  },
);

t.test('requests and the keeper bursting from a full table at once: requests never take the reserve', async (t) => {
  for (let run = 0; run < 3; run++) {
    const table = tableWith(Array.from({ length: UTXOS }, (_, i) => 1_000n + BigInt(i)));
    const jobs = [{ count: 40, keepFree: KEEP }, { count: 12 }, { count: 40, keepFree: KEEP }, { count: 40, keepFree: KEEP }];
    const b = await burst(t, table, jobs);
    const byRequests = granted([b.slots[0]!, b.slots[2]!, b.slots[3]!]).length;
    const byKeeper = granted([b.slots[1]!]).length;
    const free = table.counts().free;
    if (
      byRequests > UTXOS - KEEP ||
      free > KEEP ||
      byRequests + byKeeper + free !== UTXOS ||
      table.freeTokens() !== free ||
      new Set(granted(b.slots)).size !== byRequests + byKeeper
    ) {
      t.fail(`run ${run}: requests ${byRequests}, keeper ${byKeeper}, free ${free}, tokens ${table.freeTokens()}`);
    }
    await b.release();
  }
  t.pass('3 runs: requests ≤ 58, the requests stopped only at the reserve, every UTXO accounted for');
});

// The reserve counts value: UTXOs below its floor (decayed once their NIGHT was split) never stand
// in for it. Fees here: a request 500 (burst-worker.ts), a split 2^17, the floor 2 × that (the
// table keeps floors in steps of 2^16).
const SPLIT_FEE = 2n ** 17n;
const FLOOR = 2n * SPLIT_FEE;
const RICH = 4n * FLOOR;

t.test("decayed UTXOs do not stand in for the reserve: with the floor set, the keeper finds its splits' fees", async (t) => {
  // 12 decayed UTXOs too small for any fee, 12 worth a split.
  const values = [...Array.from({ length: 12 }, () => 100n), ...Array.from({ length: 12 }, (_, i) => RICH + BigInt(i))];
  const take = (table: DustAllocatorTable): number => {
    let n = 0;
    while (table.reserve(500n, 1, { keepFree: KEEP })) n++;
    return n;
  };
  const counting = tableWith(values);
  t.equal(take(counting), 12, 'without a floor the decayed 12 count as the reserve: requests take all 12 that could pay a split');
  t.equal(counting.reserve(SPLIT_FEE, 1), null, "and the keeper's split finds nothing to pay its fee with");

  const table = tableWith(values);
  table.setReserveFloor(FLOOR);
  t.equal(table.freeTokens(), 12, 'with the floor only the 12 that pay it count');
  t.equal(table.uncountedFree(), 12);
  t.equal(take(table), 12 - KEEP, `requests stop ${KEEP} short`);
  for (let i = 0; i < KEEP; i++) t.ok(table.reserve(SPLIT_FEE, 1), `split ${i + 1} of ${KEEP} pays its fee`);
  t.equal(table.reserve(SPLIT_FEE, 1), null, 'then none is left');
});

t.test('requests below the floor are served from the UTXOs below it, past the reserve', async (t) => {
  const table = tableWith([...Array.from({ length: 4 }, () => 1_000n), ...Array.from({ length: 10 }, () => RICH)]);
  table.setReserveFloor(FLOOR);
  t.equal(table.freeTokens(), 10);
  const got = Array.from({ length: 20 }, () => table.reserve(500n, 1, { keepFree: 10 }));
  t.equal(got.filter((r) => r?.value === 1_000n).length, 4, 'the 4 below the floor go to requests though only the reserve counts');
  t.equal(got.filter((r) => r !== null).length, 4, 'and nothing above it');
  t.equal(table.freeTokens(), 10);
});

t.test("the floor's recount: tokens follow it up and down, generations stay (a restored reservation still matches)", async (t) => {
  const table = tableWith([100n, 1_000n, 100_000n, 1_000_000n]);
  const entry = table.slotEntry(2)!;
  table.setReserveFloor(500_000n);
  t.equal(table.freeTokens(), 1);
  t.equal(table.reserveFloor(), 524_288n, 'rounded up to a multiple of 2^16');
  table.setReserveFloor(0n);
  t.equal(table.freeTokens(), 4);
  table.setReserveFloor(2n ** 64n - 1n);
  t.equal(table.freeTokens(), 0, 'a floor no value reaches');
  t.equal(table.slotEntry(2)!.generation, entry.generation, 'the recounts kept the generation');
  t.ok(table.reserveExact(entry, 1), 'reserveExact from a slot entry read before the recounts');
  const held = table.reserve(50n, 1)!;
  table.setReserveFloor(0n);
  t.equal(table.freeTokens(), 2, 'reserved slots are not counted');
  t.ok(table.release(held));
  t.equal(table.freeTokens(), 3, 'a released slot is counted against the floor of its release');
  t.throws(() => table.setReserveFloor(-1n), RangeError);
  t.throws(() => table.setReserveFloor(2n ** 64n), RangeError);
});

t.test(`${REQUEST_THREADS} threads bursting against a pool half below the floor: never one of the last ${KEEP} that pay it`, async (t) => {
  for (let run = 0; run < 3; run++) {
    // 33 below the floor (but above a request's fee), 33 above it.
    const table = tableWith(Array.from({ length: UTXOS }, (_, i) => (i % 2 === 0 ? 1_000n : RICH) + BigInt(i)));
    table.setReserveFloor(FLOOR);
    const b = await burst(
      t,
      table,
      Array.from({ length: REQUEST_THREADS }, () => ({ count: 50, keepFree: KEEP })),
    );
    // A recount at rest changes nothing.
    table.setReserveFloor(FLOOR);
    const taken = granted(b.slots);
    const counts = table.counts();
    if (
      taken.length !== UTXOS - KEEP ||
      new Set(taken).size !== taken.length ||
      counts.free !== KEEP ||
      table.freeTokens() !== KEEP ||
      table.uncountedFree() !== 0
    ) {
      t.fail(`run ${run}: requests ${taken.length}, free ${counts.free}, tokens ${table.freeTokens()}, below the floor ${table.uncountedFree()}`);
    }
    for (let i = 0; i < KEEP; i++) if (!table.reserve(SPLIT_FEE, 1)) t.fail(`run ${run}: split ${i + 1} found no UTXO`);
    await b.release();
    table.setReserveFloor(0n);
    if (table.freeTokens() !== UTXOS - KEEP) t.fail(`run ${run}: ${table.freeTokens()} tokens after the release`);
  }
  t.pass(`3 runs: requests took the 33 below the floor and ${33 - KEEP} above it, each once; the keeper's ${KEEP} splits each paid`);
});
