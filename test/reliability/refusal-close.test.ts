/**
 * A refusal that ends the connection (431, 400 for ambiguous framing or a bad Content-Length, 413)
 * with a request pipelined right behind it: the answers before it and the refusal itself arrive
 * whole, the server closes the socket, the request behind never reaches a handler, and the access
 * log has exactly one line per answered request, the refusal's with its status.
 * The same on both uWS builds (src/core/http/uws.ts); the trixie CI lane runs this file on 20.57.
 * (src/core/http/refusal.ts; the smuggling payloads themselves: hostile-framing.test.ts.)
 */
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import type { Module } from '../../src/infra/app-context.js';
import { json, OCTET } from '../../src/core/http/route.js';
import { CORK_BUFFER_BYTES } from '../../src/core/http/refusal.js';
import { MemoryRateLimitStore, type RateLimitStore } from '../../src/core/guards/rate-limit.js';
import { deferred, startApp, TEST_KEY, type TestApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw-http.js';
import { testRoutes } from '../helpers/routes.js';

/**
 * Routes that count the requests reaching them (the ones read behind a refusal must never do),
 * a 100 KB answer to fill a socket's buffers, and a WebSocket topic to upgrade to.
 */
function behindRoutes(): { module: Module; calls: () => number; opened: () => number } {
  let calls = 0;
  let opened = 0;
  const module: Module = (ctx) => {
    ctx.addRoutes([
      {
        method: 'GET',
        url: '/t/behind',
        auth: 'none',
        rateLimit: 'none',
        schema: { summary: 'counts calls', tags: ['statistics'], response: { 200: { description: 'ok' } } },
        handler: () => {
          calls++;
          return json({ behind: true });
        },
      },
      {
        method: 'GET',
        url: '/t/big',
        auth: 'none',
        rateLimit: 'none',
        schema: { summary: '100 KB', tags: ['statistics'], response: { 200: { description: 'ok' } } },
        handler: () => ({ body: BIG, contentType: OCTET }),
      },
    ]);
    ctx.addTopic({
      url: '/t/ws',
      topicFor: () => {
        opened++;
        return 't';
      },
    });
  };
  return { module, calls: () => calls, opened: () => opened };
}

const BIG = Buffer.alloc(100_000, 'b');

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Split raw HTTP/1.1 answers by Content-Length; a cut-off last answer fails the test. */
function answers(t: Test, data: string): Answer[] {
  const out: Answer[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end === -1) {
      t.fail(`an answer's head is cut off: ${JSON.stringify(data.slice(at, at + 80))}`);
      break;
    }
    const [statusLine, ...fields] = data.slice(at, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const f of fields) {
      const colon = f.indexOf(':');
      headers[f.slice(0, colon).toLowerCase()] = f.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = data.slice(end + 4, end + 4 + length);
    if (body.length !== length) t.fail(`an answer's body is cut off: ${body.length} of ${length} bytes`);
    out.push({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '')?.[1]), headers, body });
    at = end + 4 + length;
  }
  return out;
}

const BEHIND = 'GET /t/behind HTTP/1.1\r\nHost: x\r\n\r\n';
const before = (n: number): string => Array.from({ length: n }, (_, i) => `GET /t/public?q=b${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join('');
const echoHead = (framing: string): string =>
  `POST /t/echo HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: application/octet-stream\r\n${framing}\r\n`;
const requestLines = (s: TestApp, from: number): Array<Record<string, unknown>> => s.logs.lines.slice(from).filter((l) => l['msg'] === 'request');

const refusals: Record<string, { payload: string; status: number; code: string }> = {
  'oversized header section (431)': {
    payload: `GET /t/public HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
    status: 431,
    code: 'HEADERS_TOO_LARGE',
  },
  'two different Content-Lengths (400)': { payload: echoHead('Content-Length: 3\r\nContent-Length: 4\r\n') + 'abc', status: 400, code: 'BAD_REQUEST' },
  'Transfer-Encoding: xchunked (400)': { payload: echoHead('Transfer-Encoding: xchunked\r\n') + '3\r\nabc\r\n0\r\n\r\n', status: 400, code: 'BAD_REQUEST' },
  'Content-Length list (400)': { payload: echoHead('Content-Length: 3, 3\r\n') + 'abc', status: 400, code: 'BAD_REQUEST' },
  'declared body over the limit (413)': { payload: echoHead('Content-Length: 2048\r\n') + 'x'.repeat(2048), status: 413, code: 'PAYLOAD_TOO_LARGE' },
  'chunked body growing over the limit (413, while streaming)': {
    payload: echoHead('Transfer-Encoding: chunked\r\n') + `800\r\n${'x'.repeat(2048)}\r\n0\r\n\r\n`,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
};

