import t from 'tap';
import { connect } from 'node:net';
import { Client, request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';

t.test('graceful shutdown: in-flight request completes, kept-alive connection gets 503, close is idempotent', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  const slowClient = new Client(s.url);
  const idleClient = new Client(s.url, { keepAliveTimeout: 60_000 });
  t.teardown(async () => {
    await slowClient.destroy();
    await idleClient.destroy();
  });
  // Open a kept-alive connection before shutdown.
  const warm = await idleClient.request({ path: '/t/public', method: 'GET' });
  t.equal(warm.statusCode, 200);
  await warm.body.dump();

  const inflight = slowClient.request({ path: '/t/slow', method: 'GET', headers: { 'x-api-key': TEST_KEY } });
  await routes.slowStarted.promise;
  const closing = s.app.close();
  const again = s.app.close();
  t.equal(closing, again, 'a second close returns the same shutdown');
  t.equal(s.app.health()['status'], 'shutting-down');

  const late = await idleClient.request({ path: '/t/public', method: 'GET' });
  t.equal(late.statusCode, 503, 'new request on a kept-alive connection is refused');
  t.same(await late.body.json(), { error: 'Service Unavailable', message: 'Server is shutting down', code: 'SHUTTING_DOWN' });

  await t.rejects(request(`${s.url}/t/public`), 'no new connections are accepted');

  let closed = false;
  void closing.then(() => (closed = true));
  await Promise.resolve();
  t.equal(closed, false, 'close waits for the in-flight request');
  routes.slow.resolve();
  const res = await inflight;
  t.equal(res.statusCode, 200);
  t.same(await res.body.json(), { done: true });
  await closing;
  t.equal(s.app.server.inFlight, 0);
});

t.test('once drained, shutdown ends idle kept-alive connections instead of leaving them to time out', async (t) => {
  const s = await startApp({}, {});
  const port = Number(new URL(s.url).port);
  const socket = connect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  socket.on('error', () => undefined); // a write racing the server's close may see EPIPE/ECONNRESET
  const received: Buffer[] = [];
  socket.on('data', (d: Buffer) => received.push(d));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  while (!Buffer.concat(received).toString().includes('\r\n\r\n')) await new Promise((r) => socket.once('data', r));
  t.match(Buffer.concat(received).toString(), /^HTTP\/1\.1 200/, 'kept alive after its answer');
  received.length = 0;
  await s.app.close();
  // Still open, the connection would answer this request with 503 (shutting down); ended, it gets nothing.
  if (!socket.destroyed) socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n', () => undefined);
  await ended;
  t.equal(Buffer.concat(received).length, 0, 'ended by the server, with no answer to a later request');
});

t.test('shutdown deadline aborts what is still running', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ server: { shutdownTimeoutMs: 50 } }, { modules: [routes.module] });
  const client = new Client(s.url);
  t.teardown(() => client.destroy());
  const inflight = client.request({ path: '/t/slow', method: 'GET', headers: { 'x-api-key': TEST_KEY } });
  await routes.slowStarted.promise;
  await s.app.close();
  const res = await inflight;
  t.equal(res.statusCode, 503);
  t.same(await res.body.json(), { error: 'Service Unavailable', message: 'Server shut down before the request finished', code: 'SHUTTING_DOWN' });
  t.match(await routes.aborted.promise, { code: 'SHUTTING_DOWN' }, 'the handler saw its signal abort');
});

t.test('a client that disconnects aborts the handler signal', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const ac = new AbortController();
  const p = request(`${s.url}/t/slow`, { headers: { 'x-api-key': TEST_KEY }, signal: ac.signal });
  await routes.slowStarted.promise;
  ac.abort();
  await t.rejects(p);
  t.match(await routes.aborted.promise, { code: 'CLIENT_ABORTED' });
  routes.slow.resolve();
  await s.app.server.drained();
  const line = s.logs.lines.find((l) => l['msg'] === 'request' && l['route'] === '/t/slow');
  t.equal(line?.['status'], 499, 'logged as client closed request');
});
