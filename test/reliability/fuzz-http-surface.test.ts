/**
 * The whole HTTP surface under a time-boxed fast-check run: every route of the app (statistics
 * from a fake indexer and from the devnet, an unreachable network, proving on the pool and on an
 * upstream stub, sponsorship, meta), with random methods, path segments, query strings, headers
 * and bodies. Every answer must be a status the route documents in the OpenAPI document (or one
 * of the front's generic ones), every JSON body must match its schema — the route's 200 schema,
 * or the error shape of its group with a catalogued code whose status is the one sent — and the
 * server must neither crash nor log an unhandled error.
 */
import fc from 'fast-check';
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { ERRORS, type ErrorCode } from '../../src/core/errors.js';
import { ErrorSchema } from '../../src/core/http/openapi.js';
import type { RouteDef } from '../../src/core/http/route.js';
import { WORKER_POOL, type WorkerPoolComponent } from '../../src/features/proving/index.js';
import { SPONSORSHIP_COMPONENT, type SponsorshipComponent } from '../../src/features/sponsorship/index.js';
import type { NetworkStats } from '../../src/features/stats/network-stats.js';
import { TEST_KEY } from '../helpers/app.js';
import { checkBody, proveBody } from '../fixtures/prover/samples.js';
import { call, fullApp, type Answer } from './helpers/apps.js';
import { registerFormats } from './helpers/formats.js';
import { ProofServerStub, type StubMode } from './helpers/proof-server-stub.js';

registerFormats();
/** What the front itself may answer on any route (the brief's generic statuses). */
const GENERIC = [404, 405, 413, 415, 431, 429, 503];
/**
 * A fixed number of requests, not a time box: the same seed then plays the same requests on a busy
 * machine as on an idle one (a 12 s box ran 950 of them beside a second copy of the suite, and
 * only 2 reached the proof server). Starting the devnet-backed rig (three networks, a DUST sync, a
 * proof-server stub) is most of the file's time.
 */
const RUNS = 2_500;
t.setTimeout(300_000);

const stub = await ProofServerStub.start();
t.teardown(() => stub.stop());
const { s, fake, logs } = await fullApp(t, stub.url);
const mainnet = s.app.context.component<NetworkStats>('stats:mainnet')!;
await mainnet.follower.waitUntil((f) => f.state === 'live' && mainnet.window.size === fake.blocks.length);
await s.app.context.component<SponsorshipComponent>(SPONSORSHIP_COMPONENT)!.service!.whenSynced('preview');
t.test('readiness of this rig: only preprod, whose indexer is unreachable, is missing', async (t) => {
  const r = await call(`${s.url}/readyz`);
  t.equal(r.status, 503);
  t.match(r.json, { status: 'not-ready', missing: [/^stats:preprod: no block from the indexer yet/] });
  t.equal((r.json!['missing'] as string[]).length, 1, "the synced DUST wallets of preview, the proof-server stub and mainnet's follower are ready");
});
const routes: readonly RouteDef[] = s.app.routes;

/** uWS patterns: a `:param` segment matches any one segment. */
function matches(pattern: string, path: string): boolean {
  const p = pattern.split('/');
  // One trailing `/` names the same resource (server.ts, add): `/health/` is `/health`.
  const q = (path.length > 1 && path.endsWith('/') && !path.endsWith('//') ? path.slice(0, -1) : path).split('/');
  return p.length === q.length && p.every((seg, i) => seg.startsWith(':') || seg === q[i]);
}

/** HEAD is GET without the body (RFC 9110 §9.3.2): a GET route answers it. */
const serves = (r: RouteDef, method: string): boolean => r.method === method || (method === 'HEAD' && r.method === 'GET');

/** The statuses the OpenAPI document (route records) allows for this request, plus the generic ones. */
function documented(method: string, path: string): Set<number> {
  const allowed = new Set(GENERIC);
  for (const r of routes) if (serves(r, method) && matches(r.url, path)) for (const code of Object.keys(r.schema.response)) allowed.add(Number(code));
  if (method === 'OPTIONS' && preflighted(path)) allowed.add(204);
  return allowed;
}

/** Public GET routes answer a CORS preflight (server.corsOrigins, default any): 204 without a body. */
const preflighted = (path: string): boolean => routes.some((r) => r.auth === 'none' && r.method === 'GET' && matches(r.url, path));

function routeOf(method: string, path: string): RouteDef | undefined {
  return routes.find((r) => serves(r, method) && matches(r.url, path));
}

