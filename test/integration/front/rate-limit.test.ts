import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY, OTHER_KEY } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';
import { ManualClock } from '../../helpers/manual-clock.js';

t.test('per-key limit: headers on every response, 429 with Retry-After, reset under an injected clock', async (t) => {
  const routes = testRoutes();
  const clock = new ManualClock(1_700_000_000_000); // aligned to a 60 s window
  const s = await startApp({ rateLimit: { algorithm: 'fixed', limit: 3, windowMs: 60_000 } }, { modules: [routes.module], clock });
  t.teardown(() => s.close());
  const get = (key = TEST_KEY) => request(`${s.url}/t/keyed`, { headers: { 'x-api-key': key } });
  const resetSec = String(1_700_000_040);

  for (let i = 1; i <= 3; i++) {
    clock.advance(i === 1 ? 0 : 1000);
    const r = await get();
    t.equal(r.statusCode, 200);
    t.equal(r.headers['x-ratelimit-limit'], '3');
    t.equal(r.headers['x-ratelimit-remaining'], String(3 - i));
    t.equal(r.headers['x-ratelimit-reset'], resetSec);
    t.equal(r.headers['ratelimit-policy'], '"key";q=3;w=60');
    t.equal(r.headers['ratelimit'], `"key";r=${3 - i};t=${40 - (i - 1)}`);
    await r.body.dump();
  }
  // Window started at 1_699_999_980_000 (aligned to 60 s); now = +2 s.
  const denied = await get();
  t.equal(denied.statusCode, 429);
  t.equal(denied.headers['retry-after'], '38');
  t.equal(denied.headers['x-ratelimit-remaining'], '0');
  t.ok(
    Number(denied.headers['retry-after']) >= Number(denied.headers['x-ratelimit-reset']) - Math.floor(clock.now() / 1000),
    'Retry-After never before the reset',
  );
  t.same(await denied.body.json(), { error: 'Too Many Requests', message: 'Rate limit of 3 requests per 60 s exceeded', code: 'RATE_LIMITED' });

  const other = await get(OTHER_KEY);
  t.equal(other.statusCode, 200, "another key's quota is its own");
  await other.body.dump();

  for (let i = 0; i < 5; i++) (await request(`${s.url}/t/keyed`, { headers: { 'x-api-key': 'bogus-key-0123456789' } })).body.dump();
  clock.advance(38_000);
  const after = await get();
  t.equal(after.statusCode, 200, 'admitted again at the reset');
  t.equal(after.headers['x-ratelimit-remaining'], '2');
  await after.body.dump();
});

t.test('per-key override from the config file', async (t) => {
  const routes = testRoutes();
  const { sha256Hex } = await import('../../../src/core/guards/auth.js');
  const s = await startApp(
    { auth: { keys: [{ id: 'small', sha256: sha256Hex('small-key-0123456789'), rateLimit: { limit: 1, windowMs: 1000 } }] } },
    { modules: [routes.module], clock: new ManualClock(5_000) },
  );
  t.teardown(() => s.close());
  const a = await request(`${s.url}/t/keyed`, { headers: { 'x-api-key': 'small-key-0123456789' } });
  t.equal(a.headers['x-ratelimit-limit'], '1');
  await a.body.dump();
  const b = await request(`${s.url}/t/keyed`, { headers: { 'x-api-key': 'small-key-0123456789' } });
  t.equal(b.statusCode, 429);
  // Sliding window with limit 1: the hit at 5.0 s still weighs fully at 6.0 s and decays to zero at 7.0 s.
  t.equal(b.headers['retry-after'], '2');
  await b.body.dump();
});

t.test('public routes are limited per client IP', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ rateLimit: { publicLimit: 2 } }, { modules: [routes.module], clock: new ManualClock(0) });
  t.teardown(() => s.close());
  const codes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await request(`${s.url}/t/public`);
    codes.push(r.statusCode);
    t.equal(r.headers['ratelimit-policy'], '"ip";q=2;w=60');
    await r.body.dump();
  }
  t.same(codes, [200, 200, 429]);
});

t.test('behind a proxy, IPv6 clients share the public quota of their /64', async (t) => {
  const routes = testRoutes();
  const s = await startApp(
    { server: { trustedProxies: ['127.0.0.1/32'] }, rateLimit: { publicLimit: 2 } },
    { modules: [routes.module], clock: new ManualClock(0) },
  );
  t.teardown(() => s.close());
  const from = async (ip: string): Promise<number> => {
    const r = await request(`${s.url}/t/public`, { headers: { 'x-forwarded-for': ip } });
    await r.body.dump();
    return r.statusCode;
  };
  t.same(
    [await from('2001:db8:7:1::1'), await from('2001:db8:7:1::2'), await from('2001:db8:7:1:ffff::9')],
    [200, 200, 429],
    'three addresses of one /64: one quota',
  );
  t.equal(await from('2001:db8:7:2::1'), 200, 'the next /64 has its own');
  t.same([await from('198.51.100.1'), await from('198.51.100.2')], [200, 200], 'IPv4 addresses each have their own');
});
