import { once } from 'node:events';
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { createProverModule, PROVER_COMPONENT, WORKER_POOL, type ProverComponent } from '../../src/features/proving/index.js';
import type { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import type { ResultEvent } from '../../src/features/proving/proof-results.js';
import { preimageAt, proveBody } from '../fixtures/prover/samples.js';
import { hanging } from '../fixtures/prover/hang-signal.js';

// Test-only worker entry: `test/hang` blocks its thread, `test/crash` ends it (production never loads it).
const workerEntry = new URL('../fixtures/prover/worker-entry.ts', import.meta.url);
const HEADERS = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };

// One app for the file, one thread, a queue of one: each test leaves the pool with a fresh thread.
const s = await startApp({ prover: { threads: 1, queueSize: 1 } }, { modules: [createProverModule({ tasks: { prove: workerEntry } })] });
t.teardown(() => s.close());
const pool = s.app.context.component<WorkerPool>(WORKER_POOL)!;
const prover = s.app.context.component<ProverComponent>(PROVER_COMPONENT)!;

/** Resolves once `n` requests have passed the cache and gone to the backend. */
function misses(prover: ProverComponent, n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const on = (e: ResultEvent): void => {
      if (e.cache !== 'MISS') return;
      if (++seen === n) {
        prover.events.off('result', on);
        resolve();
      }
    };
    prover.events.on('result', on);
  });
}

function prove(url: string, body: Uint8Array, signal?: AbortSignal) {
  return request(`${url}/prove`, { method: 'POST', body, headers: HEADERS, ...(signal ? { signal } : {}) });
}

/** A normal request through the pool: afterwards its one thread is up and idle. */
async function warm(binding: bigint): Promise<void> {
  const res = await prove(s.url, proveBody(undefined, binding));
  await res.body.dump();
}

t.test("health reports thread utilization from the pool's own task times", async (t) => {
  const before = pool.health();
  await warm(901n);
  await warm(902n);
  const after = pool.health();
  t.equal(after.completed, before.completed + 2, 'two more tasks completed');
  t.ok(after.utilization > 0 && after.utilization <= 1, `utilization ${after.utilization} is a busy fraction`);
  t.ok(pool.retryAfterSeconds() >= 1, 'Retry-After from the recent mean task time, at least a second');
});

t.test('a full queue answers 503 QUEUE_FULL with Retry-After', async (t) => {
  await warm(1n);
  const clients = new AbortController();
  const started = hanging(pool.threads[0]!);
  const running = prove(s.url, proveBody(preimageAt('test/hang'), 1n), clients.signal).catch(() => undefined);
  await started;
  const queued = prove(s.url, proveBody(preimageAt('test/hang'), 2n), clients.signal).catch(() => undefined);
  await misses(prover, 1);
  const res = await prove(s.url, proveBody(preimageAt('test/hang'), 3n));
  t.equal(res.statusCode, 503);
  t.match(res.headers['retry-after'], /^\d+$/);
  t.same(await res.body.json(), { error: 'Service Unavailable', message: 'All 1 workers are busy and 1 tasks are waiting', code: 'QUEUE_FULL' });
  clients.abort();
  await Promise.all([running, queued]);
  // The server has seen both clients go (their tasks left piscina in that same callback) once nothing is in flight.
  await s.app.server.drained();
  t.equal(pool.health().queueSize, 0);
});

t.test('a client that goes away frees its worker: the hung thread is ended and replaced', async (t) => {
  await warm(2n);
  const thread = pool.threads[0]!;
  const started = hanging(thread);
  const ended = once(thread, 'exit');
  const client = new AbortController();
  const hung = prove(s.url, proveBody(preimageAt('test/hang')), client.signal).catch((e: Error) => e);
  await started;
  client.abort();
  await hung;
  await ended;
  const res = await prove(s.url, proveBody(undefined, 11n));
  t.equal(res.statusCode, 200, 'the only thread serves the next request');
  t.equal(res.headers['x-cache'], 'MISS');
  await res.body.dump();
  t.not(pool.threads[0]!.threadId, thread.threadId, 'on a fresh thread');
  t.equal(pool.health().threads, 1);
});

t.test('a worker crash fails that request with 500 WORKER_CRASHED and the pool carries on', async (t) => {
  await warm(3n);
  const res = await prove(s.url, proveBody(preimageAt('test/crash')));
  t.equal(res.statusCode, 500);
  t.same(await res.body.json(), {
    error: 'Internal Server Error',
    message: 'A worker crashed while running prove; it has been replaced, retry the request',
    code: 'WORKER_CRASHED',
  });
  const next = await prove(s.url, proveBody(undefined, 12n));
  t.equal(next.statusCode, 200);
  t.equal(next.headers['x-cache'], 'MISS', 'computed by the replacement thread');
  await next.body.dump();
  t.match(pool.health(), { threads: 1, crashed: 1 });
});