const printable = (max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });
const hex64 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
const networkSegment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('mainnet', 'preprod', 'preview') },
  { weight: 1, arbitrary: fc.constantFrom('MAINNET', 'x', '..', '%2e%2e', 'mainnet%00', '%E2%80%AE', 'ws') },
  { weight: 1, arbitrary: printable(12).map(encodeURIComponent) },
);
const tail = fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '//', '/x', '/../health', '%20', ';x=1') });
const extraPaths = ['/', '/api/v1', '/api/v1/mainnet', '/api/v1/mainnet/ws', '/favicon.ico', '//prove', '/PROVE', '/api/openapi.json/x'];
const path = fc.oneof(
  // Keyed (proving, sponsorship) and public routes equally often, though there are fewer keyed ones.
  {
    weight: 12,
    arbitrary: fc
      .record({
        route: fc.oneof(fc.constantFrom(...routes.filter((r) => r.auth === 'key')), fc.constantFrom(...routes.filter((r) => r.auth !== 'key'))),
        net: networkSegment,
        tail,
      })
      .map(({ route, net, tail: t2 }) => route.url.replace(':network', net) + t2),
  },
  { weight: 1, arbitrary: fc.constantFrom(...extraPaths) },
);
const paramNames = [...new Set(routes.flatMap((r) => Object.keys(r.schema.querystring?.properties ?? {})))];
const queryValue = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '-1',
    '20',
    '100',
    '101',
    '1e3',
    '2147483647',
    '2147483648',
    '99999999999999999999',
    'mainnet',
    'preview',
    'moon',
    'mn_addr1qqqq',
    'mn_addr_undeployed1qqqq',
    '%',
    '%zz',
    'true',
  ),
  hex64,
  hex64.map((h) => `0x${h}`),
  fc.integer({ min: 0, max: 12 }).map(String),
  printable(80),
);
const query = fc
  .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...paramNames) }, { weight: 1, arbitrary: printable(8) }), queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`));
const headers = fc
  .record(
    {
      'x-api-key': fc.constantFrom(TEST_KEY, TEST_KEY, TEST_KEY, 'wrong-key-0123456789abcdef', ''),
      authorization: fc.constantFrom(`Bearer ${TEST_KEY}`, 'Bearer nope', 'Basic Zm9vOmJhcg=='),
      'content-type': fc.constantFrom(
        'application/octet-stream',
        'application/octet-stream',
        'application/octet-stream',
        'application/json',
        'text/plain',
        'application/octet-stream; charset=x',
        'APPLICATION/OCTET-STREAM',
        '',
      ),
      'x-midnight-network': fc.constantFrom('mainnet', 'mainnet', 'preprod', 'preview', 'moon', 'Preview'),
      'if-none-match': fc.constantFrom('*', '"x"', 'W/"a", "b"'),
      'x-request-id': printable(140),
      'x-client-id': printable(40),
      accept: fc.constantFrom('*/*', 'application/json', 'text/html'),
    },
    // Present (possibly empty, then dropped) on most requests, so many get past auth and the body checks.
    { requiredKeys: ['x-api-key', 'content-type'] },
  )
  .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>);
/** How the upstream proof server behaves for this request (mainnet and preprod prove through it). */
const upstreamMode = fc.oneof(
  { weight: 6, arbitrary: fc.constant<StubMode>('ok') },
  { weight: 1, arbitrary: fc.constantFrom<StubMode>('busy429', 'busy503', 'fail', 'junk', 'reject', 'reset') },
);
const request = fc
  .record({
    path,
    query,
    headers,
    upstream: upstreamMode,
    body: fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: fc.uint8Array({ maxLength: 2048 }) },
      // Well-formed proof-server bodies (a new binding input each, past the result cache) reach the backends.
      { weight: 2, arbitrary: fc.bigInt({ min: 1n, max: 1n << 60n }).map((b) => proveBody(undefined, b)) },
      { weight: 1, arbitrary: fc.constant(checkBody()) },
    ),
    other: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
    same: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ path: p, query: q, headers: h, upstream, body, other, same }) => {
    const route = routes.find((r) => matches(r.url, p));
    const method = same > 0 && route ? route.method : other;
    return { method, path: p, query: q, headers: h, upstream, body: method === 'GET' || method === 'HEAD' ? undefined : body };
  });

type Req = { method: string; path: string; query: string; headers: Record<string, string>; upstream: StubMode; body: Uint8Array | undefined };
const tally = new Map<number, number>();
let upstreamCalls = 0;

function check(sent: Req, r: Answer): void {
  // What goes on the wire: the client resolves dot segments (WHATWG URL), as any would.
  const req = { ...sent, path: new URL(`http://x${sent.path}`).pathname };
  const where = `${req.method} ${sent.path}${req.query}`;
  tally.set(r.status, (tally.get(r.status) ?? 0) + 1);
  const allowed = documented(req.method, req.path);
  if (!allowed.has(r.status)) throw new Error(`${where}: ${r.status} is not documented (${[...allowed].join(' ')}): ${r.text.slice(0, 200)}`);
  const route = routeOf(req.method, req.path);
  const type = String(r.headers['content-type'] ?? '');
  // A HEAD answer has no body to check (RFC 9110 §9.3.2), nor has a preflight's 204.
  if (req.method === 'HEAD') return;
  if (req.method === 'OPTIONS' && r.status === 204) {
    if (r.text !== '') throw new Error(`${where}: a preflight answer with a body`);
    return;
  }
  if (r.status >= 400) {
    if (!type.startsWith('application/json')) throw new Error(`${where}: error ${r.status} is not JSON`);
    if (!Value.Check(ErrorSchema, r.json)) throw new Error(`${where}: error body does not match the Error schema: ${r.text}`);
    const code = r.json!['code'] as ErrorCode;
    if (!(code in ERRORS)) throw new Error(`${where}: code ${code} is not in the catalogue`);
    if (ERRORS[code].status !== r.status) throw new Error(`${where}: ${code} is ${ERRORS[code].status}, sent with ${r.status}`);
    if (code === 'INTERNAL') throw new Error(`${where}: an internal error`);
    if (r.status === 401 && r.headers['www-authenticate'] === undefined) throw new Error(`${where}: 401 without WWW-Authenticate`);
    if (r.status === 405 && r.headers['allow'] === undefined) throw new Error(`${where}: 405 without Allow`);
    if (r.status === 429 && r.headers['retry-after'] === undefined) throw new Error(`${where}: 429 without Retry-After`);
    return;
  }
  const doc = route?.schema.response[r.status];
  if (!route || !doc) throw new Error(`${where}: ${r.status} from no documented route`);
  if (r.status === 304) return;
  const expected = doc.contentType ?? 'application/json';
  if (!type.startsWith(expected) && !(route.url === '/ready' && type.startsWith('application/json')))
    throw new Error(`${where}: ${type}, documented ${expected}`);
  if (doc.schema && !Value.Check(doc.schema, r.json)) throw new Error(`${where}: 200 body does not match its schema: ${r.text.slice(0, 300)}`);
}

