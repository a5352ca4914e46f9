/**
 * The worker pool at shutdown: `drain()` refuses every task still waiting for a thread, and every
 * new one, with 503 SHUTTING_DOWN and a reason, while the tasks already running finish normally.
 * (The whole app at shutdown: test/reliability/shutdown-*.test.ts.)
 */
import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { createProverModule, WORKER_POOL } from '../../src/features/proving/index.js';
import { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { withProve } from '../fixtures/prover/pool-modules.js';
import { hasTag } from '../../src/features/proving/wire/wire.js';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { hanging } from '../fixtures/prover/hang-signal.js';
import { held, releaseHeld } from '../fixtures/prover/held-signal.js';
import { preimageAt, proveBody } from '../fixtures/prover/samples.js';
import { spyOnPool } from '../reliability/helpers/pool-spy.js';

// Test-only worker entry: a `prove` task given a shared buffer waits on it until released.
const filename = new URL('../fixtures/prover/held-worker-entry.ts', import.meta.url);
const ARGS = { backend: 'dev', keyDir: '', era: 9 } as const;
const REFUSED = { code: 'SHUTTING_DOWN', status: 503, message: 'The server is shutting down; the proof was not started' };
const WORK = { work: 'the proof' };

t.test('drain: queued tasks are refused at once, new ones too, running ones complete', async (t) => {
  const pool = new WorkerPool({ threads: 2, maxQueue: 4, logger: pino({ level: 'silent' }), ...withProve(filename) });
  t.teardown(() => pool.close());
  const gate = new SharedArrayBuffer(4);
  const bothHeld = held(pool.threads, 2);
  const running = [1n, 2n].map((b) => pool.run('prove', { args: ARGS, data: proveBody(undefined, b), shared: [gate] }));
  await bothHeld;
  const queued = [3n, 4n, 5n].map((b) => pool.run('prove', { args: ARGS, data: proveBody(undefined, b) }, WORK));
  t.match(pool.health(), { running: 2, queueSize: 3 }, 'two running, three waiting for a thread');

  pool.drain();
  await Promise.all(queued.map((q) => t.rejects(q, REFUSED, 'a queued task is refused with the reason')));
  await t.rejects(pool.run('prove', { args: ARGS, data: proveBody(undefined, 6n) }, WORK), REFUSED, 'a new task is refused at once');
  t.match(pool.health(), { running: 2, queueSize: 0 }, 'the running tasks were not touched');

  releaseHeld(gate);
  const proofs = await Promise.all(running);
  t.ok(
    proofs.every((p) => hasTag(p, 'proof')),
    'the running tasks completed with their proofs',
  );
  t.match(pool.health(), { running: 0, queueSize: 0, failed: 0, crashed: 0 }, 'refusals are not failures');
});

t.test('drain with nothing queued refuses only what comes later', async (t) => {
  const pool = new WorkerPool({ threads: 1, maxQueue: 1, logger: pino({ level: 'silent' }), ...withProve(filename) });
  t.teardown(() => pool.close());
  t.ok(hasTag(await pool.run('prove', { args: ARGS, data: proveBody(undefined, 7n) }), 'proof'), 'served before the drain');
  pool.drain();
  await t.rejects(
    pool.run('check', { args: ARGS, data: new Uint8Array(8) }),
    { code: 'SHUTTING_DOWN', message: 'The server is shutting down; the check task was not started' },
    'named by its task when the caller does not name it',
  );
});

t.test('app.close(): a /prove waiting for the pool is answered 503 at once; the running one is not cut short by it', async (t) => {
  // `test/hang` blocks its thread until the task is ended (test-only entry).
  const workerEntry = new URL('../fixtures/prover/worker-entry.ts', import.meta.url);
  const s = await startApp(
    { prover: { threads: 1, queueSize: 2 }, server: { shutdownTimeoutMs: 60_000 } },
    { modules: [createProverModule({ tasks: { prove: workerEntry } })] },
  );
  t.teardown(() => s.close());
  const pool = s.app.context.component<WorkerPool>(WORKER_POOL)!;
  const spy = spyOnPool(pool);
  const headers = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };
  const prove = (body: Uint8Array, signal?: AbortSignal) =>
    request(`${s.url}/prove`, { method: 'POST', headers, body, ...(signal ? { signal } : {}) }).then(async (r) => ({
      status: r.statusCode,
      text: await r.body.text(),
    }));

  t.equal((await prove(proveBody(undefined, 1n))).status, 200, 'warm: the thread is up');
  const client = new AbortController();
  const started = hanging(pool.threads[0]!);
  const running = prove(proveBody(preimageAt('test/hang'), 2n), client.signal).catch((e: Error) => e);
  await started;
  const queuedToPool = spy.nextQueued();
  const queued = prove(proveBody(undefined, 3n));
  await queuedToPool;
  t.match(pool.health(), { running: 1, queueSize: 1 });

  let closed = false;
  const closing = s.app.close().then(() => (closed = true));
  const refused = await queued;
  t.equal(refused.status, 503);
  t.same(
    JSON.parse(refused.text),
    { error: 'Service Unavailable', message: 'The server is shutting down; the proof was not started', code: 'SHUTTING_DOWN' },
    'the queued proof is refused with the reason',
  );
  t.equal(closed, false, 'while the running proof is still awaited');
  t.equal(s.app.server.inFlight, 1);
  client.abort();
  await running;
  await closing;
  t.equal(s.app.server.inFlight, 0);
});
