/**
 * More proving requests than the server can hold: the excess is refused at once with 503
 * QUEUE_FULL and a Retry-After, what is held stays within the configured bound (threads +
 * queue for the worker pool; connections + queue for an upstream proof server), and everything
 * recovers when the load stops — no restart.
 */
import t from 'tap';
import { OTHER_KEY, startApp } from '../helpers/app.js';
import { createProverModule, WORKER_POOL, type WorkerPoolComponent } from '../../src/features/proving/index.js';
import type { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { UPSTREAM_CONNECTIONS } from '../../src/features/proving/upstream-backend.js';
import { hanging } from '../fixtures/prover/hang-signal.js';
import { preimageAt, proveBody } from '../fixtures/prover/samples.js';
import { call, OCTET_KEYED, type Answer } from './helpers/apps.js';
import { ProofServerStub } from './helpers/proof-server-stub.js';
import { spyOnPool } from './helpers/pool-spy.js';

const QUEUE = 4;
const EXCESS = 40;
const workerEntry = new URL('../fixtures/prover/worker-entry.ts', import.meta.url);
const stub = await ProofServerStub.start();
t.teardown(() => stub.stop());
const s = await startApp(
  { prover: { threads: 1, queueSize: QUEUE }, networks: { mainnet: { prover: 'upstream', proverUrl: stub.url } } },
  { modules: [createProverModule({ tasks: { prove: workerEntry } })] },
);
t.teardown(() => s.close());
const pool = s.app.context.component<WorkerPoolComponent>(WORKER_POOL) as WorkerPool;
const spy = spyOnPool(pool);

const prove = (body: Uint8Array, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Answer> =>
  call(`${s.url}/prove`, { method: 'POST', headers: { ...OCTET_KEYED, ...headers }, body, ...(signal ? { signal } : {}) });

t.test('worker pool: beyond threads + queue, an immediate 503 with Retry-After; full recovery', async (t) => {
  t.equal((await prove(proveBody(undefined, 1n))).status, 200, 'warm: the thread is up');
  const clients = new AbortController();
  const started = hanging(pool.threads[0]!);
  const held: Array<Promise<unknown>> = [prove(proveBody(preimageAt('test/hang'), 100n), {}, clients.signal).catch(() => 'aborted')];
  await started;
  // One key may fill all of the queue but an eighth (KEY_QUEUE_FULL past it): the last place is another key's.
  for (let i = 0; i < QUEUE; i++) {
    const queued = spy.nextQueued();
    held.push(
      prove(proveBody(preimageAt('test/hang'), 101n + BigInt(i)), i < QUEUE - 1 ? {} : { 'x-api-key': OTHER_KEY }, clients.signal).catch(() => 'aborted'),
    );
    await queued;
  }
  t.equal(pool.health().queueSize, QUEUE, 'the queue is full');

  const refused = await Promise.all(Array.from({ length: EXCESS }, (_, i) => prove(proveBody(preimageAt('test/hang'), 200n + BigInt(i)))));
  t.same(
    refused.map((r) => r.status),
    Array(EXCESS).fill(503),
    'every excess request refused while the pool is still stuck',
  );
  t.ok(
    refused.every((r) => /^[1-9]\d*$/.test(String(r.headers['retry-after']))),
    'each with a Retry-After in seconds',
  );
  t.same(new Set(refused.map((r) => r.json?.['code'])), new Set(['QUEUE_FULL']));
  t.equal(s.app.server.inFlight, 1 + QUEUE, 'only what the pool holds is in flight: refused requests hold nothing');
  t.equal(pool.health().queueSize, QUEUE, 'the queue never grew past its bound');

  clients.abort();
  await Promise.all(held);
  await spy.idle();
  await s.app.server.drained();
  t.match(pool.health(), { queueSize: 0, running: 0 });
  const ready = await call(`${s.url}/ready`, { headers: OCTET_KEYED });
  t.equal(ready.status, 200, '/ready says ok again');
  t.equal(ready.json?.['status'], 'ok');
  const again = await prove(proveBody(undefined, 2n));
  t.equal(again.status, 200, 'and proofs are served again, no restart');
});

t.test('upstream proof server: beyond its connections + queue, an immediate 503 with Retry-After; recovery', async (t) => {
  stub.mode = 'hold';
  const bound = UPSTREAM_CONNECTIONS + QUEUE;
  const net = { 'x-midnight-network': 'mainnet' };
  const allHeld = stub.times('held', UPSTREAM_CONNECTIONS);
  const accepted = Array.from({ length: bound }, (_, i) => prove(proveBody(undefined, 1000n + BigInt(i)), net));
  await allHeld;
  t.equal(stub.held, UPSTREAM_CONNECTIONS, 'the proof server has as many requests as nightgate has connections');
  const refused = await Promise.all(Array.from({ length: EXCESS }, (_, i) => prove(proveBody(undefined, 5000n + BigInt(i)), net)));
  t.same(
    refused.map((r) => r.status),
    Array(EXCESS).fill(503),
    'the excess is refused, not queued without bound',
  );
  t.same(new Set(refused.map((r) => r.json?.['code'])), new Set(['QUEUE_FULL']));
  t.ok(
    refused.every((r) => /^[1-9]\d*$/.test(String(r.headers['retry-after']))),
    'each with a Retry-After',
  );
  t.equal(s.app.server.inFlight, bound, 'in flight: connections + queue, no more');

  stub.mode = 'ok';
  stub.release();
  const done = await Promise.all(accepted);
  t.same(
    done.map((r) => r.status),
    Array(bound).fill(200),
    'every accepted request gets its proof',
  );
  const after = await prove(proveBody(undefined, 9999n), net);
  t.equal(after.status, 200, 'and the next one is served at once');
  t.match(s.app.health(), { components: { prover: { networks: { mainnet: { status: 'ok' } } } } });
});
