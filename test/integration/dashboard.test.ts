/**
 * The pages without a browser (test/browser/ drives them in Chromium): every page carries its
 * Content-Security-Policy and loads only files this server serves (/docs: docs-page.test.ts); the
 * push WebSocket lets this server's own pages in and others out.
 */
import t from 'tap';
import { request } from 'undici';
import WebSocket from 'ws';
import { startApp } from '../helpers/app.js';
import type { Module } from '../../src/infra/app-context.js';

/** A push topic, as the statistics module declares one: the welcome is all the test needs. */
const topic: Module = (ctx) => ctx.addTopic({ url: '/t/:network/ws', topicFor: () => 'tick', welcome: () => 'hello' });

t.test('pages, assets and their policies', async (t) => {
  const s = await startApp({}, { modules: [topic] });
  t.teardown(() => s.close());

  for (const path of ['/', '/api']) {
    const r = await request(`${s.url}${path}`);
    t.equal(r.statusCode, 200, path);
    t.match(r.headers['content-security-policy'], /script-src 'self';/, `${path}: scripts from this server only`);
    t.notMatch(r.headers['content-security-policy'], /unsafe-(inline|eval)/, `${path}: nothing inline, nothing eval'd`);
    const html = await r.body.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    const assets = refs.filter((u) => u.startsWith('/assets/'));
    t.ok(assets.length >= 4, `${path}: ${assets.length} assets`);
    if (path === '/') {
      // Each script defines its part on `window.nightgate` for the ones after it: the shared helpers
      // first, the chart before the dashboard, the operator's tables before the operator panel.
      const scripts = assets.filter((a) => a.includes('.js?')).map((a) => a.slice('/assets/'.length, a.indexOf('?')));
      t.strictSame(
        scripts,
        ['uplot.js', 'dashboard-helpers.js', 'dashboard-chart.js', 'dashboard.js', 'operator-tables.js', 'operator.js'],
        '/: its scripts, in order',
      );
    }
    t.strictSame(
      refs.filter((u) => !u.startsWith('/')),
      [],
      `${path}: every reference is on this server`,
    );
    for (const a of assets) {
      t.match(a, /\?v=[\w-]{10}$/, `${a}: named by its content`);
      const f = await request(`${s.url}${a}`, { headers: { 'accept-encoding': 'br' } });
      t.equal(f.statusCode, 200, a);
      t.match(f.headers['cache-control'], /max-age=604800/);
      await f.body.arrayBuffer();
    }
  }
  const bundle = await request(`${s.url}/assets/swagger-ui-bundle.js`, { headers: { 'accept-encoding': 'gzip' } });
  t.equal(bundle.headers['content-encoding'], 'gzip', 'the 1.7 MB bundle goes compressed');
  t.match(bundle.headers['content-type'], /text\/javascript/);
  await bundle.body.arrayBuffer();
  for (const bad of ['/assets/nope.js', '/assets/..%2Fpackage.json', '/assets/constructor']) {
    const r = await request(`${s.url}${bad}`);
    t.equal(r.statusCode, 404, bad);
    await r.body.arrayBuffer();
  }

  const doc = (await (await request(`${s.url}/api/openapi.json`)).body.json()) as { paths: Record<string, unknown> };
  for (const p of ['/', '/api', '/api/reference', '/docs']) t.ok(doc.paths[p], `${p} in the OpenAPI document`);
  t.notOk(doc.paths['/assets/{file}'], 'the assets are not API routes');
});

t.test("the push WebSocket: this server's own pages may open it, other sites may not", async (t) => {
  const s = await startApp({ server: { corsOrigins: [] } }, { modules: [topic] });
  t.teardown(() => s.close());
  const open = (origin: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`${s.url.replace('http', 'ws')}/t/preview/ws`, { origin });
      ws.on('message', (m) => {
        ws.close();
        resolve(`message ${String(m)}`);
      });
      ws.on('unexpected-response', (_req, res) => {
        res.resume();
        resolve(`refused ${res.statusCode}`);
      });
      ws.on('error', reject);
    });
  t.equal(await open(s.url), 'message hello', 'the dashboard, served from here');
  t.equal(await open('http://evil.example'), 'refused 403', 'a page of another site');
  t.equal(await open(s.url.replace('127.0.0.1', 'localhost')), 'refused 403', 'another name of the same machine is another origin');
});
