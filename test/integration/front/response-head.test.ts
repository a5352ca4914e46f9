/**
 * The exchange renders the status line and every header into one string for a single uWS call
 * (src/core/http/head.ts). On the wire that must be an ordinary HTTP/1.1 head: one field per line,
 * nothing repeated, nothing injected by a value, the body where Content-Length says.
 */
import t from 'tap';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { testRoutes } from '../../helpers/routes.js';

interface Parsed {
  statusLine: string;
  fields: Array<[string, string]>;
  body: string;
}

function parse(data: string): Parsed {
  const end = data.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = data.slice(0, end).split('\r\n');
  const fields = lines.map((l): [string, string] => {
    const i = l.indexOf(':');
    return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()];
  });
  return { statusLine: statusLine!, fields, body: data.slice(end + 4) };
}

t.test('a rate-limited GET: every header on its own line, once, and the body as long as Content-Length', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const res = await rawRequest(s.port, 'GET /t/public?q=x HTTP/1.1\r\nHost: a\r\nX-Request-Id: trace-1\r\n\r\n', { until: /\r\n\r\n\{.*\}$/ });
  const p = parse(res.data);
  t.equal(p.statusLine, 'HTTP/1.1 200 OK');
  const names = p.fields.map(([n]) => n);
  t.same(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
    'no field twice',
  );
  for (const n of [
    'content-type',
    'x-request-id',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit-policy',
    'ratelimit',
    'etag',
    'cache-control',
    'content-length',
  ]) {
    t.ok(names.includes(n), `${n} present`);
  }
  const get = (n: string): string | undefined => p.fields.find(([k]) => k === n)?.[1];
  t.equal(get('content-type'), 'application/json; charset=utf-8');
  t.equal(get('x-request-id'), 'trace-1');
  t.equal(get('etag'), '"v1"');
  t.equal(get('cache-control'), 'max-age=5');
  t.match(get('ratelimit'), /^"ip";r=\d+;t=\d+$/);
  t.equal(Number(get('content-length')), Buffer.byteLength(p.body));
  t.same(JSON.parse(p.body), { q: 'x' });
});

t.test('a header value carrying CR LF cannot add a header or end the head early', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const res = await rawRequest(s.port, 'GET /t/echo-header?v=a%0D%0AX-Injected:%201%0D%0A%0D%0Abody HTTP/1.1\r\nHost: a\r\n\r\n', { until: /\r\n\r\n\{\}$/ });
  const p = parse(res.data);
  t.equal(p.statusLine, 'HTTP/1.1 200 OK');
  t.notOk(
    p.fields.some(([n]) => n === 'x-injected'),
    'no injected field',
  );
  t.equal(p.fields.find(([n]) => n === 'x-echo')?.[1], 'a  X-Injected: 1    body', 'CR and LF became spaces');
  t.notOk(
    p.fields.some(([n]) => n.includes('bad')),
    'a name that is not a token is not written',
  );
  t.equal(p.body, '{}');
});

t.test('headers the pipeline reads are taken from their first occurrence, and an empty one counts as absent (as uWS getHeader answers)', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  const head = (data: string, name: string): string | undefined => parse(data).fields.find(([k]) => k === name)?.[1];

  const ids = await rawRequest(s.port, 'GET /t/public?q=x HTTP/1.1\r\nHost: a\r\nX-Request-Id: first-id\r\nX-Request-Id: second-id\r\n\r\n', {
    until: /\r\n\r\n\{.*\}$/,
  });
  t.equal(head(ids.data, 'x-request-id'), 'first-id', 'the first X-Request-Id is echoed');

  const cached = await rawRequest(s.port, 'GET /t/public?q=x HTTP/1.1\r\nHost: a\r\nIf-None-Match: "v1"\r\n\r\n', { until: /\r\n\r\n$/ });
  t.match(cached.data, /^HTTP\/1\.1 304 /, 'If-None-Match read in the same pass: 304');

  const key = await rawRequest(s.port, `GET /t/keyed HTTP/1.1\r\nHost: a\r\nX-Api-Key: ${TEST_KEY}\r\n\r\n`, { until: /\r\n\r\n\{.*\}$/ });
  t.match(key.data, /^HTTP\/1\.1 200 /, 'a keyed route authenticates with the captured key');
  const emptyFirst = await rawRequest(s.port, `GET /t/keyed HTTP/1.1\r\nHost: a\r\nX-Api-Key: \r\nX-Api-Key: ${TEST_KEY}\r\n\r\n`, {
    until: /\r\n\r\n\{.*\}$/,
  });
  t.match(emptyFirst.data, /^HTTP\/1\.1 401 /, 'an empty first X-Api-Key is no key, whatever follows');

  const next = await rawRequest(s.port, 'GET /t/public?q=x HTTP/1.1\r\nHost: a\r\n\r\n', { until: /\r\n\r\n\{.*\}$/ });
  t.not(head(next.data, 'x-request-id'), 'first-id', 'nothing carries over from an earlier request');
});