t.test('refused with answers pipelined before and a request behind: all answered whole, then closed, nothing behind served', async (t) => {
  const behind = behindRoutes();
  const s = await startApp({}, { modules: [testRoutes().module, behind.module] });
  t.teardown(() => s.close());
  for (const [name, r] of Object.entries(refusals)) {
    const from = s.logs.lines.length;
    // No `until`: the read ends when the server closes (the timeout only bounds a failure).
    const got = await rawRequest(s.port, before(3) + r.payload + BEHIND, { timeoutMs: 5000 });
    t.equal(got.closed, true, `${name}: the server closes the connection`);
    const all = answers(t, got.data);
    t.same(
      all.map((a) => a.status),
      [200, 200, 200, r.status],
      `${name}: the three before, then the refusal, nothing after`,
    );
    t.same(
      all.slice(0, 3).map((a) => JSON.parse(a.body)),
      [{ q: 'b0' }, { q: 'b1' }, { q: 'b2' }],
      `${name}: the answers before are intact`,
    );
    const refusal = all[3];
    t.equal(refusal?.headers['connection'], 'close', `${name}: says Connection: close`);
    t.ok(Number(refusal?.headers['content-length']) > CORK_BUFFER_BYTES, `${name}: a body over the cork buffer, received whole`);
    t.match(JSON.parse(refusal?.body ?? 'null'), { code: r.code }, `${name}: the body is the error, valid JSON`);
    t.equal(behind.calls(), 0, `${name}: the request behind never reached its handler`);
    t.same(
      requestLines(s, from).map((l) => l['status']),
      [200, 200, 200, r.status],
      `${name}: one access-log line per answer, the refusal's with its status`,
    );
  }
  t.notOk(s.logs.lines.some((l) => l['msg'] === 'unhandled error'));
  t.equal(s.app.server.inFlight, 0, 'nothing left in flight');
});

t.test('refused after more pipelined output than the cork buffer holds: still whole, still closed', async (t) => {
  const behind = behindRoutes();
  const s = await startApp({}, { modules: [testRoutes().module, behind.module] });
  t.teardown(() => s.close());
  // 40 echoes of 1000 bytes: ~45 KB of answers ahead of the refusal, written before it is.
  const echoes = Array.from({ length: 40 }, (_, i) => echoHead('Content-Length: 1000\r\n') + String(i % 10).repeat(1000)).join('');
  const got = await rawRequest(s.port, echoes + refusals['oversized header section (431)']!.payload + BEHIND, { timeoutMs: 5000 });
  t.equal(got.closed, true, 'closed');
  const all = answers(t, got.data);
  t.same(
    all.map((a) => a.status),
    [...Array.from({ length: 40 }, () => 200), 431],
  );
  t.ok(
    all.slice(0, 40).every((a, i) => a.body === String(i % 10).repeat(1000)),
    'every echo intact, in order',
  );
  t.match(JSON.parse(all[40]?.body ?? 'null'), { code: 'HEADERS_TOO_LARGE' });
  t.equal(behind.calls(), 0, 'nothing behind served');
});

t.test('a 413 answered after an asynchronous rate-limit store: whole, then closed', async (t) => {
  const memory = new MemoryRateLimitStore('fixed', 1000);
  const store: RateLimitStore = {
    get size() {
      return memory.size;
    },
    hit: async (...args) => memory.hit(...args),
  };
  const s = await startApp({}, { modules: [testRoutes().module], rateLimitStore: store });
  t.teardown(() => s.close());
  const from = s.logs.lines.length;
  const got = await rawRequest(s.port, echoHead('Content-Length: 2048\r\n') + 'x'.repeat(2048), { timeoutMs: 5000 });
  t.equal(got.closed, true, 'closed');
  const all = answers(t, got.data);
  t.same(
    all.map((a) => a.status),
    [413],
  );
  t.match(JSON.parse(all[0]?.body ?? 'null'), { code: 'PAYLOAD_TOO_LARGE' });
  t.same(
    requestLines(s, from).map((l) => l['status']),
    [413],
    'logged once',
  );
});

