/**
 * A proving body is charged what it costs (twice its length) and stays charged until the worker
 * task that took it has ended, not only until its request ends: a client that leaves while its
 * task runs (the abort grace) and a proof shared with another client keep the body in a worker.
 * A request whose body no task took gives its charge back when it ends.
 */
import t from 'tap';
import { connect, type Socket } from 'node:net';
import { startApp, TEST_KEY, OTHER_KEY } from '../../helpers/app.js';
import { createProverModule, PROVER_COMPONENT, WORKER_POOL, type ProverComponent, type WorkerPoolComponent } from '../../../src/features/proving/index.js';
import type { WorkerPool } from '../../../src/infra/pool/worker-pool.js';
import { WORKER_BODY_COST, type BodyBudgetStats } from '../../../src/core/guards/body-budget.js';
import { hanging } from '../../fixtures/prover/hang-signal.js';
import { preimageAt, proveBody } from '../../fixtures/prover/samples.js';

const GRACE_MS = 3_000;
const workerEntry = new URL('../../fixtures/prover/worker-entry.ts', import.meta.url);
const s = await startApp({ prover: { threads: 1, abortGraceMs: GRACE_MS } }, { modules: [createProverModule({ tasks: { prove: workerEntry } })] });
t.teardown(() => s.close());
const pool = s.app.context.component<WorkerPoolComponent>(WORKER_POOL) as WorkerPool;
const prover = s.app.context.component<ProverComponent>(PROVER_COMPONENT)!;
const stats = (): BodyBudgetStats => (s.app.health()['components'] as Record<string, BodyBudgetStats>)['bodies']!;

const until = async (f: () => boolean): Promise<void> => {
  while (!f()) await new Promise((r) => setTimeout(r, 5));
};

function send(key: string, body: Uint8Array): Socket {
  const sock = connect(s.port, '127.0.0.1');
  sock.on('error', () => undefined);
  sock.write(`POST /prove HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`);
  sock.write(body);
  return sock;
}

t.test('a client that leaves while its task runs: the charge stays until the task has ended', async (t) => {
  const body = proveBody(preimageAt('test/hang'), 100n);
  const cost = WORKER_BODY_COST * body.length;
  const thread = pool.threads[0]!;
  const hung = hanging(thread);
  const sock = send(TEST_KEY, body);
  await hung;
  t.match(stats(), { inFlightBytes: cost, clients: 1 }, `charged ${WORKER_BODY_COST} × its length`);

  const ended = new Promise((resolve) => thread.once('exit', resolve));
  sock.destroy();
  await until(() => s.app.server.inFlight === 0);
  t.match(stats(), { inFlightBytes: cost, clients: 1 }, 'the request ended; its task still holds the body in the worker');
  await ended;
  await until(() => stats().inFlightBytes === 0);
  t.match(stats(), { inFlightBytes: 0, clients: 0 }, 'given back once the task ended');
  await until(() => pool.threads.length === 1 && pool.threads[0] !== thread);
});

t.test('a proof shared by two clients: the body the task took stays charged while the other waits', async (t) => {
  const body = proveBody(preimageAt('test/hang'), 101n);
  const cost = WORKER_BODY_COST * body.length;
  const hung = hanging(pool.threads[0]!);
  const first = send(TEST_KEY, body);
  await hung;
  const joined = new Promise<void>((resolve) => {
    prover.events.on('result', function on(e) {
      if (e.cache !== 'SHARED') return;
      prover.events.off('result', on);
      resolve();
    });
  });
  const second = send(OTHER_KEY, body);
  await joined;
  t.match(stats(), { inFlightBytes: 2 * cost, clients: 2 });

  first.destroy();
  await until(() => s.app.server.inFlight === 1);
  t.match(stats(), { inFlightBytes: 2 * cost, clients: 2 }, 'the first client left; its body is still in the task');
  second.destroy();
  await until(() => s.app.server.inFlight === 0);
  t.match(stats(), { inFlightBytes: cost, clients: 1 }, 'the second, whose body no task took, gives its charge back as it leaves');
  await until(() => stats().inFlightBytes === 0);
  t.equal(pool.health().running, 0, "the first's charge comes back when the task has ended");
});
