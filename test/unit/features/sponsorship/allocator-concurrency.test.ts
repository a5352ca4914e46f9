import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import t from 'tap';
import { startModuleWorker } from '../../../../packages/threads/src/worker-thread.js';
import {
  SYNC_ABORT,
  SYNC_ARRIVED,
  SYNC_CONFIRMED,
  SYNC_FAILED,
  SYNC_LIVE,
  SYNC_ROUND,
  createSync,
  raise,
  waitAtLeast,
} from '../../../fixtures/dust/barrier.js';
import type { ReserverJob, ReserverReport, WorkerOp } from '../../../fixtures/dust/reserver-protocol.js';
import { tableWith } from '../../../fixtures/dust/table.js';

// Four worker threads reserve, release and confirm on one shared table while the main thread
// marks UTXOs spent and refreshes values. Each worker claims the slot of every reservation it
// gets in a shared owner array (compareExchange from 0), so two live reservations of one slot
// would show as a violation. Between rounds, with every thread parked on the barrier, the
// main thread checks the counts against what the workers hold.

const WORKERS = 4;

type MainOp = { readonly kind: 'markSpent'; readonly slot: number } | { readonly kind: 'updateValue'; readonly slot: number; readonly value: bigint };

const workerOp: fc.Arbitrary<WorkerOp> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('reserve' as const), fee: fc.bigInt({ min: 0n, max: 64n }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat(64) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('confirm' as const), pick: fc.nat(64) }), weight: 1 },
);
const mainOp: fc.Arbitrary<MainOp> = fc.oneof(
  fc.record({ kind: fc.constant('markSpent' as const), slot: fc.nat(64) }),
  fc.record({ kind: fc.constant('updateValue' as const), slot: fc.nat(64), value: fc.bigInt({ min: 1n, max: 64n }) }),
);
const scenario = fc.record({
  values: fc.array(fc.bigInt({ min: 1n, max: 64n }), { minLength: 2, maxLength: 24 }),
  templates: fc.array(fc.array(workerOp, { minLength: 1, maxLength: 16 }), { minLength: WORKERS, maxLength: WORKERS }),
  rounds: fc.array(
    fc.record({
      passes: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: WORKERS, maxLength: WORKERS }),
      main: fc.array(mainOp, { maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

async function play(workers: readonly Worker[], s: Scenario): Promise<number> {
  const table = tableWith(s.values);
  const sync = createSync();
  const owners = new Int32Array(new SharedArrayBuffer(s.values.length * Int32Array.BYTES_PER_ELEMENT));
  const reports = workers.map((worker) => once(worker, 'message') as Promise<[ReserverReport]>);
  workers.forEach((worker, workerId) => {
    const job: ReserverJob = {
      workerId,
      table: table.buffer,
      sync: sync.buffer as SharedArrayBuffer,
      owners: owners.buffer as SharedArrayBuffer,
      template: s.templates[workerId] ?? [],
      passes: s.rounds.map((round) => round.passes[workerId] ?? 0),
    };
    worker.postMessage(job);
  });
  const sum = (base: number) => workers.reduce((total, _worker, id) => total + Atomics.load(sync, base + id), 0);
  try {
    let spentByMain = 0;
    for (let round = 1; round <= s.rounds.length + 1; round++) {
      raise(sync, SYNC_ROUND, 2 * round - 1);
      // Runs while the workers run their round.
      for (const op of s.rounds[round - 1]?.main ?? []) {
        const slot = op.slot % s.values.length;
        if (op.kind === 'markSpent') spentByMain += table.markSpent(slot) ? 1 : 0;
        else table.updateValue(slot, op.value);
      }
      if (!waitAtLeast(sync, SYNC_ARRIVED, WORKERS * (2 * round - 1))) throw new Error(`round ${round}: workers never finished their ops`);
      raise(sync, SYNC_ROUND, 2 * round);
      if (!waitAtLeast(sync, SYNC_ARRIVED, WORKERS * 2 * round)) throw new Error(`round ${round}: workers never reported`);
      if (Atomics.load(sync, SYNC_FAILED) !== 0) break;
      const counts = table.counts();
      const expected = { total: s.values.length, reserved: sum(SYNC_LIVE), spent: spentByMain + sum(SYNC_CONFIRMED) };
      if (counts.total !== expected.total || counts.reserved !== expected.reserved || counts.spent !== expected.spent) {
        throw new Error(`round ${round}: counts ${JSON.stringify(counts)}, workers and main account for ${JSON.stringify(expected)}`);
      }
      if (counts.free + counts.reserved + counts.spent !== counts.total) throw new Error(`round ${round}: ${JSON.stringify(counts)} do not add up`);
      // At rest, the header's free count (what keepFree is checked against) is exactly the FREE slots.
      if (table.freeTokens() !== counts.free) throw new Error(`round ${round}: ${table.freeTokens()} free tokens for ${counts.free} FREE slots`);
      for (let slot = 0; slot < s.values.length; slot++) {
        const state = table.slotEntry(slot)?.state;
        const owner = Atomics.load(owners, slot);
        if ((state === 'reserved' && owner === 0) || (state === 'free' && owner !== 0)) {
          throw new Error(`round ${round}: slot ${slot} is ${state} with owner mark ${owner}`);
        }
      }
    }
  } catch (error) {
    // Free the workers from this scenario before failing it, so the next one starts clean.
    raise(sync, SYNC_ABORT, 1);
    raise(sync, SYNC_ROUND, 2 * (s.rounds.length + 1));
    await Promise.all(reports);
    throw error;
  }
  const done = (await Promise.all(reports)).map(([report]) => report);
  const violations = done.flatMap((report) => report.violations.map((v) => `worker ${report.workerId}: ${v}`));
  if (violations.length > 0) throw new Error(violations.join('\n'));
  const final = table.counts();
  if (final.reserved !== 0 || owners.some((owner) => owner !== 0)) throw new Error(`after the last release: ${JSON.stringify(final)}`);
  return done.reduce((total, report) => total + report.reserved, 0);
}

t.test('no slot is ever held by two live reservations; counts always add up', async (t) => {
  const workers = Array.from({ length: WORKERS }, () => startModuleWorker(new URL('../../../fixtures/dust/reserver-worker', import.meta.url), import.meta.url));
  t.teardown(() => Promise.all(workers.map((worker) => worker.terminate())));
  await Promise.all(workers.map((worker) => once(worker, 'message')));
  let reservations = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      reservations += await play(workers, s);
    }),
    { numRuns: 50 },
  );
  t.ok(reservations > 0, `${reservations} reservations made across 50 scenarios`);
});
