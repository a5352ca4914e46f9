/**
 * The worker pool knows no task: it runs what the app handed it. Each thread loads the handed
 * task modules as it starts, before any task is given to it, and a task no module was handed for
 * is refused with 500 INTERNAL (its name in the cause, for the log) without reaching a thread.
 */
import t from 'tap';
import { pino } from 'pino';
import { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { ANNOUNCED } from '../fixtures/prover/announcing-module.js';
import { WORKER_ENTRY } from '../fixtures/prover/pool-modules.js';

const announcing = new URL('../fixtures/prover/announcing-module.ts', import.meta.url);
const ARGS = { backend: 'dev', keyDir: '', era: 9 } as const;

t.test('each thread loads the task modules it was handed as it starts, before its first task', async (t) => {
  const pool = new WorkerPool({ threads: 2, maxQueue: 4, logger: pino({ level: 'silent' }), entry: WORKER_ENTRY, tasks: { prove: announcing } });
  t.teardown(() => pool.close());
  t.equal(pool.threads.length, 2, 'both threads started with the pool');
  const announced = await Promise.all(pool.threads.map((th) => new Promise<unknown>((resolve) => th.on('message', (m) => m === ANNOUNCED && resolve(m)))));
  t.same(announced, [ANNOUNCED, ANNOUNCED], 'every thread loaded the module with no task given');
  const first = await pool.run('prove', { args: ARGS, data: new Uint8Array([1]) });
  t.same([...first], [1], "the module's task runs, in the module the thread loaded");
});

t.test('a task no module was handed for: 500 INTERNAL naming it, before any thread is asked', async (t) => {
  const pool = new WorkerPool({ threads: 1, maxQueue: 4, logger: pino({ level: 'silent' }), entry: WORKER_ENTRY, tasks: { prove: announcing }, eager: false });
  t.teardown(() => pool.close());
  const err = await pool.run('check', { args: ARGS, data: new Uint8Array([1]) }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(err, { code: 'INTERNAL', status: 500 });
  t.match((err as { cause?: Error }).cause?.message, /no worker module was given for the check task/);
  t.equal(pool.threads.length, 0, 'no thread was started for it');
});
