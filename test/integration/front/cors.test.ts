/**
 * Browsers may read the public routes from other origins (server.corsOrigins,
 * default any), keyed routes get no CORS, OPTIONS preflights are answered, and the push WebSocket
 * has an Origin policy and a per-IP connection cap.
 */
import t, { type Test } from 'tap';
import { once } from 'node:events';
import { request } from 'undici';
import { WebSocket } from 'ws';
import { startApp, TEST_KEY, type TestApp } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';
import type { ConfigInput } from '../../../src/core/config/index.js';
import type { Module } from '../../../src/infra/app-context.js';

const DASH = 'https://dash.example';
const topic: Module = (ctx) => ctx.addTopic({ url: '/t/ws', topicFor: () => 'summary', welcome: () => '{"hello":1}' });

async function app(t: Test, overrides: ConfigInput = {}): Promise<TestApp> {
  const s = await startApp(overrides, { modules: [testRoutes().module, topic] });
  t.teardown(() => s.close());
  return s;
}

const preflight = (url: string, origin = DASH) =>
  request(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match, x-client-id' },
  });

t.test('default: any origin may read public GETs; keyed routes get no CORS', async (t) => {
  const s = await app(t);
  const pub = await request(`${s.url}/t/public`, { headers: { origin: DASH } });
  t.equal(pub.statusCode, 200);
  t.equal(pub.headers['access-control-allow-origin'], '*');
  t.match(pub.headers['access-control-expose-headers'], /ETag/);
  t.match(pub.headers['access-control-expose-headers'], /RateLimit-Policy/);
  t.equal(pub.headers['vary'], undefined, 'no Vary: the answer is the same for every origin');
  await pub.body.dump();

  const keyed = await request(`${s.url}/t/keyed`, { headers: { origin: DASH, 'x-api-key': TEST_KEY } });
  t.equal(keyed.statusCode, 200);
  t.equal(keyed.headers['access-control-allow-origin'], undefined);
  await keyed.body.dump();

  const pf = await preflight(`${s.url}/t/public`);
  t.equal(pf.statusCode, 204);
  t.equal(pf.headers['access-control-allow-origin'], '*');
  t.equal(pf.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
  t.match(pf.headers['access-control-allow-headers'], /If-None-Match/);
  t.match(pf.headers['access-control-allow-headers'], /X-Client-ID/);
  t.equal(pf.headers['access-control-max-age'], '600');
  t.equal(pf.headers['content-length'] ?? '0', '0');
  t.equal(await pf.body.text(), '');

  const pfKeyed = await preflight(`${s.url}/t/keyed`);
  t.equal(pfKeyed.statusCode, 405, 'no preflight for keyed routes');
  t.equal(pfKeyed.headers['access-control-allow-origin'], undefined);
  await pfKeyed.body.dump();

  const limited = await request(`${s.url}/t/public`, { method: 'PUT', headers: { origin: DASH } });
  t.equal(limited.statusCode, 405);
  t.equal(limited.headers['allow'], 'GET, HEAD, OPTIONS');
  await limited.body.dump();
});

t.test('a list of origins: echoed when listed, with Vary: Origin', async (t) => {
  const s = await app(t, { server: { corsOrigins: [DASH] } });
  const ok = await request(`${s.url}/t/public`, { headers: { origin: DASH } });
  t.equal(ok.headers['access-control-allow-origin'], DASH);
  t.equal(ok.headers['vary'], 'Origin');
  await ok.body.dump();
  const other = await request(`${s.url}/t/public`, { headers: { origin: 'https://evil.example' } });
  t.equal(other.statusCode, 200, 'served (CORS is for the browser to enforce)');
  t.equal(other.headers['access-control-allow-origin'], undefined);
  t.equal(other.headers['vary'], 'Origin');
  await other.body.dump();
  const pf = await preflight(`${s.url}/t/public`, 'https://evil.example');
  t.equal(pf.statusCode, 204);
  t.equal(pf.headers['access-control-allow-origin'], undefined, 'no permission for an unlisted origin');
  await pf.body.dump();
  const pfOk = await preflight(`${s.url}/t/public`);
  t.equal(pfOk.headers['access-control-allow-origin'], DASH);
  t.equal(pfOk.headers['vary'], 'Origin');
  await pfOk.body.dump();
});

t.test('no origins: no CORS at all, OPTIONS is 405', async (t) => {
  const s = await app(t, { server: { corsOrigins: [] } });
  const r = await request(`${s.url}/t/public`, { headers: { origin: DASH } });
  t.equal(r.headers['access-control-allow-origin'], undefined);
  await r.body.dump();
  const pf = await preflight(`${s.url}/t/public`);
  t.equal(pf.statusCode, 405);
  await pf.body.dump();
});

async function connect(port: number, origin?: string): Promise<{ ws: WebSocket; status: number }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/t/ws`, origin ? { origin } : {});
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, status: 101 }));
    ws.once('unexpected-response', (req, res) => {
      req.destroy();
      resolve({ ws, status: res.statusCode ?? 0 });
    });
    ws.once('error', reject);
  });
}

t.test('push WebSocket: Origin policy and a per-IP connection cap', async (t) => {
  const s = await app(t, { server: { corsOrigins: [DASH], wsConnectionsPerIp: 3 } });
  t.equal((await connect(s.port, 'https://evil.example')).status, 403, 'a browser page from an unlisted origin');
  const open = [];
  open.push(await connect(s.port, DASH), await connect(s.port), await connect(s.port));
  t.same(
    open.map((c) => c.status),
    [101, 101, 101],
    'a listed origin, and clients that send none',
  );
  t.equal((await connect(s.port)).status, 429, 'the fourth from the same address');
  const first = open[0]!.ws;
  const closed = once(first, 'close');
  first.close();
  await closed;
  // The server counts the close when it sees it; a new connection may race it, so retry until admitted.
  let again = await connect(s.port);
  for (let i = 0; i < 50 && again.status === 429; i++) again = await connect(s.port);
  t.equal(again.status, 101, 'a slot is free again after a close');
  for (const c of [...open.slice(1), again]) c.ws.close();
});

t.test('the OpenAPI description says so: CORS headers on public GETs, the preflight once in its description, not as operations', async (t) => {
  const s = await app(t);
  const doc = (await (await request(`${s.url}/api/openapi.json`)).body.json()) as {
    info: { description: string };
    paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  };
  t.ok(doc.paths['/t/public']!['get']!.responses['200']!.headers!['Access-Control-Allow-Origin']);
  t.match(doc.info.description, /every public GET route \(those without security\) also answers its preflight, `OPTIONS` with 204/);
  t.same(
    Object.values(doc.paths)
      .flatMap((ops) => Object.keys(ops))
      .filter((m) => m === 'options'),
    [],
    'no preflight listed as an operation',
  );
  t.notOk(doc.paths['/t/keyed']!['get']!.responses['200']!.headers?.['Access-Control-Allow-Origin']);
});