t.test('random requests on every route: documented statuses, schema-valid bodies, no crash', async (t) => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(request, async (req) => {
      runs++;
      stub.mode = req.upstream;
      const before = stub.count('/prove') + stub.count('/check');
      const r = await call(`${s.url}${req.path}${req.query}`, { method: req.method, headers: req.headers, ...(req.body ? { body: req.body } : {}) });
      upstreamCalls += stub.count('/prove') + stub.count('/check') - before;
      check(req, r);
    }),
    { numRuns: RUNS, seed: Number(process.env['FUZZ_SEED'] ?? 0x6e6774) },
  );
  stub.mode = 'ok';
  t.equal(runs, RUNS, `${runs} requests; statuses ${JSON.stringify(Object.fromEntries([...tally].sort(([a], [b]) => a - b)))}`);
  t.ok(
    [200, 400, 401, 404, 405, 415].every((c) => tally.has(c)),
    'the run reached past the front into the routes',
  );
  t.ok(upstreamCalls >= 3, `and ${upstreamCalls} requests reached the upstream proof server`);
});

t.test('HEAD on GET routes (uptime monitors and load balancers probe with it)', async (t) => {
  // Found by this run: HEAD /health was 405 (RFC 9110 §9.1: servers MUST support GET and HEAD).
  const head = await call(`${s.url}/health`, { method: 'HEAD' });
  t.equal(head.status, 200, 'HEAD /health answers like GET');
  t.equal(head.text, '', 'without a body');
});

t.test('afterwards: still serving, nothing in flight, no unhandled error, no worker crash', async (t) => {
  t.equal((await call(`${s.url}/api/v1/mainnet/latest-block`)).status, 200);
  await s.app.server.drained();
  t.equal(s.app.server.inFlight, 0);
  t.notOk(
    logs.lines.some((l) => l['msg'] === 'unhandled error'),
    'no unhandled error was logged',
  );
  t.match(s.app.context.component<WorkerPoolComponent>(WORKER_POOL)!.health(), { crashed: 0 });
});
