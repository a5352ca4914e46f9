import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';

t.test('404, 405, 413, 415 and errors are JSON in the route group shape', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const key = { 'x-api-key': TEST_KEY };

  const nf = await request(`${s.url}/nope/at/all`);
  t.equal(nf.statusCode, 404);
  t.match(nf.headers['content-type'], /application\/json/);
  t.same(await nf.body.json(), { error: 'Not Found', message: 'No route for GET /nope/at/all', code: 'NOT_FOUND' });

  const nfApi = await request(`${s.url}/api/v1/mainnet/nothing-here`);
  t.equal(nfApi.statusCode, 404);
  t.same(await nfApi.body.json(), { error: 'Not Found', message: 'No route for GET /api/v1/mainnet/nothing-here', code: 'NOT_FOUND' });

  const na = await request(`${s.url}/t/echo`, { method: 'PUT', headers: key, body: 'x' });
  t.equal(na.statusCode, 405);
  t.equal(na.headers['allow'], 'POST');
  t.same(await na.body.json(), { error: 'Method Not Allowed', message: 'PUT is not allowed here; use POST', code: 'METHOD_NOT_ALLOWED' });

  const naGet = await request(`${s.url}/t/echo`, { headers: key });
  t.equal(naGet.statusCode, 405);
  await naGet.body.dump();

  const wrongType = await request(`${s.url}/t/echo`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{}' });
  t.equal(wrongType.statusCode, 415);
  t.same(await wrongType.body.json(), {
    error: 'Unsupported Media Type',
    message: 'Content-Type must be application/octet-stream, got application/json',
    code: 'UNSUPPORTED_MEDIA_TYPE',
  });

  const ok = await request(`${s.url}/t/echo`, {
    method: 'POST',
    headers: { ...key, 'content-type': 'application/octet-stream' },
    body: Buffer.from([1, 2, 3]),
  });
  t.equal(ok.statusCode, 200);
  t.same([...Buffer.from(await ok.body.arrayBuffer())], [1, 2, 3]);

  const big = await request(`${s.url}/t/echo`, { method: 'POST', headers: { ...key, 'content-type': 'application/octet-stream' }, body: Buffer.alloc(2048) });
  t.equal(big.statusCode, 413);
  t.same(await big.body.json(), { error: 'Payload Too Large', message: 'Request body exceeds 1024 bytes', code: 'PAYLOAD_TOO_LARGE' });

  const boom = await request(`${s.url}/t/boom`);
  t.equal(boom.statusCode, 500);
  const body = (await boom.body.json()) as Record<string, unknown>;
  t.same(body, { error: 'Internal Server Error', message: 'Internal error', code: 'INTERNAL' });
  t.notOk(JSON.stringify(body).includes('secret internal detail'), 'internal detail does not leak to the client');
  t.ok(
    s.logs.lines.some((l) => l['msg'] === 'unhandled error'),
    'but it is logged',
  );

  const busy = await request(`${s.url}/t/busy`);
  t.equal(busy.statusCode, 503);
  t.equal(busy.headers['retry-after'], '7');
  await busy.body.dump();
});

t.test('413 for a chunked body over the limit, without reading the rest', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const { rawRequest } = await import('../../helpers/raw-http.js');
  const chunk = Buffer.alloc(600, 0x61);
  const head = `POST /t/echo HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`;
  const chunks = [chunk, chunk, chunk].map((c) => Buffer.concat([Buffer.from(c.length.toString(16) + '\r\n'), c, Buffer.from('\r\n')]));
  const res = await rawRequest(s.port, Buffer.concat([Buffer.from(head), ...chunks, Buffer.from('0\r\n\r\n')]));
  t.match(res.data, /^HTTP\/1\.1 413 /);
  t.match(res.data, /PAYLOAD_TOO_LARGE/);
  t.equal(res.closed, true, 'connection closed after the 413');
});

t.test('413 from Content-Length before any byte of the body is read', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const { rawRequest } = await import('../../helpers/raw-http.js');
  // Announce 10 MB but send none of it: the answer must not wait for the body.
  const head = `POST /t/echo HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: application/octet-stream\r\nContent-Length: 10000000\r\n\r\n`;
  const res = await rawRequest(s.port, head, { until: /PAYLOAD_TOO_LARGE/ });
  t.match(res.data, /^HTTP\/1\.1 413 /);
});
