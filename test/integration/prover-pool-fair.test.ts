/**
 * The worker pool shared fairly across keys, on real worker threads: while one key's task holds
 * the only thread and more of its tasks wait, another key's single task is the next to start, not
 * the last; a key cannot fill the queue of all (503 KEY_QUEUE_FULL with Retry-After, its own
 * code), while other keys' tasks are still taken and the queue's own bound (503 QUEUE_FULL) stays.
 * Order is read from the tasks' start callbacks, never from timing.
 */
import t from 'tap';
import { pino } from 'pino';
import { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { withProve } from '../fixtures/prover/pool-modules.js';
import { held, releaseHeld } from '../fixtures/prover/held-signal.js';
import { proveBody } from '../fixtures/prover/samples.js';

// Test-only worker entry: a `prove` task given a shared buffer waits on it until released.
const filename = new URL('../fixtures/prover/held-worker-entry.ts', import.meta.url);
const ARGS = { backend: 'dev', keyDir: '', era: 9 } as const;

// A regression (first come, first served whatever the key) leaves a task waiting on a held gate: bounded here.
t.setTimeout(60_000);

t.test("one key's queued tasks do not delay another key's task past the one running", async (t) => {
  const pool = new WorkerPool({ threads: 1, maxQueue: 16, maxQueuePerKey: 8, logger: pino({ level: 'silent' }), ...withProve(filename) });
  t.teardown(() => pool.close());
  const gate = new SharedArrayBuffer(4);
  const started: string[] = [];
  const run = (label: string, key: string, n: bigint) =>
    pool.run('prove', { args: ARGS, data: proveBody(undefined, n), shared: [gate] }, { key, onStart: () => started.push(label) });
  const first = held(pool.threads, 1);
  const tasks = [run('a0', 'key-a', 1n)];
  await first;
  for (let i = 1; i <= 6; i++) tasks.push(run(`a${i}`, 'key-a', BigInt(1 + i)));
  tasks.push(run('b1', 'key-b', 100n));
  t.match(pool.health(), { running: 1, queueSize: 7, waitingKeys: 2 }, "key a's task runs; six more of its own and key b's one wait");
  releaseHeld(gate);
  await Promise.all(tasks);
  t.same(started, ['a0', 'b1', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6'], "key b's task started as soon as the running one ended");
});

t.test("a key's share of the queue: 503 KEY_QUEUE_FULL with Retry-After; other keys still queue; the queue's bound stays 503 QUEUE_FULL", async (t) => {
  const pool = new WorkerPool({ threads: 1, maxQueue: 4, logger: pino({ level: 'silent' }), ...withProve(filename) });
  t.teardown(() => pool.close());
  t.equal(pool.health().maxQueuePerKey, 3, 'by default a key may have the whole queue waiting but an eighth of it (at least one place)');
  const gate = new SharedArrayBuffer(4);
  const run = (key: string | undefined, n: bigint) =>
    pool.run('prove', { args: ARGS, data: proveBody(undefined, n), shared: [gate] }, key === undefined ? {} : { key });
  const first = held(pool.threads, 1);
  const tasks = [run('key-a', 1n)];
  await first;
  tasks.push(run('key-a', 2n), run('key-a', 3n), run('key-a', 4n));
  const refused = await run('key-a', 5n).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(refused, { code: 'KEY_QUEUE_FULL', status: 503 }, "key a's next task is refused");
  t.match((refused as { headers: Record<string, string> }).headers['Retry-After'], /^[1-9]\d*$/, 'with a Retry-After in seconds');
  t.match(pool.refusalIfFull('key-a'), { code: 'KEY_QUEUE_FULL' }, 'decided before a body is read, too');
  t.equal(pool.refusalIfFull('key-b'), undefined, 'key b would be taken');
  tasks.push(run('key-b', 6n));
  await t.rejects(run('key-c', 7n), { code: 'QUEUE_FULL', status: 503 }, 'the whole queue full: 503 QUEUE_FULL, as before');
  await t.rejects(run(undefined, 8n), { code: 'QUEUE_FULL', status: 503 }, 'for tasks of no key too');
  t.match(pool.refusalIfFull(), { code: 'QUEUE_FULL' });
  releaseHeld(gate);
  await Promise.all(tasks);
  t.match(pool.health(), { running: 0, queueSize: 0, waitingKeys: 0 });
});
