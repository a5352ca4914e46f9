/** A trailing `/` names the same resource: answered exactly as the path without it, on every route. */
import t from 'tap';
import { request } from 'undici';
import { statsApp } from '../fixtures/stats/stats-app.js';
import { TEST_KEY } from '../helpers/app.js';

t.test('GET, HEAD and 405 with a trailing slash, as without', async (t) => {
  const { s, get } = await statsApp(t, { blocks: 2 });
  for (const path of [
    '/api/v1/mainnet/summary',
    '/api/v1/mainnet/block?height=1',
    '/api/v1/mainnet/recent-transactions?limit=1',
    '/health',
    '/api/openapi.json',
  ]) {
    const [bare, query = ''] = path.split('?');
    const plain = await get(path);
    const slashed = await get(`${bare}/${query ? `?${query}` : ''}`);
    t.equal(plain.status, 200, path);
    t.strictSame([slashed.status, slashed.json], [plain.status, plain.json], `${bare}/ answers as ${bare}`);
    t.equal(slashed.headers['etag'], plain.headers['etag'], `${bare}/: same validator`);
  }
  const keyed = await get('/health/', { 'x-api-key': TEST_KEY });
  t.ok((keyed.json as { components?: object }).components, '/health/ with a key: the full report, as /health');
  const head = await request(`${s.url}/api/v1/mainnet/latest-block/`, { method: 'HEAD' });
  await head.body.dump();
  t.equal(head.statusCode, 200, 'HEAD too');
  const put = await request(`${s.url}/api/v1/mainnet/summary/`, { method: 'PUT' });
  t.strictSame(
    [put.statusCode, put.headers['allow'], ((await put.body.json()) as { code: string }).code],
    [405, 'GET, HEAD, OPTIONS', 'METHOD_NOT_ALLOWED'],
    'another method: 405 with Allow',
  );
  const unknown = await get('/api/v1/mainnet/nothing-here/');
  t.strictSame(
    [unknown.status, unknown.json],
    [404, { error: 'Not Found', message: 'No route for GET /api/v1/mainnet/nothing-here/', code: 'NOT_FOUND' }],
    'an unknown path stays 404',
  );
  t.equal((await get('/api/v1/mainnet/summary//')).status, 404, 'one slash only');
});
