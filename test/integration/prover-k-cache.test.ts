/**
 * `/k` is cached as `/prove` is: an identical body is answered from the result cache (`X-Cache:
 * HIT`) without a worker task, identical bodies in flight share one task, and another circuit, or
 * another network, is a MISS of its own. Through the dev backend's worker pool.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { createProverModule, WORKER_POOL } from '../../src/features/proving/index.js';
import type { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { midnightFile } from '../fixtures/prover/samples.js';

const HEADERS = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };

const s = await startApp({ prover: { threads: 1 } }, { modules: [createProverModule()] });
t.teardown(() => s.close());
const pool = s.app.context.component<WorkerPool>(WORKER_POOL)!;
/** Tasks the pool has run to the end. */
const tasks = (): number => pool.health().completed;

async function k(body: Uint8Array, network = 'preview'): Promise<{ status: number; cache: unknown; prover: unknown; text: string }> {
  const res = await request(`${s.url}/k?network=${network}`, { method: 'POST', body, headers: HEADERS });
  return { status: res.statusCode, cache: res.headers['x-cache'], prover: res.headers['x-prover'], text: await res.body.text() };
}

t.test('two identical /k bodies: MISS, then HIT with one worker task; another circuit is a MISS', async (t) => {
  const output = midnightFile('zk/zswap_output.bzkir');
  const spend = midnightFile('zk/zswap_spend.bzkir');
  const before = tasks();
  const first = await k(output);
  t.match(first, { status: 200, cache: 'MISS', prover: 'dev' });
  t.match(first.text, /^\d+$/, 'k as decimal text');
  t.equal(tasks(), before + 1, 'the first one ran in the pool');

  const second = await k(output);
  t.same(second, { ...first, cache: 'HIT' }, 'the same answer, from the cache');
  t.equal(tasks(), before + 1, 'the pool ran the task once');

  const other = await k(spend);
  t.match(other, { status: 200, cache: 'MISS' }, 'a different body is a MISS');
  t.equal(tasks(), before + 2);
  t.equal((await k(spend)).cache, 'HIT');

  t.equal((await k(output, 'preprod')).cache, 'MISS', 'each network its own entry');
  t.equal(tasks(), before + 3);
});

t.test('identical /k bodies in flight share one worker task', async (t) => {
  const sign = midnightFile('zk/zswap_sign.bzkir');
  const before = tasks();
  const answers = await Promise.all(Array.from({ length: 4 }, () => k(sign)));
  t.equal(new Set(answers.map((a) => a.text)).size, 1, 'one answer');
  t.ok(
    answers.every((a) => a.status === 200 && (a.cache === 'MISS' || a.cache === 'HIT')),
    answers.map((a) => a.cache).join(' '),
  );
  t.equal(tasks(), before + 1, '4 requests, 1 task');
});

t.test('an error is not cached: the same bad circuit runs again', async (t) => {
  // The tag is right, so it reaches a worker; the IR behind it is not one.
  const bad = Buffer.from('midnight:ir-source[v2]:not a circuit');
  const failed = (): number => pool.health().failed;
  const before = failed();
  for (let i = 0; i < 2; i++) {
    const res = await request(`${s.url}/k`, { method: 'POST', body: bad, headers: HEADERS });
    t.equal(res.statusCode, 400, await res.body.text());
    t.equal(res.headers['x-cache'], undefined, 'no X-Cache on an error');
  }
  t.equal(failed(), before + 2, 'each one a task of its own');
});
