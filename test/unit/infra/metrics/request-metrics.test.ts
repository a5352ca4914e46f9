/** RequestMetrics: exact counts by route and status class, latency sampled one in 8 per route. */
import t from 'tap';
import { performance } from 'node:perf_hooks';
import { LATENCY_BUCKETS, LATENCY_SAMPLE, RequestMetrics } from '../../../../src/core/http/request-metrics.js';
import type { RouteDef } from '../../../../src/core/http/route.js';

const route = (url: string): RouteDef => ({
  method: 'GET',
  url,
  auth: 'none',
  rateLimit: 'none',
  schema: { summary: '', tags: [], response: {} },
  handler: () => ({ body: '' }),
});

t.test('access log on: every exchange has its start, observe times one in 8 per route', async (t) => {
  const t0 = 1_000;
  const m = new RequestMetrics(true, 1, () => t0 + 3); // every answer 3 ms after its start
  const a = route('/a');
  const b = route('/b');
  for (let i = 0; i < 17; i++) m.observe(a, 200, t0, undefined);
  m.observe(a, 503, t0, 'QUEUE_FULL');
  m.observe(a, 499, t0, undefined);
  m.observe(b, 404, t0, 'NOT_FOUND');
  const [ra, rb] = m.routes();
  t.same(ra!.byClass, [0, 17, 0, 1, 1], 'exact counts by class (499 is 4xx)');
  t.equal(ra!.count, Math.ceil(19 / LATENCY_SAMPLE), 'answers 1, 9, 17 timed');
  t.ok(Math.abs(ra!.sumSeconds - 0.009) < 1e-12, 'three answers of 3 ms each');
  const le5ms = LATENCY_BUCKETS.indexOf(0.005);
  t.equal(ra!.buckets[le5ms], 3, '3 ms lands at le=0.005 (cumulative)');
  t.equal(ra!.buckets[le5ms - 1], 0);
  t.equal(ra!.buckets.at(-1), ra!.count, '+Inf is the count');
  t.same(
    rb,
    { route: '/b', method: 'GET', byClass: [0, 0, 0, 1, 0], buckets: rb!.buckets, count: 1, sumSeconds: rb!.sumSeconds },
    'the routes grew past the initial capacity',
  );
  t.same(
    [...m.errors()],
    [
      ['QUEUE_FULL', 1],
      ['NOT_FOUND', 1],
    ],
  );
});

t.test('access log off: the server asks timeNext, and observe times exactly those', async (t) => {
  const m = new RequestMetrics(false);
  const a = route('/a');
  const timed = Array.from({ length: 16 }, () => m.timeNext(a));
  t.equal(timed.filter(Boolean).length, 2);
  t.equal(timed[0], true, 'the first one');
  for (const yes of timed) m.observe(a, 200, yes ? performance.now() : 0, undefined);
  t.equal(m.routes()[0]!.count, 2);
  t.equal(m.routes()[0]!.byClass[1], 16);
});

t.test("server.threads: an HTTP worker thread's totals are added to this thread's, the latest of each thread replacing its previous ones", async (t) => {
  const m = new RequestMetrics(true);
  const a = route('/a');
  m.observe(a, 200, 0, undefined);
  m.observe(a, 404, 0, 'NOT_FOUND');
  const worker = new RequestMetrics(true);
  worker.observe(a, 200, 0, undefined);
  worker.observe(route('/only-there'), 429, 0, 'RATE_LIMITED');
  m.absorbThread(1, worker.routes(), [...worker.errors()]);
  worker.observe(a, 200, 0, undefined);
  m.absorbThread(1, worker.routes(), [...worker.errors()]);
  const [ra, rOnly] = m.routes();
  t.same(ra!.byClass, [0, 3, 0, 1, 0], "own 2xx + the worker's latest 2, not 1 + 2");
  t.same(rOnly!.byClass, [0, 0, 0, 1, 0], 'a route only the worker answered');
  t.same([...m.errors()].sort(), [
    ['NOT_FOUND', 1],
    ['RATE_LIMITED', 1],
  ]);
  t.same(m.routes()[0]!.byClass, [0, 3, 0, 1, 0], 'reading twice adds nothing');
});
