import t from 'tap';
import { request } from 'undici';
import { startApp } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';

t.test('HEAD on a GET route: same status and headers, no body (RFC 9110 §9.3.2)', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const get = await request(`${s.url}/t/public?q=x`);
  const body = await get.body.text();
  const head = await request(`${s.url}/t/public?q=x`, { method: 'HEAD' });
  t.equal(head.statusCode, 200);
  t.equal(head.headers['content-length'], String(Buffer.byteLength(body)), 'the length the GET body has');
  t.equal(head.headers['etag'], get.headers['etag']);
  t.equal(await head.body.text(), '', 'no body');
  const health = await request(`${s.url}/health`, { method: 'HEAD' });
  t.equal(health.statusCode, 200);
  await health.body.dump();
  const post = await request(`${s.url}/t/echo`, { method: 'HEAD' });
  t.equal(post.statusCode, 405, 'HEAD is not added to POST routes');
  t.equal(post.headers['allow'], 'POST');
  await post.body.dump();
  const put = await request(`${s.url}/t/public`, { method: 'PUT' });
  t.equal(put.headers['allow'], 'GET, HEAD, OPTIONS', 'a public route answers CORS preflights too');
  await put.body.dump();
});
