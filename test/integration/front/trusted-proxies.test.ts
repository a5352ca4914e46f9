/**
 * Behind trusted proxies the client address is the first X-Forwarded-For hop
 * (from the right) outside them, and it is only ever an IP literal.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { loadConfig } from '../../../src/core/config/index.js';

const call = async (url: string, headers: Record<string, string>): Promise<number> => {
  const r = await request(url, { headers });
  await r.body.dump();
  return r.statusCode;
};

t.test('a forged left entry reaches neither auth.trustedNetworks nor another quota', async (t) => {
  const routes = testRoutes();
  const s = await startApp(
    { server: { trustedProxies: ['127.0.0.1/32'] }, auth: { trustedNetworks: ['10.0.0.0/8'] }, rateLimit: { publicLimit: 2 } },
    { modules: [routes.module], clock: new ManualClock(0) },
  );
  t.teardown(() => s.close());
  // The proxy (this test, on 127.0.0.1) appended the real client 203.0.113.9.
  t.equal(await call(`${s.url}/t/keyed`, { 'x-forwarded-for': '10.1.2.3, 203.0.113.9' }), 401, 'the forged 10.1.2.3 is not the client');
  t.equal(await call(`${s.url}/t/keyed`, { 'x-forwarded-for': '10.1.2.3' }), 200, 'a client inside the trusted network, through the proxy');
  const quota = [];
  for (const forged of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
    quota.push(await call(`${s.url}/t/public`, { 'x-forwarded-for': `${forged}, 203.0.113.9` }));
  t.same(quota, [200, 200, 429], 'changing the forged part does not buy a new per-IP quota');
  t.equal(await call(`${s.url}/t/public`, { 'x-forwarded-for': '203.0.113.10' }), 200, 'another client has its own');
  const ips = s.logs.lines.filter((l) => l['msg'] === 'request').map((l) => l['ip']);
  t.same(ips, ['203.0.113.9', '10.1.2.3', '203.0.113.9', '203.0.113.9', '203.0.113.9', '203.0.113.10']);
});

t.test('X-Forwarded-For split over several header lines is read whole (HAProxy adds its own line)', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ server: { trustedProxies: ['127.0.0.1/32'] } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  const r = await request(`${s.url}/t/public`, { headers: ['x-forwarded-for', '10.9.9.9', 'x-forwarded-for', '203.0.113.77'] });
  await r.body.dump();
  t.equal(s.logs.lines.find((l) => l['msg'] === 'request')?.['ip'], '203.0.113.77');
});

t.test('a value that is not an IP literal is never stored as the client address', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ server: { trustedProxies: ['127.0.0.1/32'] } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  await call(`${s.url}/t/public`, { 'x-forwarded-for': '<script>alert(1)</script>' });
  await call(`${s.url}/t/public`, { 'x-forwarded-for': `${'a'.repeat(300)}` });
  const ips = s.logs.lines.filter((l) => l['msg'] === 'request').map((l) => l['ip']);
  t.same(ips, ['127.0.0.1', '127.0.0.1'], 'the socket address instead');
});

t.test('without trusted proxies the header is ignored', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  await call(`${s.url}/t/public`, { 'x-forwarded-for': '203.0.113.9' });
  t.equal(s.logs.lines.find((l) => l['msg'] === 'request')?.['ip'], '127.0.0.1');
});

t.test('config: NIGHTGATE_TRUSTED_PROXIES is a CIDR list; the old boolean is an error naming the new setting', async (t) => {
  t.same(loadConfig({ env: { NIGHTGATE_TRUSTED_PROXIES: '127.0.0.1/32, 10.0.0.0/8' } }).server.trustedProxies, ['127.0.0.1/32', '10.0.0.0/8']);
  t.same(loadConfig({ env: {} }).server.trustedProxies, []);
  t.throws(() => loadConfig({ env: { NIGHTGATE_TRUSTED_PROXIES: 'proxy.local' } }), /server\.trustedProxies \(NIGHTGATE_TRUSTED_PROXIES\).*not a CIDR/);
  t.throws(() => loadConfig({ env: { NIGHTGATE_TRUST_PROXY: 'true' } }), /NIGHTGATE_TRUST_PROXY.*NIGHTGATE_TRUSTED_PROXIES/);
});
