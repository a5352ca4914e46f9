/**
 * The worker pool at shutdown: `drain()` refuses every task still waiting for a thread, and every
 * new one, with 503 SHUTTING_DOWN and a reason, while the tasks already running finish normally.
 * (The whole app at shutdown: test/reliability/shutdown-*.test.ts.)
 */
import t from 'tap';
import { pino } from 'pino';
import { WorkerPool } from '../../src/prover/worker-pool.js';
import { hasTag } from '../../src/prover/wire.js';
import { held, releaseHeld } from '../fixtures/prover/held-signal.js';
import { proveBody } from '../fixtures/prover/samples.js';

// Test-only worker entry: a `prove` task given a shared buffer waits on it until released.
const filename = new URL('../fixtures/prover/held-worker-entry.ts', import.meta.url);
const ARGS = { backend: 'dev', keyDir: '' } as const;
const REFUSED = { code: 'SHUTTING_DOWN', status: 503, message: 'The server is shutting down; the proof was not started' };

t.test('drain: queued tasks are refused at once, new ones too, running ones complete', async (t) => {
  const pool = new WorkerPool({ threads: 2, maxQueue: 4, logger: pino({ level: 'silent' }), filename });
  t.teardown(() => pool.close());
  const gate = new SharedArrayBuffer(4);
  const bothHeld = held(pool.threads, 2);
  const running = [1n, 2n].map((b) => pool.run('prove', { args: ARGS, data: proveBody(undefined, b), shared: [gate] }));
  await bothHeld;
  const queued = [3n, 4n, 5n].map((b) => pool.run('prove', { args: ARGS, data: proveBody(undefined, b) }));
  t.match(pool.health(), { running: 2, queueSize: 3 }, 'two running, three waiting for a thread');

  pool.drain();
  await Promise.all(queued.map((q) => t.rejects(q, REFUSED, 'a queued task is refused with the reason')));
  await t.rejects(pool.run('prove', { args: ARGS, data: proveBody(undefined, 6n) }), REFUSED, 'a new task is refused at once');
  t.match(pool.health(), { running: 2, queueSize: 0 }, 'the running tasks were not touched');

  releaseHeld(gate);
  const proofs = await Promise.all(running);
  t.ok(proofs.every((p) => hasTag(p, 'proof')), 'the running tasks completed with their proofs');
  t.match(pool.health(), { running: 0, queueSize: 0, failed: 0, crashed: 0 }, 'refusals are not failures');
});

t.test('drain with nothing queued refuses only what comes later', async (t) => {
  const pool = new WorkerPool({ threads: 1, maxQueue: 1, logger: pino({ level: 'silent' }), filename });
  t.teardown(() => pool.close());
  t.ok(hasTag(await pool.run('prove', { args: ARGS, data: proveBody(undefined, 7n) }), 'proof'), 'served before the drain');
  pool.drain();
  await t.rejects(pool.run('check', { args: ARGS, data: new Uint8Array(8) }), { code: 'SHUTTING_DOWN', message: 'The server is shutting down; the check was not started' });
});
