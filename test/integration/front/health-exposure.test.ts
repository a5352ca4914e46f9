/**
 * /health tells an anonymous client only whether the server is up and its version; the details
 * (components, upstreams, sync, wallets, counts) need a valid API key or a client inside
 * `auth.trustedNetworks`, and every URL in them has its credentials and query string redacted.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';

const SECRET_URL = 'http://user:PASSWORD@10.9.8.7:8088/api/v4/graphql?apikey=TOKEN';
const probe = {
  name: 'probe',
  health: () => ({ status: 'ok' as const, url: SECRET_URL, lastError: `The indexer subscription at ${SECRET_URL.replace('http', 'ws')} closed`, free: 33 }),
};

async function health(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const r = await request(`${url}/health`, { headers });
  const text = await r.body.text();
  return { status: r.statusCode, body: JSON.parse(text) as Record<string, unknown>, text };
}

t.test('anonymous: status and version only', async (t) => {
  const s = await startApp({}, { modules: [(ctx) => ctx.addComponent(probe)] });
  t.teardown(() => s.close());
  const h = await health(s.url);
  t.equal(h.status, 200);
  t.strictSame(h.body, { status: 'ok', version: '1.0.0' });
  t.notMatch(h.text, /PASSWORD|TOKEN|10\.9\.8\.7|probe/);
});

t.test('with a valid key: every component, URLs redacted', async (t) => {
  const s = await startApp({}, { modules: [(ctx) => ctx.addComponent(probe)] });
  t.teardown(() => s.close());
  for (const headers of [{ 'x-api-key': TEST_KEY }, { authorization: `Bearer ${TEST_KEY}` }] as Array<Record<string, string>>) {
    const h = await health(s.url, headers);
    t.equal(h.status, 200);
    t.match(h.body, {
      status: 'ok',
      version: '1.0.0',
      components: { probe: { status: 'ok', free: 33, url: 'http://redacted@10.9.8.7:8088/api/v4/graphql?redacted' } },
    });
    t.match(
      (h.body['components'] as Record<string, Record<string, string>>)['probe']!['lastError'],
      'The indexer subscription at ws://redacted@10.9.8.7:8088/api/v4/graphql?redacted closed',
    );
    t.notMatch(h.text, /PASSWORD|TOKEN|apikey/);
  }
});

t.test('a wrong key is refused like on every keyed route, not answered as anonymous', async (t) => {
  const s = await startApp({}, { modules: [(ctx) => ctx.addComponent(probe)] });
  t.teardown(() => s.close());
  const r = await request(`${s.url}/health`, { headers: { 'x-api-key': 'wrong-key-0123456789' } });
  t.equal(r.statusCode, 401);
  t.notMatch(await r.body.text(), /probe|PASSWORD/);
});

t.test('from a trusted network, no key needed for the details', async (t) => {
  const s = await startApp({ auth: { apiKeys: [TEST_KEY], trustedNetworks: ['127.0.0.0/8'] } }, { modules: [(ctx) => ctx.addComponent(probe)] });
  t.teardown(() => s.close());
  const h = await health(s.url);
  t.match(h.body, { status: 'ok', components: { probe: { status: 'ok' } } });
  t.notMatch(h.text, /PASSWORD|TOKEN/);
});