t.test('a refused HEAD has no body to carry the close: dropped unanswered, nothing behind served', async (t) => {
  const behind = behindRoutes();
  const s = await startApp({}, { modules: [testRoutes().module, behind.module] });
  t.teardown(() => s.close());
  const from = s.logs.lines.length;
  const got = await rawRequest(s.port, `HEAD /t/public HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n${BEHIND}`, { timeoutMs: 5000 });
  t.same([got.data, got.closed], ['', true], 'dropped');
  t.equal(behind.calls(), 0, 'nothing behind served');
  t.same(
    requestLines(s, from).map((l) => l['status']),
    [431],
    'logged once, as the refusal it is',
  );
  const ok = await rawRequest(s.port, 'GET /t/public?q=alive HTTP/1.1\r\nHost: x\r\n\r\n', { until: /alive/ });
  t.match(ok.data, /^HTTP\/1\.1 200 /, 'still serving');
});

t.test('a WebSocket upgrade read behind a refusal made while streaming a body: dropped, no crash', async (t) => {
  // uWS dispatches it on the socket the refusal closed; upgrading that socket crashed the process.
  const behind = behindRoutes();
  const s = await startApp({}, { modules: [testRoutes().module, behind.module] });
  t.teardown(() => s.close());
  const upgrade =
    'GET /t/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ' +
    'dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';
  const got = await rawRequest(s.port, refusals['chunked body growing over the limit (413, while streaming)']!.payload + upgrade, { timeoutMs: 5000 });
  t.equal(got.closed, true, 'closed');
  t.same(
    answers(t, got.data).map((a) => a.status),
    [413],
    'the refusal, nothing after',
  );
  t.equal(behind.opened(), 0, 'the upgrade never reached its handler');
  const ok = await rawRequest(s.port, 'GET /t/public?q=alive HTTP/1.1\r\nHost: x\r\n\r\n', { until: /alive/ });
  t.match(ok.data, /^HTTP\/1\.1 200 /, 'still serving');
});

t.test('a client that stopped reading: the refusal is queued behind a full send buffer', async (t) => {
  const behind = behindRoutes();
  const s = await startApp({}, { modules: [testRoutes().module, behind.module] });
  t.teardown(() => s.close());
  const server = s.app.server;
  const log = server.finished.bind(server);
  let answered = 0;
  const filled = deferred<void>();
  server.finished = (ex, status) => {
    log(ex, status);
    if (++answered === 100) filled.resolve();
  };
  const sock = connect(s.port, '127.0.0.1');
  sock.pause();
  await new Promise<void>((resolve) => sock.once('connect', resolve));
  const received = new Promise<{ data: string; closed: boolean }>((resolve) => {
    let data = '';
    sock.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      if (data.includes('"behind":true')) resolve({ data, closed: false });
    });
    sock.on('close', () => resolve({ data, closed: true }));
    sock.on('error', () => undefined);
  });
  // 10 MB of answers the client does not read: the kernel's buffers fill, uWS queues the rest.
  sock.write('GET /t/big HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(100));
  await filled.promise;
  sock.write(refusals['oversized header section (431)']!.payload + BEHIND);
  sock.resume();
  const got = await received;
  sock.destroy();
  const all = answers(t, got.data);
  t.same(
    all.slice(0, 101).map((a) => a.status),
    [...Array.from({ length: 100 }, () => 200), 431],
    'every answer, then the refusal, whole',
  );
  t.match(JSON.parse(all[100]?.body ?? 'null'), { code: 'HEADERS_TOO_LARGE' });
  const todo =
    'both uWS builds (20.30, 20.57) keep parsing while a refusal waits behind backpressure, and the next dispatch clears its ' +
    'close mark (src/core/http/refusal.ts)';
  t.equal(behind.calls(), 0, 'nothing behind served', { todo });
  t.equal(got.closed, true, 'closed', { todo });
});
