/**
 * /metrics: Prometheus text with the per-request series, access by network and key,
 * and the separate listener of `metrics.listen`.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';
import { sample } from '../../helpers/metrics-text.js';

t.test('/metrics on the main port: request series by route and status class, errors by code', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  for (let i = 0; i < 3; i++) await (await request(`${s.url}/livez`)).body.dump();
  await (await request(`${s.url}/no/such/path`)).body.dump();
  await (await request(`${s.url}/t/keyed`)).body.dump();

  const res = await request(`${s.url}/metrics`);
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  t.equal(res.headers['cache-control'], 'no-store');
  const text = await res.body.text();
  t.equal(sample(text, 'nightgate_http_requests_total', { route: '/livez', method: 'GET', status_class: '2xx' }), 3);
  t.equal(
    sample(text, 'nightgate_http_request_duration_seconds_count', { route: '/livez', method: 'GET' }),
    1,
    'latency: one answer in 8 per route, the first included',
  );
  t.equal(sample(text, 'nightgate_http_request_duration_seconds_bucket', { route: '/livez', method: 'GET', le: '+Inf' }), 1);
  t.ok((sample(text, 'nightgate_http_request_duration_seconds_sum', { route: '/livez', method: 'GET' }) ?? -1) > 0);
  t.equal(sample(text, 'nightgate_http_requests_total', { route: '(unmatched)', status_class: '4xx' }), 1, 'unknown paths share one label');
  t.equal(sample(text, 'nightgate_http_errors_total', { code: 'NOT_FOUND', status: '404' }), 1);
  t.equal(sample(text, 'nightgate_http_errors_total', { code: 'UNAUTHORIZED', status: '401' }), 1);
  t.notMatch(text, /no\/such\/path/, 'paths are never labels');
  t.ok((sample(text, 'nodejs_eventloop_lag_p99_seconds') ?? -1) >= 0, 'event-loop delay');
  t.equal(sample(text, 'nightgate_api_keys', { state: 'active' }), 2);
  t.equal(sample(text, 'nightgate_http_requests_in_flight'), 1, 'the scrape itself');

  // The scrape counts itself from the next one on.
  const again = await (await request(`${s.url}/metrics`)).body.text();
  t.equal(sample(again, 'nightgate_http_requests_total', { route: '/metrics', status_class: '2xx' }), 1);
});

t.test('outside metrics.allow: 403 unless the key is one of metrics.keyIds', async (t) => {
  const s = await startApp({ metrics: { allow: ['10.0.0.0/8'], keyIds: ['env-1'] } });
  t.teardown(() => s.close());
  const anon = await request(`${s.url}/metrics`);
  t.equal(anon.statusCode, 403);
  t.match(await anon.body.json(), { code: 'FORBIDDEN' });
  const other = await request(`${s.url}/metrics`, { headers: { 'x-api-key': 'other-key-0123456789abcdef' } });
  t.equal(other.statusCode, 403, 'a key not listed in metrics.keyIds');
  await other.body.dump();
  const wrong = await request(`${s.url}/metrics`, { headers: { 'x-api-key': 'not-a-key-at-all-xxxxxxxx' } });
  t.equal(wrong.statusCode, 401);
  await wrong.body.dump();
  const listed = await request(`${s.url}/metrics`, { headers: { 'x-api-key': TEST_KEY } });
  t.equal(listed.statusCode, 200);
  t.match(await listed.body.text(), /nightgate_http_requests_total/);
});

t.test('through a trusted proxy on loopback, the forwarded client is judged, not the proxy', async (t) => {
  const s = await startApp({ server: { trustedProxies: ['127.0.0.1/32'] } });
  t.teardown(() => s.close());
  const outside = await request(`${s.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
  t.equal(outside.statusCode, 403);
  await outside.body.dump();
  const local = await request(`${s.url}/metrics`);
  t.equal(local.statusCode, 200, 'the proxy host itself may scrape');
  await local.body.dump();
});

t.test('metrics.listen: /metrics on its own port only; metrics.enabled=false: none', async (t) => {
  const s = await startApp({ metrics: { listen: '127.0.0.1:0' } });
  t.teardown(() => s.close());
  const main = await request(`${s.url}/metrics`);
  t.equal(main.statusCode, 404, 'not on the main port');
  await main.body.dump();
  const line = s.logs.lines.find((l) => (l['msg'] === undefined ? false : /^metrics on http:\/\/127\.0\.0\.1:\d+\/metrics$/.test(String(l['msg']))));
  t.ok(line, 'the listener says where it is');
  const port = Number(/:(\d+)\/metrics$/.exec(String(line!['msg']))![1]);
  const own = await request(`http://127.0.0.1:${port}/metrics`);
  t.equal(own.statusCode, 200);
  t.equal(sample(await own.body.text(), 'nightgate_http_requests_total', { route: '(unmatched)', status_class: '4xx' }), 1, 'the main port counted its 404');

  const off = await startApp({ metrics: { enabled: false } });
  t.teardown(() => off.close());
  const none = await request(`${off.url}/metrics`);
  t.equal(none.statusCode, 404);
  await none.body.dump();
});

t.test('concurrent scrapes agree: no series is doubled or half-set', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  for (let i = 0; i < 4; i++) await (await request(`${s.url}/livez`)).body.dump();
  const texts = await Promise.all(Array.from({ length: 4 }, async () => (await request(`${s.url}/metrics`)).body.text()));
  for (const text of texts) {
    t.equal(sample(text, 'nightgate_http_requests_total', { route: '/livez', status_class: '2xx' }), 4);
    t.equal(sample(text, 'nightgate_api_keys', { state: 'active' }), 2);
  }
});
