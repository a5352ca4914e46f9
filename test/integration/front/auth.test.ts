import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY, OTHER_KEY } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';
import { sha256Hex } from '../../../src/core/guards/auth.js';

t.test('API key: X-API-Key and Bearer accepted; missing, wrong, wrong-length and revoked get the same 401', async (t) => {
  const routes = testRoutes();
  const revoked = 'revoked-key-0123456789';
  const s = await startApp(
    {
      auth: {
        keys: [
          { id: 'gone', sha256: sha256Hex(revoked), revoked: true },
          { id: 'ops', sha256: sha256Hex('ops-key-0123456789'), name: 'Ops team' },
        ],
      },
    },
    { modules: [routes.module] },
  );
  t.teardown(() => s.close());

  const viaHeader = await request(`${s.url}/t/keyed`, { headers: { 'x-api-key': TEST_KEY, 'x-client-id': 'wallet-7' } });
  t.equal(viaHeader.statusCode, 200);
  t.same(await viaHeader.body.json(), { key: 'env-1', client: 'wallet-7' });

  const viaBearer = await request(`${s.url}/t/keyed`, { headers: { authorization: `Bearer ${OTHER_KEY}` } });
  t.equal(viaBearer.statusCode, 200);
  t.same(await viaBearer.body.json(), { key: 'env-2', client: null });

  const fromFile = await request(`${s.url}/t/keyed`, { headers: { authorization: 'bearer ops-key-0123456789' } });
  t.same(await fromFile.body.json(), { key: 'ops', client: null }, 'hashed key from the config file');

  const bodies = new Set<string>();
  for (const headers of [
    {},
    { 'x-api-key': 'wrong-key-0123456789abcdef' },
    { 'x-api-key': 'x' },
    { 'x-api-key': revoked },
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer ' },
  ]) {
    const r = await request(`${s.url}/t/keyed`, { headers });
    t.equal(r.statusCode, 401, JSON.stringify(headers));
    t.equal(r.headers['www-authenticate'], 'Bearer realm="nightgate"');
    t.equal(r.headers['x-ratelimit-limit'], undefined, 'rejected auth counts against no quota');
    bodies.add(await r.body.text());
  }
  t.same([...bodies], ['{"error":"Unauthorized","message":"Missing or invalid API key","code":"UNAUTHORIZED"}'], 'one identical body for every failure');

  const pub = await request(`${s.url}/t/public`);
  t.equal(pub.statusCode, 200, 'public routes need no key');
  await pub.body.dump();
});

t.test('trusted networks are let in without a key', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ auth: { trustedNetworks: ['127.0.0.0/8'] } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  const r = await request(`${s.url}/t/keyed`);
  t.equal(r.statusCode, 200);
  t.same(await r.body.json(), { key: 'trusted:127.0.0.0/8', client: null });
});

t.test('with no key configured at all, start-up mints a development key and prints it once', async (t) => {
  const routes = testRoutes();
  const printed: string[] = [];
  const s = await startApp({ auth: { apiKeys: [] } }, { modules: [routes.module], print: (l) => printed.push(l) });
  t.teardown(() => s.close());
  t.equal(printed.length, 1);
  const key = /development key \(a new one each start; set NIGHTGATE_DEVNET_STATE_DIR to keep it\): (ngk_\S+)/.exec(printed[0]!)?.[1];
  t.ok(key, 'the line carries the key');
  const r = await request(`${s.url}/t/keyed`, { headers: { 'x-api-key': key! } });
  t.equal(r.statusCode, 200);
  t.same(await r.body.json(), { key: 'dev-generated', client: null });
  t.notOk(s.logs.text().includes(key!), 'the key is printed, never logged');
});
