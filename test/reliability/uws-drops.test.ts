/**
 * Requests uWS's parser rejects before nightgate sees them, on whichever build is loaded
 * (src/core/http/uws.ts): the 20.30 build (Node 20) sends no answer and ends the connection only at its
 * idle timeout (about 10 s); the 20.57 build (Node 22/24) answers most of them itself — its own
 * 505/400/431 page with `Connection: close` — and closes at once. docs/support.md ("What uWS
 * drops") and the proxy examples in deploy/ rest on this table; the trixie CI lane runs this file
 * on the 20.57 build, the main lane on the 20.30 one. Each case ends on the server's own close, all at once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { loadUws } from '../../src/core/http/uws.js';
import { startApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw-http.js';
import { ROOT } from '../helpers/spawn.js';

// Default settings: server.maxHeaders is 64, so a 431 with a JSON body is nightgate's.
const s = await startApp();
t.teardown(() => s.close());
const build = loadUws().source === '@btc-vision/uwebsockets.js' ? '20.57' : '20.30';
t.comment(`uWS build: ${loadUws().source} ${loadUws().version}`);

const fields = (n: number): string => Array.from({ length: n - 1 }, (_, i) => `X-F${i}: v\r\n`).join('');
const req = (line: string, headers = ''): string => `${line}\r\nHost: x\r\n${headers}\r\n`;

/** `dropped`: no byte, closed at the idle timeout; a number: uWS's own page with that status, closed at once; `served`/`nightgate 431`: nightgate answers. */
type Outcome = 'dropped' | 'served' | 'nightgate 431' | 505 | 400 | 431;
const cases: Record<string, { payload: string; '20.30': Outcome; '20.57': Outcome }> = {
  'HTTP/1.0 (nginx proxy_http_version default)': { payload: req('GET /livez HTTP/1.0'), '20.30': 'dropped', '20.57': 505 },
  'HTTP/1.0 without Host': { payload: 'GET /livez HTTP/1.0\r\n\r\n', '20.30': 'dropped', '20.57': 505 },
  'HTTP/0.9 request line': { payload: 'GET /livez\r\n\r\n', '20.30': 'dropped', '20.57': 505 },
  'bare LF line ends': { payload: 'GET /livez HTTP/1.1\nHost: x\n\n', '20.30': 'dropped', '20.57': 505 },
  'HTTP/1.1 without Host': { payload: 'GET /livez HTTP/1.1\r\n\r\n', '20.30': 'dropped', '20.57': 400 },
  'a folded header (obs-fold, RFC 9112 §5.2)': { payload: req('GET /livez HTTP/1.1', 'X-A: one\r\n two\r\n'), '20.30': 'dropped', '20.57': 400 },
  'whitespace before the colon': { payload: req('GET /livez HTTP/1.1', 'X-A : 1\r\n'), '20.30': 'dropped', '20.57': 400 },
  'a header name with an underscore': { payload: req('GET /livez HTTP/1.1', 'X_Forwarded_For: 203.0.113.9\r\n'), '20.30': 'dropped', '20.57': 'served' },
  '48 header fields (Host + 47)': { payload: req('GET /livez HTTP/1.1', fields(48)), '20.30': 'served', '20.57': 'served' },
  '49 header fields (Host + 48)': { payload: req('GET /livez HTTP/1.1', fields(49)), '20.30': 'dropped', '20.57': 'served' },
  '65 header fields, over server.maxHeaders': { payload: req('GET /livez HTTP/1.1', fields(65)), '20.30': 'dropped', '20.57': 'nightgate 431' },
  '98 header fields': { payload: req('GET /livez HTTP/1.1', fields(98)), '20.30': 'dropped', '20.57': 'nightgate 431' },
  '99 header fields': { payload: req('GET /livez HTTP/1.1', fields(99)), '20.30': 'dropped', '20.57': 431 },
  'HTTP/1.1': { payload: req('GET /livez HTTP/1.1'), '20.30': 'served', '20.57': 'served' },
  'the same header with a dash': { payload: req('GET /livez HTTP/1.1', 'X-Forwarded-For: 203.0.113.9\r\n'), '20.30': 'served', '20.57': 'served' },
  'an empty header value': { payload: req('GET /livez HTTP/1.1', 'X-A:\r\n'), '20.30': 'served', '20.57': 'served' },
};
const expected = (c: (typeof cases)[string]): Outcome => c[build];
const named = (want: (o: Outcome) => boolean): Array<[string, string]> =>
  Object.entries(cases)
    .filter(([, c]) => want(expected(c)))
    .map(([name, c]) => [name, c.payload]);

