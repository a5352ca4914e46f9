import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import t from 'tap';
import { startModuleWorker } from '../../../../packages/threads/src/worker-thread.js';
import { SYNC_ROUND, createSync, raise } from '../../../fixtures/dust/barrier.js';
import { RELEASE, START } from '../../../fixtures/dust/burst-protocol.js';
import type { BurstJob } from '../../../fixtures/dust/burst-protocol.js';
import { tableWith } from '../../../fixtures/dust/table.js';
import type { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator.js';

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

t.test(`${REQUEST_THREADS} threads bursting 200 reservations with keepFree ${KEEP} against ${UTXOS} UTXOs take ${UTXOS - KEEP}; the keeper then takes the last ${KEEP}`, async (t) => {
  const table = tableWith(Array.from({ length: UTXOS }, (_, i) => 1_000n + BigInt(i)));
  const requests = await burst(t, table, Array.from({ length: REQUEST_THREADS }, () => ({ count: 50, keepFree: KEEP })));
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
});

t.test('requests and the keeper bursting from a full table at once: requests never take the reserve', async (t) => {
  for (let run = 0; run < 3; run++) {
    const table = tableWith(Array.from({ length: UTXOS }, (_, i) => 1_000n + BigInt(i)));
    const jobs = [{ count: 40, keepFree: KEEP }, { count: 12 }, { count: 40, keepFree: KEEP }, { count: 40, keepFree: KEEP }];
    const b = await burst(t, table, jobs);
    const byRequests = granted([b.slots[0]!, b.slots[2]!, b.slots[3]!]).length;
    const byKeeper = granted([b.slots[1]!]).length;
    const free = table.counts().free;
    if (byRequests > UTXOS - KEEP || free > KEEP || byRequests + byKeeper + free !== UTXOS || table.freeTokens() !== free || new Set(granted(b.slots)).size !== byRequests + byKeeper) {
      t.fail(`run ${run}: requests ${byRequests}, keeper ${byKeeper}, free ${free}, tokens ${table.freeTokens()}`);
    }
    await b.release();
  }
  t.pass('3 runs: requests ≤ 58, the requests stopped only at the reserve, every UTXO accounted for');
});
