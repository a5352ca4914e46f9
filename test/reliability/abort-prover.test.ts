/**
 * Clients that leave a proving request at every stage: before the body is complete, while the
 * task waits in the pool's queue, while the upstream proof server computes, and at every byte
 * boundary of the request on a raw socket. uWS must never be touched after the abort (that
 * throws and would end the process), the work is cancelled, and the server keeps serving.
 * (A client leaving while a pool worker proves is covered by test/integration/prover-pool.test.ts:
 * "a client that goes away frees its worker".)
 */
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { createProverModule, PROVER_COMPONENT, WORKER_POOL, type ProverComponent, type WorkerPoolComponent } from '../../src/features/proving/index.js';
import type { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { hanging } from '../fixtures/prover/hang-signal.js';
import { preimageAt, proveBody } from '../fixtures/prover/samples.js';
import { call, OCTET_KEYED } from './helpers/apps.js';
import { watchLogs, type LogLine } from './helpers/logs.js';
import { ProofServerStub } from './helpers/proof-server-stub.js';
import { spyOnPool } from './helpers/pool-spy.js';

const workerEntry = new URL('../fixtures/prover/worker-entry.ts', import.meta.url);
const stub = await ProofServerStub.start();
t.teardown(() => stub.stop());
const logs = watchLogs('info');
// preview: the dev backend on the pool (one thread, a queue of two); mainnet: the upstream stub.
const s = await startApp(
  { prover: { threads: 1, queueSize: 2 }, networks: { mainnet: { prover: 'upstream', proverUrl: stub.url } } },
  { modules: [createProverModule({ tasks: { prove: workerEntry } })], logger: logs.logger },
);
t.teardown(() => s.close());
const pool = s.app.context.component<WorkerPoolComponent>(WORKER_POOL) as WorkerPool;
const prover = s.app.context.component<ProverComponent>(PROVER_COMPONENT)!;
const spy = spyOnPool(pool);
const upstream = { ...OCTET_KEYED, 'x-midnight-network': 'mainnet' };
const access =
  (status: number) =>
  (l: LogLine): boolean =>
    l['msg'] === 'request' && l['status'] === status;

/** Nothing pending on the server: every earlier client's close has been read (a new exchange comes after it). */
async function quiet(t: Test): Promise<void> {
  t.equal((await call(`${s.url}/health`)).status, 200, 'a new connection is served');
  await s.app.server.drained();
}

t.test('a client leaving while queued removes its task at once; the running task is untouched', async (t) => {
  await call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(undefined, 1n) });
  const thread = pool.threads[0]!;
  const running = new AbortController();
  const started = hanging(thread);
  const hung = call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(preimageAt('test/hang'), 1n), signal: running.signal }).catch(
    () => 'aborted',
  );
  await started;
  const queuedClient = new AbortController();
  const nextQueued = spy.nextQueued();
  const queued = call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(undefined, 2n), signal: queuedClient.signal }).catch(
    () => 'aborted',
  );
  await nextQueued;
  t.equal(pool.health().queueSize, 1, 'waiting behind the hung task');
  const left = logs.next(access(499));
  queuedClient.abort();
  t.equal(await queued, 'aborted');
  await left;
  t.equal(pool.health().queueSize, 0, 'the queue is empty as soon as the abort is processed');
  t.equal(pool.threads[0], thread, 'and the running thread was not touched');

  const ended = new Promise((resolve) => thread.once('exit', resolve));
  running.abort();
  await hung;
  await ended;
  const next = await call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(undefined, 3n) });
  t.equal(next.status, 200, 'the pool serves again on a fresh thread');
});

t.test('a client leaving while the upstream proof server computes cancels the upstream call', async (t) => {
  stub.mode = 'hold';
  const client = new AbortController();
  const pending = call(`${s.url}/prove`, { method: 'POST', headers: upstream, body: proveBody(undefined, 10n), signal: client.signal });
  await stub.next('held', '/prove');
  const abandoned = stub.next('abandoned', '/prove');
  const left = logs.next(access(499));
  client.abort();
  await t.rejects(pending);
  await left;
  await abandoned;
  t.pass('nightgate hung up on the proof server');

  // Two clients share one computation: the first leaving keeps it, the second still gets the proof.
  const a = new AbortController();
  const body = proveBody(undefined, 11n);
  const first = call(`${s.url}/prove`, { method: 'POST', headers: upstream, body, signal: a.signal });
  await stub.next('held', '/prove');
  const joined = new Promise<void>((resolve) => {
    prover.events.on('result', function on(e) {
      if (e.cache !== 'SHARED') return;
      prover.events.off('result', on);
      resolve();
    });
  });
  const second = call(`${s.url}/prove`, { method: 'POST', headers: upstream, body });
  await joined;
  t.equal(stub.held, 1, 'one upstream call for both');
  void first.catch(() => undefined);
  a.abort();
  await logs.next(access(499));
  t.equal(stub.held, 1, 'still computing for the client that stayed');
  stub.mode = 'ok';
  stub.release();
  const got = await second;
  t.equal(got.status, 200);
  t.match(s.app.health(), { components: { prover: { networks: { mainnet: { status: 'ok' } } } } }, 'a client leaving is not an upstream failure');
});

t.test('disconnects at every byte boundary of a request: no crash, nothing left in flight', async (t) => {
  stub.mode = 'ok';
  const bodies = [
    { path: '/prove', headers: {}, body: Buffer.from(proveBody(undefined, 20n)) },
    { path: '/prove', headers: { 'X-Midnight-Network': 'mainnet' }, body: Buffer.from(proveBody(undefined, 21n)) },
    { path: '/verify', headers: {}, body: Buffer.from('midnight:(proof-preimage-versioned,option(wrapped-ir)):\x01') },
  ];
  let cuts = 0;
  for (const b of bodies) {
    const head = Buffer.from(
      `POST ${b.path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: application/octet-stream\r\n` +
        Object.entries(b.headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('') +
        `Content-Length: ${b.body.length}\r\n\r\n`,
    );
    const whole = Buffer.concat([head, b.body]);
    // Every boundary in the head, a spread of them in the body, and the complete request.
    const points = [
      ...Array.from({ length: head.length }, (_, i) => i + 1),
      ...Array.from({ length: 16 }, (_, i) => head.length + Math.floor(((i + 1) * b.body.length) / 17)),
      whole.length,
    ];
    await Promise.all(
      points.map(
        (n) =>
          new Promise<void>((resolve) => {
            const sock = connect(s.port, '127.0.0.1', () => {
              sock.write(whole.subarray(0, n), () => sock.destroy());
            });
            sock.on('close', () => resolve());
            sock.on('error', () => undefined);
          }),
      ),
    );
    cuts += points.length;
  }
  await quiet(t);
  t.equal(s.app.server.inFlight, 0, `nothing in flight after ${cuts} disconnects`);
  t.notOk(
    logs.lines.some((l) => l['msg'] === 'unhandled error'),
    'no unhandled error',
  );
  t.match(pool.health(), { queueSize: 0, threads: 1 });
  const ok = await call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(undefined, 22n) });
  t.equal(ok.status, 200, 'and the next request is served');
});
