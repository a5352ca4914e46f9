/**
 * Many large `/prove` bodies at once from one key (the memory-exhaustion attack): beyond the key's
 * share of the body budget each is refused from its head, before a byte of its body is read; the
 * budget's own accounting never passes its bounds; the charges come back when the requests end.
 * With the proving queue full, a `/prove` is refused from its head too. The figures at full scale
 * (48 keys × 63 MiB, RSS) come from body-cost-rss.test.ts.
 */
import t from 'tap';
import { connect, type Socket } from 'node:net';
import { startApp, TEST_KEY, OTHER_KEY } from '../helpers/app.js';
import { createProverModule, WORKER_POOL, type WorkerPoolComponent } from '../../src/features/proving/index.js';
import type { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { WORKER_BODY_COST, type BodyBudgetStats } from '../../src/core/guards/body-budget.js';
import { hanging } from '../fixtures/prover/hang-signal.js';
import { preimageAt, proveBody } from '../fixtures/prover/samples.js';
import { call, OCTET_KEYED } from './helpers/apps.js';
import { spyOnPool } from './helpers/pool-spy.js';

const MiB = 2 ** 20;
const BODY = 8 * MiB;
/** A /prove body is charged twice its length: a key's share holds two of them. */
const ADMITTED = 2;
const PER_KEY = ADMITTED * WORKER_BODY_COST * BODY;
const PARALLEL = 24;
const QUEUE = 4;
const workerEntry = new URL('../fixtures/prover/worker-entry.ts', import.meta.url);
const s = await startApp(
  { prover: { threads: 1, queueSize: QUEUE }, server: { proverBodyLimit: BODY, bodyLimit: MiB, bodyBytesPerClient: PER_KEY, bodyBytesInFlight: 2 * PER_KEY } },
  { modules: [createProverModule({ tasks: { prove: workerEntry } })] },
);
t.teardown(() => s.close());
const pool = s.app.context.component<WorkerPoolComponent>(WORKER_POOL) as WorkerPool;
const spy = spyOnPool(pool);
const stats = (): BodyBudgetStats => (s.app.health()['components'] as Record<string, BodyBudgetStats>)['bodies']!;

const head = (key: string, length: number): string =>
  `POST /prove HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\n\r\n`;

/** A raw request: the answer once complete or closed, and the socket to send more on. */
function open(first: string | Buffer): { sock: Socket; answer: Promise<string> } {
  const sock = connect(s.port, '127.0.0.1');
  let data = '';
  const answer = new Promise<string>((resolve) => {
    sock.on('data', (d) => {
      data += d.toString('latin1');
      if (/\r\n\r\n[^]*\}/.test(data)) resolve(data);
    });
    sock.on('close', () => resolve(data));
    sock.on('error', () => resolve(data));
  });
  sock.write(first);
  return { sock, answer };
}

const until = async (f: () => boolean): Promise<void> => {
  while (!f()) await new Promise((r) => setImmediate(r));
};

t.test(`${PARALLEL} parallel ${BODY / MiB} MiB /prove heads from one key: the key's share admitted, the rest refused unread`, async (t) => {
  const all = Array.from({ length: PARALLEL }, () => open(head(TEST_KEY, BODY)));
  const done: string[] = [];
  for (const r of all) void r.answer.then((a) => done.push(a));
  const refusedCount = PARALLEL - ADMITTED;
  await until(() => done.length === refusedCount && s.app.server.inFlight === ADMITTED);
  t.equal(done.length, refusedCount, `${refusedCount} refused from their heads`);
  for (const a of done) t.match(a, /^HTTP\/1\.1 429 [^]*Retry-After: \d+[^]*"code":"CLIENT_BODY_BUDGET_FULL"/);
  t.equal(stats().refused.client, refusedCount);
  t.match(stats(), { inFlightBytes: PER_KEY, peakBytes: PER_KEY, clients: 1 }, 'the key holds its share, no more');
  t.equal(s.app.server.inFlight, ADMITTED, 'only the admitted requests are in flight');
  for (const r of all) r.sock.destroy();
  await until(() => s.app.server.inFlight === 0);
  t.match(stats(), { inFlightBytes: 0, clients: 0 }, 'given back when the clients leave');
});

t.test(`${PARALLEL} parallel ${BODY / MiB} MiB bodies sent whole: never more than the share read at once`, async (t) => {
  const before = process.memoryUsage().arrayBuffers;
  const junk = Buffer.alloc(BODY, 0x41);
  const answers = await Promise.all(
    Array.from({ length: PARALLEL }, () => call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: junk }).catch(() => ({ status: 0 }))),
  );
  const statuses = answers.map((a) => a.status);
  t.ok(
    statuses.every((st) => st === 400 || st === 429 || st === 0),
    `read ones are not proving requests (400), the rest refused (429): ${[...new Set(statuses)].join(', ')}`,
  );
  t.ok(statuses.filter((st) => st === 429 || st === 0).length >= PARALLEL / 2, 'most refused');
  t.ok(stats().peakBytes <= PER_KEY, `peak ${stats().peakBytes / MiB} MiB in flight`);
  t.ok(process.memoryUsage().arrayBuffers - before < 6 * PER_KEY, 'buffers follow the budget');
  await until(() => s.app.server.inFlight === 0);
  t.match(stats(), { inFlightBytes: 0 });
});

t.test('the proving queue full: a /prove is refused from its head, before its body is read', async (t) => {
  t.equal((await call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(undefined, 1n) })).status, 200, 'warm');
  const clients = new AbortController();
  const started = hanging(pool.threads[0]!);
  const held = [
    call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(preimageAt('test/hang'), 100n), signal: clients.signal }).catch(
      () => 'aborted',
    ),
  ];
  await started;
  // One key may fill all of the queue but an eighth (its share; KEY_QUEUE_FULL past it): the last
  // place is another key's.
  for (let i = 0; i < QUEUE; i++) {
    const queued = spy.nextQueued();
    const headers = i < QUEUE - 1 ? OCTET_KEYED : { ...OCTET_KEYED, 'x-api-key': OTHER_KEY };
    held.push(
      call(`${s.url}/prove`, { method: 'POST', headers, body: proveBody(preimageAt('test/hang'), 101n + BigInt(i)), signal: clients.signal }).catch(
        () => 'aborted',
      ),
    );
    await queued;
  }
  const refusedBefore = stats().refused;
  const r = open(head(OTHER_KEY, BODY));
  const answer = await r.answer;
  r.sock.destroy();
  t.match(answer, /^HTTP\/1\.1 503 [^]*Retry-After: \d+[^]*"code":"QUEUE_FULL"/, 'QUEUE_FULL from the head alone');
  t.same(stats().refused, refusedBefore, 'not a budget refusal: nothing was taken');
  clients.abort();
  await Promise.all(held);
  await spy.idle();
  await s.app.server.drained();
  t.match(stats(), { inFlightBytes: 0, clients: 0 });
});
