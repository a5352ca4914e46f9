/**
 * `/prove`, `/check` and `/k` run in the worker pool as the request's API key, so the pool's fair
 * queueing (infra/pool/slots.ts; its order is tested in prover-pool-fair) weighs them per key as it
 * does sponsorships, and a key's share of the queue is judged from the request's head. Read from the
 * pool's own calls, through the dev backend.
 */
import t from 'tap';
import { request } from 'undici';
import { OTHER_KEY, startApp, TEST_KEY } from '../helpers/app.js';
import { createProverModule, WORKER_POOL } from '../../src/features/proving/index.js';
import type { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { checkBody, midnightFile, proveBody } from '../fixtures/prover/samples.js';

const s = await startApp({ prover: { threads: 1 } }, { modules: [createProverModule()] });
t.teardown(() => s.close());
const pool = s.app.context.component<WorkerPool>(WORKER_POOL)!;

/** The pool's calls: task name and key, and the keys its head check was asked about. */
const runs: Array<[string, string | undefined]> = [];
const heads: Array<string | undefined> = [];
const run = pool.run.bind(pool);
pool.run = ((name: string, payload: unknown, opts?: { key?: string }) => {
  runs.push([name, opts?.key]);
  return run(name as never, payload as never, opts as never);
}) as typeof pool.run;
const refusalIfFull = pool.refusalIfFull.bind(pool);
pool.refusalIfFull = (key?: string) => {
  heads.push(key);
  return refusalIfFull(key);
};

async function post(path: string, body: Uint8Array, key: string): Promise<number> {
  const res = await request(`${s.url}${path}?network=preview`, {
    method: 'POST',
    body,
    headers: { 'x-api-key': key, 'content-type': 'application/octet-stream' },
  });
  await res.body.dump();
  return res.statusCode;
}

t.test('each proving task names the key of its request', async (t) => {
  t.equal(await post('/prove', proveBody(undefined, 11n), TEST_KEY), 200);
  t.equal(await post('/check', checkBody(), OTHER_KEY), 200);
  t.equal(await post('/k', midnightFile('zk/zswap_output.bzkir'), OTHER_KEY), 200);
  t.same(
    runs,
    [
      ['prove', 'env-1'],
      ['check', 'env-2'],
      ['k', 'env-2'],
    ],
    'the pool ran each as its key',
  );
  t.same(heads, ['env-1', 'env-2', 'env-2'], "each head was judged against its key's share of the queue");
});
