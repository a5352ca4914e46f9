/**
 * Failed authentications are limited per client IP. Past `auth.failureLimit`
 * failures in a window, keyed requests from that IP get 429 with Retry-After and the rate-limit
 * headers, without the key being looked at; valid requests never count, other IPs are untouched.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';
import { ManualClock } from '../../helpers/manual-clock.js';

const WRONG = { 'x-api-key': 'wrong-key-0123456789abcdef' };

t.test('N failures per window, then 429 with Retry-After and the rate-limit headers', async (t) => {
  const routes = testRoutes();
  const clock = new ManualClock(1_700_000_000_000); // its 60 s window ends at +40 s
  const s = await startApp(
    { server: { trustedProxies: ['127.0.0.1/32'] }, auth: { failureLimit: 3, failureWindowMs: 60_000 }, rateLimit: { algorithm: 'fixed' } },
    { modules: [routes.module], clock },
  );
  t.teardown(() => s.close());
  const from = (ip: string, headers: Record<string, string>) => request(`${s.url}/t/keyed`, { headers: { ...headers, 'x-forwarded-for': ip } });

  for (let i = 0; i < 5; i++) {
    const ok = await from('203.0.113.1', { 'x-api-key': TEST_KEY });
    t.equal(ok.statusCode, 200);
    await ok.body.dump();
  }
  const codes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await from('203.0.113.1', WRONG);
    codes.push(r.statusCode);
    t.equal(r.headers['x-ratelimit-limit'], undefined, 'a 401 stays the one uniform answer');
    await r.body.dump();
  }
  t.same(codes, [401, 401, 401], 'valid requests before did not count as failures');

  clock.advance(2_000);
  const limited = await from('203.0.113.1', WRONG);
  t.equal(limited.statusCode, 429);
  t.equal(limited.headers['retry-after'], '38');
  t.equal(limited.headers['x-ratelimit-limit'], '3');
  t.equal(limited.headers['x-ratelimit-remaining'], '0');
  t.equal(limited.headers['ratelimit-policy'], '"auth";q=3;w=60');
  t.equal(limited.headers['www-authenticate'], undefined);
  t.same(await limited.body.json(), {
    error: 'Too Many Requests',
    message: 'Too many failed authentications from this address; retry after 38 s',
    code: 'TOO_MANY_AUTH_FAILURES',
  });

  const keyed = await from('203.0.113.1', { 'x-api-key': TEST_KEY });
  t.equal(keyed.statusCode, 429, 'the key is not even looked at from a throttled address (no validity oracle)');
  await keyed.body.dump();
  const other = await from('203.0.113.2', { 'x-api-key': TEST_KEY });
  t.equal(other.statusCode, 200, 'another address is untouched');
  await other.body.dump();
  const otherWrong = await from('203.0.113.2', WRONG);
  t.equal(otherWrong.statusCode, 401, 'and has its own failure budget');
  await otherWrong.body.dump();
  const pub = await request(`${s.url}/t/public`, { headers: { 'x-forwarded-for': '203.0.113.1' } });
  t.equal(pub.statusCode, 200, 'public routes need no key and are not throttled by it');
  await pub.body.dump();

  clock.advance(38_000);
  const again = await from('203.0.113.1', { 'x-api-key': TEST_KEY });
  t.equal(again.statusCode, 200, 'admitted again at the reset');
  await again.body.dump();
});

t.test('a flood of wrong keys is answered 429 after the limit, and memory stays bounded', async (t) => {
  const routes = testRoutes();
  const s = await startApp(
    { server: { trustedProxies: ['127.0.0.1/32'] }, auth: { failureLimit: 5 }, rateLimit: { maxEntries: 50 } },
    { modules: [routes.module], clock: new ManualClock(0) },
  );
  t.teardown(() => s.close());
  const statuses = new Map<number, number>();
  for (let i = 0; i < 200; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, (_, j) => request(`${s.url}/t/keyed`, { headers: { 'x-api-key': `guess-${i + j}-0123456789` } })),
    );
    for (const r of batch) {
      statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1);
      await r.body.dump();
    }
  }
  t.same(Object.fromEntries(statuses), { 401: 5, 429: 195 }, 'one address: 5 guesses evaluated, the rest refused');

  for (let i = 0; i < 500; i++) {
    const r = await request(`${s.url}/t/keyed`, { headers: { ...WRONG, 'x-forwarded-for': `10.0.${i >> 8}.${i & 255}` } });
    await r.body.dump();
  }
  const tracked = (s.app.server as unknown as { opts: { authFailures: { size: number } } }).opts.authFailures.size;
  t.ok(tracked <= 50, `${tracked} addresses tracked after 500 (cap 50)`);
});

t.test('auth.failureLimit 0 turns the throttle off', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ auth: { failureLimit: 0 } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  for (let i = 0; i < 150; i++) {
    const r = await request(`${s.url}/t/keyed`, { headers: WRONG });
    if (r.statusCode !== 401) t.fail(`request ${i}: ${r.statusCode}`);
    await r.body.dump();
  }
  t.pass('150 failures, all 401');
});