t.test(`build ${build}: what nightgate answers`, async (t) => {
  for (const [name, payload] of named((o) => o === 'served')) {
    const r = await rawRequest(s.port, payload, { until: /\r\n\r\n\{"status":"alive"\}/ });
    t.match(r.data, /^HTTP\/1\.1 200 OK\r\n/, name);
  }
  for (const [name, payload] of named((o) => o === 'nightgate 431')) {
    const r = await rawRequest(s.port, payload, { timeoutMs: 5_000 });
    t.match(r.data, /^HTTP\/1\.1 431 [^]*\r\nConnection: close\r\n[^]*"code":"HEADERS_TOO_LARGE"/, `${name}: nightgate's 431, JSON`);
    t.equal(r.closed, true, `${name}: closed`);
  }
});

t.test(`build ${build}: what uWS answers itself, closing at once`, async (t) => {
  const own = named((o) => typeof o === 'number');
  if (own.length === 0) t.comment('none on this build');
  const from = s.logs.lines.length;
  for (const [name, payload] of own) {
    const status = expected(cases[name]!) as number;
    // The bound is well under uWS's idle timeout: the answer and the close come at once.
    const r = await rawRequest(s.port, payload, { timeoutMs: 5_000 });
    t.match(r.data, new RegExp(`^HTTP/1\\.1 ${status} [^\\r]+\\r\\nConnection: close\\r\\n\\r\\n`), `${name}: ${status}`);
    t.equal(r.closed, true, `${name}: closed`);
  }
  t.equal(s.logs.lines.slice(from).filter((l) => l['msg'] === 'request').length, 0, 'nightgate never saw them: no access-log line');
});

t.test(`build ${build}: what uWS drops, no byte of answer, the connection closed at its idle timeout`, async (t) => {
  const dropped = named((o) => o === 'dropped');
  if (dropped.length === 0) t.comment('none on this build');
  const from = s.logs.lines.length;
  const t0 = performance.now();
  // A bound well past uWS's idle timeout; each case ends on the server's own close.
  const results = await Promise.all(dropped.map(async ([name, payload]) => ({ name, r: await rawRequest(s.port, payload, { timeoutMs: 60_000 }) })));
  for (const { name, r } of results) t.strictSame(r, { data: '', closed: true }, name);
  if (dropped.length > 0) t.comment(`closed after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  t.equal(s.logs.lines.slice(from).filter((l) => l['msg'] === 'request').length, 0, 'nightgate never saw them: no access-log line');
});

t.test('docs/support.md says what each build drops or answers, as measured here', async (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const support = readFileSync(join(ROOT, 'docs', 'support.md'), 'utf8');
  const section = /\n## What uWS drops\n([\s\S]*?)(?:\n## |$)/.exec(support)?.[1] ?? '';
  t.match(section, /\*\*no answer\*\* and closes the connection only at its idle timeout/, '20.30: dropped silently');
  t.match(section, /its own `505`, `400` or `431` page with `Connection: close`/, '20.57: its own page');
  for (const claim of [
    /HTTP\/1\.0/,
    /HTTP\/0\.9/,
    /more than 48 header fields/,
    /more than 98/,
    /folded header line/,
    /header name containing `_`/,
    /without `Host`/,
    /bare-LF/,
    /whitespace before a header's colon/,
    /UWS_HTTP_MAX_HEADERS_SIZE/,
  ]) {
    t.match(section, claim, String(claim));
  }
  t.notMatch(readme, /oversized header section → 431\./, 'a 431 is not promised where uWS drops first');
});
