/**
 * Hostile HTTP/1.1 on raw sockets: oversized and too many headers, every kind of bad
 * Content-Length and chunked framing, ambiguous framing that would let a request be smuggled past
 * a proxy, and pipelining (in order; cut at an oversized body; uWS's refusal of a request sent
 * while an asynchronous response is pending). Nothing is served from a malformed request, the
 * process never crashes, nothing stays in flight.
 * (Basic cases: test/integration/front/hostile-http.test.ts and routing-errors.test.ts.)
 */
import { connect } from 'node:net';
import t from 'tap';
import { loadUws } from '../../src/core/http/uws.js';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { testRoutes } from '../helpers/routes.js';
import { rawRequest } from '../helpers/raw-http.js';

const routes = testRoutes();
const s = await startApp({ server: { maxHeaders: 16 } }, { modules: [routes.module] });
t.teardown(() => s.close());
const SMUGGLED = 'GET /t/public?q=smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
const echoHead = (framing: string): string =>
  `POST /t/echo HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: application/octet-stream\r\n${framing}\r\n`;
/**
 * RFC 9112 §9.6: a server that sends "Connection: close" must not process further requests on that
 * connection. This uWS build keeps parsing what is already buffered behind a response ended with
 * `end(body, true)` unless the socket is closed by then: src/core/http/refusal.ts makes it so.
 * (The refusal's own bytes and log line: refusal-close.test.ts.)
 */
/** A malformed request must be answered (4xx) or dropped — well before uWS's idle timeout. */
const QUICK = { timeoutMs: 2_000 };

t.test('header section bounds: 431 and close, or dropped; never served', async (t) => {
  for (const size of [17_000, 100_000]) {
    const r = await rawRequest(s.port, `GET /t/public HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(size)}\r\n\r\n${SMUGGLED}`, QUICK);
    t.match(r.data, /^HTTP\/1\.1 431 /, `${size} bytes: 431`);
    t.match(r.data, /\r\nConnection: close\r\n/i, `${size} bytes: and the connection closes`);
    t.notMatch(r.data, /smuggled/, `${size} bytes: a request pipelined behind it is not served`);
  }
  const huge = await rawRequest(s.port, `GET /t/public HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1_000_000)}\r\n\r\n`, QUICK);
  if (loadUws().source === '@btc-vision/uwebsockets.js') {
    // Past UWS_HTTP_MAX_HEADERS_SIZE (src/core/http/uws.ts): the 20.57 build's own 431 page, then it closes.
    t.match(huge.data, /^HTTP\/1\.1 431 [^\r]+\r\nConnection: close\r\n/, '1 MB of header: uWS answers its own 431');
    t.equal(huge.closed, true, '1 MB of header: and closes');
  } else {
    t.same([huge.data, huge.closed], ['', true], '1 MB of header: uWS drops the connection unanswered');
  }
  const fields = Array.from({ length: 20 }, (_, i) => `X-F${i}: v`).join('\r\n');
  const many = await rawRequest(s.port, `GET /t/public HTTP/1.1\r\nHost: x\r\n${fields}\r\n\r\n`, QUICK);
  t.match(many.data, /^HTTP\/1\.1 431 /, '21 fields over server.maxHeaders = 16: 431');
  t.match(many.data, /HEADERS_TOO_LARGE/);
});

t.test('bad Content-Length and chunked framing: dropped, never served', async (t) => {
  const bad: Record<string, string> = {
    'negative length': echoHead('Content-Length: -5\r\n') + 'abc',
    'non-numeric length': echoHead('Content-Length: abc\r\n') + 'abc',
    'signed length': echoHead('Content-Length: +3\r\n') + 'abc',
    'hex length': echoHead('Content-Length: 0x3\r\n') + 'abc',
    'length beyond 2^64': echoHead('Content-Length: 99999999999999999999999\r\n') + 'abc',
    'length list': echoHead('Content-Length: 3, 3\r\n') + 'abc',
    'length and chunked': echoHead('Content-Length: 3\r\nTransfer-Encoding: chunked\r\n') + '3\r\nabc\r\n0\r\n\r\n',
    'bad chunk size': echoHead('Transfer-Encoding: chunked\r\n') + 'zz\r\nabc\r\n0\r\n\r\n',
    'chunk size overflowing 64 bits': echoHead('Transfer-Encoding: chunked\r\n') + 'ffffffffffffffffff\r\nabc\r\n',
    'identity transfer coding': echoHead('Transfer-Encoding: identity\r\nContent-Length: 3\r\n') + 'abc',
  };
  for (const [name, payload] of Object.entries(bad)) {
    const from = s.logs.lines.length;
    const r = await rawRequest(s.port, payload + SMUGGLED, QUICK);
    t.notMatch(r.data, /^HTTP\/1\.1 2/, `${name}: not served`);
    t.notMatch(r.data, /smuggled/, `${name}: nothing after it is served`);
    t.equal(r.closed, true, `${name}: connection closed`);
    // uWS calls the route before it rejects the body: the pipeline must not trip over the header
    // (it did: "-5" passed Number.isSafeInteger and Buffer.allocUnsafe(-5) threw).
    t.notOk(
      s.logs.lines.slice(from).some((l) => l['msg'] === 'unhandled error'),
      `${name}: no internal error`,
    );
  }
  const ok = await rawRequest(
    s.port,
    echoHead('Transfer-Encoding: chunked\r\n') + '200\r\n' + 'a'.repeat(512) + '\r\n200\r\n' + 'b'.repeat(512) + '\r\n0\r\n\r\n',
    { until: /b{512}$/ },
  );
  t.match(ok.data, /^HTTP\/1\.1 200 /, 'a chunked body of exactly the limit is served');
});

