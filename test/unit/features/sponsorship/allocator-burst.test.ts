import { once } from 'node:events';
import t from 'tap';
import { startModuleWorker } from '../../../../packages/threads/src/worker-thread.js';
import { SYNC_ROUND, createSync, raise } from '../../../fixtures/dust/barrier.js';
import { RELEASE, START } from '../../../fixtures/dust/burst-protocol.js';
import type { BurstJob } from '../../../fixtures/dust/burst-protocol.js';
import { tableWith } from '../../../fixtures/dust/table.js';

const THREADS = 4;
const PER_THREAD = 50;
const UTXOS = 64;

t.test('200 concurrent reservations against 64 UTXOs: 64 distinct, 136 null, all back after release', async (t) => {
  // Values 1000..1063, and a fee every one of them covers.
  const table = tableWith(Array.from({ length: UTXOS }, (_, i) => 1_000n + BigInt(i)));
  const sync = createSync();
  const job: BurstJob = { table: table.buffer, sync: sync.buffer as SharedArrayBuffer, count: PER_THREAD, fee: 500n };
  const workers = Array.from({ length: THREADS }, () =>
    startModuleWorker(new URL('../../../fixtures/dust/burst-worker', import.meta.url), import.meta.url, { workerData: job }),
  );
  t.teardown(() => Promise.all(workers.map((worker) => worker.terminate())));
  await Promise.all(workers.map((worker) => once(worker, 'message')));

  const reserved = workers.map((worker) => once(worker, 'message') as Promise<[number[]]>);
  raise(sync, SYNC_ROUND, START);
  const slots = (await Promise.all(reserved)).flatMap(([s]) => s);
  t.equal(slots.length, THREADS * PER_THREAD);
  const granted = slots.filter((slot) => slot >= 0);
  t.equal(granted.length, UTXOS, 'every UTXO was reserved');
  t.equal(new Set(granted).size, UTXOS, 'by exactly one reservation each');
  t.equal(slots.length - granted.length, THREADS * PER_THREAD - UTXOS, 'the rest got null');
  t.strictSame(table.counts(), { free: 0, reserved: UTXOS, spent: 0, total: UTXOS });

  const released = workers.map((worker) => once(worker, 'message') as Promise<[boolean[]]>);
  raise(sync, SYNC_ROUND, RELEASE);
  const results = (await Promise.all(released)).flatMap(([r]) => r);
  t.strictSame(
    results,
    Array.from({ length: UTXOS }, () => true),
    'every release succeeded',
  );
  t.strictSame(table.counts(), { free: UTXOS, reserved: 0, spent: 0, total: UTXOS });
  t.equal(table.totalValue(), BigInt(UTXOS) * 1_000n + BigInt((UTXOS * (UTXOS - 1)) / 2));
});
