/**
 * Requests this uWebSockets.js build drops without any answer: its parser rejects them before
 * nightgate sees them, sends nothing, and the connection ends only at uWS's idle timeout (about
 * 10 s). README ("What uWS drops") and the proxy examples in deploy/ rest on this list; each case
 * waits for the server's own close, all at once, and a well-formed neighbour of each is answered.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw-http.js';
import { ROOT } from '../helpers/spawn.js';

// Default settings: server.maxHeaders is 64, so a 431 would be nightgate's; uWS drops first.
const s = await startApp();
t.teardown(() => s.close());

const fields = (n: number): string => Array.from({ length: n - 1 }, (_, i) => `X-F${i}: v\r\n`).join('');
const req = (line: string, headers = ''): string => `${line}\r\nHost: x\r\n${headers}\r\n`;

const dropped: Record<string, string> = {
  'HTTP/1.0 (nginx proxy_http_version default)': req('GET /livez HTTP/1.0'),
  'HTTP/1.0 without Host': 'GET /livez HTTP/1.0\r\n\r\n',
  'HTTP/0.9 request line': 'GET /livez\r\n\r\n',
  '49 header fields (Host + 48)': req('GET /livez HTTP/1.1', fields(49)),
  'a folded header (obs-fold, RFC 9112 §5.2)': req('GET /livez HTTP/1.1', 'X-A: one\r\n two\r\n'),
  'a header name with an underscore': req('GET /livez HTTP/1.1', 'X_Forwarded_For: 203.0.113.9\r\n'),
  'HTTP/1.1 without Host': 'GET /livez HTTP/1.1\r\n\r\n',
  'bare LF line ends': 'GET /livez HTTP/1.1\nHost: x\n\n',
  'whitespace before the colon': req('GET /livez HTTP/1.1', 'X-A : 1\r\n'),
};

const answered: Record<string, string> = {
  'HTTP/1.1': req('GET /livez HTTP/1.1'),
  '48 header fields (Host + 47)': req('GET /livez HTTP/1.1', fields(48)),
  'the same header with a dash': req('GET /livez HTTP/1.1', 'X-Forwarded-For: 203.0.113.9\r\n'),
  'an empty header value': req('GET /livez HTTP/1.1', 'X-A:\r\n'),
};

t.test('answered: the well-formed neighbours', async (t) => {
  for (const [name, payload] of Object.entries(answered)) {
    const r = await rawRequest(s.port, payload, { until: /\r\n\r\n\{"status":"alive"\}/ });
    t.match(r.data, /^HTTP\/1\.1 200 OK\r\n/, name);
  }
});

t.test('dropped: no byte of answer, the connection closed by uWS at its idle timeout', async (t) => {
  const from = s.logs.lines.length;
  const t0 = performance.now();
  // A bound well past uWS's idle timeout; each case ends on the server's own close.
  const results = await Promise.all(Object.entries(dropped).map(async ([name, payload]) => ({ name, r: await rawRequest(s.port, payload, { timeoutMs: 60_000 }) })));
  for (const { name, r } of results) t.strictSame(r, { data: '', closed: true }, name);
  t.comment(`closed after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  t.equal(s.logs.lines.slice(from).filter((l) => l['msg'] === 'request').length, 0, 'nightgate never saw them: no access-log line');
});

t.test('README says what this build drops, as measured here', async (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /\n### What uWS drops\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  t.match(section, /no answer\*\* and closes the connection only at its idle timeout/);
  for (const claim of [/HTTP\/1\.0/, /HTTP\/0\.9/, /more than 48 header fields/, /folded header line/, /header name containing `_`/, /without `Host`/, /bare-LF/, /whitespace before a header's colon/]) {
    t.match(section, claim, String(claim));
  }
  t.notMatch(readme, /oversized header section → 431\./, 'a 431 is not promised where uWS drops first');
});