t.test('ambiguous framing that would smuggle a request past a proxy is refused', async (t) => {
  const smuggle: Record<string, string> = {
    // A proxy framing by the last Content-Length sees one request; uWS frames by the first and serves two.
    'two different Content-Lengths (first short)': echoHead(`Content-Length: 3\r\nContent-Length: ${3 + SMUGGLED.length}\r\n`) + 'abc' + SMUGGLED,
    // A proxy ignoring an unknown coding sees no body; uWS reads "xchunked" as chunked and serves what follows.
    'Transfer-Encoding: xchunked': echoHead('Transfer-Encoding: xchunked\r\n') + '3\r\nabc\r\n0\r\n\r\n' + SMUGGLED,
  };
  for (const [name, payload] of Object.entries(smuggle)) {
    const r = await rawRequest(s.port, payload, QUICK);
    t.match(r.data, /^HTTP\/1\.1 400 /, `${name}: 400`);
    t.match(r.data, /Ambiguous message framing/, `${name}: naming the ambiguity`);
    // The 400 says "Connection: close"; uWS must not go on to parse what is already buffered behind it.
    t.notMatch(r.data, /smuggled/, `${name}: the smuggled request is not served`);
  }
});

t.test('pipelining: served in order; an oversized body ends the connection; nothing leaks', async (t) => {
  const gets = Array.from({ length: 100 }, (_, i) => `GET /t/public?q=${i} HTTP/1.1\r\nHost: x\r\nX-Request-Id: p${i}\r\n\r\n`).join('');
  const r = await rawRequest(s.port, gets, { until: /"q":"99"\}/ });
  const ids = [...r.data.matchAll(/X-Request-Id: (p\d+)/g)].map((m) => m[1]);
  t.same(
    ids,
    Array.from({ length: 100 }, (_, i) => `p${i}`),
    '100 pipelined GETs answered in order',
  );

  const mixed = Array.from(
    { length: 20 },
    (_, i) => `${echoHead('Content-Length: 4\r\n')}e${String(i).padStart(3, '0')}GET /t/public?q=g${i} HTTP/1.1\r\nHost: x\r\n\r\n`,
  ).join('');
  const m = await rawRequest(s.port, mixed, { until: /"q":"g19"\}/ });
  const order = [...m.data.matchAll(/(e\d{3})HTTP|"q":"(g\d+)"/g)].map((x) => x[1] ?? x[2]);
  t.same(order, Array.from({ length: 20 }, (_, i) => [`e${String(i).padStart(3, '0')}`, `g${i}`]).flat(), 'POST bodies and GETs interleaved, in order');

  const cut = await rawRequest(
    s.port,
    `GET /t/public?q=before HTTP/1.1\r\nHost: x\r\n\r\n${echoHead('Content-Length: 2048\r\n')}${'x'.repeat(2048)}${SMUGGLED}`,
    QUICK,
  );
  t.match(cut.data, /"q":"before"[\s\S]*HTTP\/1\.1 413 /, 'the request before is served, the oversized one gets 413');
  t.notMatch(cut.data, /smuggled/, 'nothing after the unread body is served once "Connection: close" was sent');
  t.equal(cut.closed, true, 'and the connection is closed');
});

t.test('a request pipelined behind a pending asynchronous response: uWS closes the connection, cleanly', async (t) => {
  // uWS refuses async pipelining by design (HttpContext: "denying async pipelining"): it closes
  // the socket, which aborts the pending response. The handler must see the abort, and nothing
  // may touch the response afterwards.
  const from = s.logs.lines.length;
  const closed = new Promise<void>((resolve) => {
    const sock = connect(s.port, '127.0.0.1', () =>
      sock.write(`GET /t/slow HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\n\r\nGET /t/public HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    sock.on('close', () => resolve());
    sock.on('error', () => undefined);
  });
  await routes.slowStarted.promise;
  await closed;
  t.match(await routes.aborted.promise, { code: 'CLIENT_ABORTED' }, 'the pending handler saw its client go');
  routes.slow.resolve();
  await s.app.server.drained();
  t.equal(s.app.server.inFlight, 0);
  const line = s.logs.lines.find((l) => l['msg'] === 'request' && l['path'] === '/t/slow');
  t.equal(line?.['status'], 499, 'logged as client closed request');
  const after = await rawRequest(s.port, 'GET /t/public?q=alive HTTP/1.1\r\nHost: x\r\n\r\n', { until: /alive/ });
  t.match(after.data, /^HTTP\/1\.1 200 /, 'still serving');
  t.notOk(s.logs.lines.slice(from).some((l) => l['msg'] === 'unhandled error'));
});
