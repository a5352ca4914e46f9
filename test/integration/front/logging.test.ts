import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';

t.test('one access-log line per request with route, status, duration, ids — never the key', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const r1 = await request(`${s.url}/t/keyed`, {
    headers: { 'x-api-key': TEST_KEY, 'x-client-id': 'c-1', 'x-client-name': 'Wallet One', 'x-request-id': 'req-abc' },
  });
  t.equal(r1.headers['x-request-id'], 'req-abc', 'a sane X-Request-Id is kept');
  await r1.body.dump();
  const r2 = await request(`${s.url}/t/keyed`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.match(r2.headers['x-request-id'], /^[0-9a-f]{8}-[0-9a-z]+$/, 'otherwise one is generated');
  await r2.body.dump();
  const r3 = await request(`${s.url}/t/keyed`, { headers: { 'x-api-key': 'wrong-key-but-secret-123' } });
  await r3.body.dump();

  const access = s.logs.lines.filter((l) => l['msg'] === 'request');
  t.equal(access.length, 3);
  t.match(access[0], {
    reqId: 'req-abc',
    method: 'GET',
    route: '/t/keyed',
    path: '/t/keyed',
    status: 200,
    ip: '127.0.0.1',
    keyId: 'env-1',
    clientId: 'c-1',
    clientName: 'Wallet One',
    module: 'http',
  });
  t.type(access[0]!['ms'], 'number');
  t.match(access[2], { status: 401, keyId: undefined });
  const text = s.logs.text();
  t.notOk(text.includes(TEST_KEY), 'the raw key is in no log line');
  t.notOk(text.includes('wrong-key-but-secret-123'), 'nor is a rejected key');
});

t.test('pino redacts authorization and x-api-key wherever a module logs headers', async (t) => {
  const { captureLogs } = await import('../../helpers/app.js');
  const c = captureLogs();
  c.logger.info({ req: { headers: { authorization: 'Bearer s3cret', 'x-api-key': 's3cret2' } }, headers: { authorization: 'Bearer s3cret3' } }, 'x');
  const text = c.text();
  t.notOk(/s3cret/.test(text));
  t.match(c.lines[0], { req: { headers: { authorization: '[redacted]', 'x-api-key': '[redacted]' } } });
});

t.test('log.requests=errors logs only failures', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ log: { requests: 'errors' } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  await (await request(`${s.url}/t/public`)).body.dump();
  await (await request(`${s.url}/t/keyed`)).body.dump();
  const access = s.logs.lines.filter((l) => l['msg'] === 'request');
  t.same(
    access.map((l) => l['status']),
    [401],
  );
});

t.test('log.requests=aggregate (the default): keyed requests and errors get lines, public answers are counted', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ log: { requests: 'aggregate' } }, { modules: [routes.module] });
  let closed = false;
  t.teardown(() => (closed ? undefined : s.close()));
  for (let i = 0; i < 3; i++) await (await request(`${s.url}/t/public`)).body.dump();
  await (await request(`${s.url}/t/keyed`, { headers: { 'x-api-key': TEST_KEY } })).body.dump();
  await (await request(`${s.url}/t/keyed`)).body.dump();
  await (await request(`${s.url}/nope`)).body.dump();
  const access = s.logs.lines.filter((l) => l['msg'] === 'request');
  t.same(
    access.map((l) => [l['route'], l['status']]),
    [
      ['/t/keyed', 200],
      ['/t/keyed', 401],
      ['(unmatched)', 404],
    ],
    'no line of its own for a public 200',
  );
  await s.close();
  closed = true;
  const counted = s.logs.lines.filter((l) => l['msg'] === 'requests');
  t.equal(counted.length, 1, 'the counts are written at shutdown at the latest');
  t.match(counted[0], { total: 3, routes: { '/t/public': { 200: 3 } }, module: 'http', level: 30 });
  t.type(counted[0]!['windowMs'], 'number');
});
