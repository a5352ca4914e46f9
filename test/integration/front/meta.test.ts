import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';
import { mountStats } from '../../../src/features/stats/index.js';
import { mountProver } from '../../../src/features/proving/index.js';
import { mountSponsorship } from '../../../src/features/sponsorship/index.js';

t.test('/health (details with a key), /docs, /api and /api/openapi.json', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module, (ctx) => ctx.addComponent({ name: 'probe', health: () => ({ status: 'ok', detail: 1 }) })] });
  t.teardown(() => s.close());

  const h = await request(`${s.url}/health`, { headers: { 'x-api-key': TEST_KEY } });
  t.equal(h.statusCode, 200);
  const health = (await h.body.json()) as Record<string, unknown>;
  t.match(health, { status: 'ok', version: '1.0.0', components: { probe: { status: 'ok', detail: 1 } } });
  t.type(health['uptimeSeconds'], 'number');

  const spec = await request(`${s.url}/api/openapi.json`);
  t.equal(spec.statusCode, 200);
  const doc = (await spec.body.json()) as {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>;
  };
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
  t.ok(doc.paths['/t/keyed']?.['get'], 'routes are generated from the route records');
  t.same(doc.paths['/t/keyed']!['get']!.security, [{ ApiKeyHeader: [] }, { BearerAuth: [] }]);
  t.same(doc.paths['/t/public']!['get']!.security, []);

  for (const path of ['/', '/api', '/api/reference', '/docs']) {
    const r = await request(`${s.url}${path}`);
    t.equal(r.statusCode, 200);
    t.match(r.headers['content-type'], /text\/html/);
    const html = await r.body.text();
    t.match(html, /<!doctype html>/);
    t.notMatch(html, /https?:\/\/cdn|<script(?! src="\/assets\/)/i, 'served from local content, no CDN, no inline script');
    t.match(r.headers['content-security-policy'], /default-src 'none'/);
  }
});

t.test('every route of both APIs is in the OpenAPI document', async (t) => {
  const s = await startApp(
    {
      networks: {
        mainnet: { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream', proverUrl: 'http://127.0.0.1:9' },
        preprod: { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream', proverUrl: 'http://127.0.0.1:9' },
        preview: { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream', proverUrl: 'http://127.0.0.1:9' },
      },
    },
    { modules: [mountStats, mountProver, mountSponsorship] },
  );
  t.teardown(() => s.close());
  const doc = (await (await request(`${s.url}/api/openapi.json`)).body.json()) as { paths: Record<string, unknown> };
  const stats = [
    'summary',
    'latest-block',
    'block-time',
    'blocks-produced',
    'uptime',
    'epoch',
    'd-parameter',
    'night-supply',
    'search',
    'recent-transactions',
    'block',
    'transaction',
    'contract',
    'address-activity',
  ];
  for (const r of stats) t.ok(doc.paths[`/api/v1/{network}/${r}`], r);
  for (const r of ['/prove', '/verify', '/prove-and-balance', '/balance-only', '/health', '/docs', '/api', '/api/openapi.json']) t.ok(doc.paths[r], r);
});
