import { createServer } from 'node:net';
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { mountProver, PROVER_COMPONENT, type ProverComponent } from '../../src/features/proving/index.js';
import type { ResultEvent } from '../../src/features/proving/proof-results.js';
import { startStandIn } from '../fixtures/prover/stand-in.js';
import { upstreamConfig } from '../fixtures/prover/apps.js';
import { checkBody, proveBody, midnightFile } from '../fixtures/prover/samples.js';

const HEADERS = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };

async function setup(t: { teardown(fn: () => unknown): void }, args: string[] = []) {
  const standIn = await startStandIn(args);
  t.teardown(() => standIn.close());
  const s = await startApp(upstreamConfig(standIn.url), { modules: [mountProver] });
  t.teardown(() => s.close());
  return { standIn, s, prover: s.app.context.component<ProverComponent>(PROVER_COMPONENT)! };
}

const post = (url: string, path: string, body: Uint8Array) => request(`${url}${path}`, { method: 'POST', body, headers: HEADERS });

t.test('bodies and answers pass through unchanged, on every proof-server route', async (t) => {
  const { standIn, s } = await setup(t);
  for (const [path, body] of [
    ['/prove', proveBody()],
    ['/check', checkBody()],
    ['/verify', checkBody()],
    ['/k', midnightFile('zk/zswap_output.bzkir')],
  ] as const) {
    const direct = await request(`${standIn.url}${path === '/verify' ? '/check' : path}`, { method: 'POST', body });
    const via = await post(s.url, path, body);
    t.equal(via.statusCode, 200, path);
    t.equal(via.headers['x-prover'], 'upstream');
    t.same(Buffer.from(await via.body.arrayBuffer()), Buffer.from(await direct.body.arrayBuffer()), `${path}: the stand-in's bytes`);
  }
  for (const path of ['/version', '/ready', '/proof-versions']) {
    const direct = await request(`${standIn.url}${path}`);
    const via = await request(`${s.url}${path}`, { headers: { 'x-api-key': TEST_KEY } });
    t.equal(via.statusCode, 200, path);
    // /ready carries the proof server's own timestamp: compare the rest.
    const strip = (text: string): string => text.replace(/"timestamp":"[^"]*"/, '');
    t.equal(strip(await via.body.text()), strip(await direct.body.text()), `${path} relayed`);
  }
});

t.test('the proof server busy → 503 with Retry-After (its own, else 5)', async (t) => {
  const { standIn, s } = await setup(t, ['--mode', 'busy']);
  let res = await post(s.url, '/prove', proveBody());
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '7');
  t.same(await res.body.json(), { error: 'Service Unavailable', message: 'The proof server is busy (503): job queue full', code: 'PROVER_BUSY' });
  await standIn.setMode('busy429');
  res = await post(s.url, '/prove', proveBody());
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '5');
  t.match(await res.body.json(), { code: 'PROVER_BUSY' });
});

t.test('its 400 keeps its reason, its 500 is 500, a 200 that is not a proof is 502', async (t) => {
  const { standIn, s } = await setup(t, ['--mode', 'reject']);
  let res = await post(s.url, '/prove', proveBody());
  t.equal(res.statusCode, 400);
  t.same(await res.body.json(), {
    error: 'Bad Request',
    message: 'The proof server rejected the request: bad input: stand-in rejects this request',
    code: 'PROVER_REJECTED',
  });
  await standIn.setMode('fail');
  res = await post(s.url, '/prove', proveBody());
  t.equal(res.statusCode, 500);
  t.match(await res.body.json(), { code: 'PROVER_FAILED' });
  await standIn.setMode('junk');
  res = await post(s.url, '/prove', proveBody());
  t.equal(res.statusCode, 502);
  t.same(await res.body.json(), { error: 'Bad Gateway', message: "The proof server's /prove answer is not a versioned proof", code: 'PROVER_BAD_RESPONSE' });
  res = await post(s.url, '/prove', proveBody());
  t.equal(res.headers['x-cache'], undefined, 'errors are never cached');
  await res.body.dump();
  t.equal((await standIn.calls())['/prove'], 4, 'every failed attempt reached the proof server');
});

t.test('the proof server down → 502 {error}', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
  const s = await startApp(upstreamConfig(`http://127.0.0.1:${port}`), { modules: [mountProver] });
  t.teardown(() => s.close());
  const res = await post(s.url, '/prove', proveBody());
  t.equal(res.statusCode, 502);
  t.same(await res.body.json(), {
    error: 'Bad Gateway',
    message: `The proof server at http://127.0.0.1:${port} could not be reached (ECONNREFUSED)`,
    code: 'PROVER_UNREACHABLE',
  });
  const health = s.app.health() as { components: Record<string, { networks: Record<string, { status: string }> }> };
  t.equal(health.components['prover']!.networks['preview']!.status, 'degraded');
});

t.test('no answer within prover.timeoutMs → 504', async (t) => {
  const standIn = await startStandIn(['--latency-ms', '5000']);
  t.teardown(() => standIn.close());
  const s = await startApp(upstreamConfig(standIn.url, { timeoutMs: 300 }), { modules: [mountProver] });
  t.teardown(() => s.close());
  const res = await post(s.url, '/prove', proveBody());
  t.equal(res.statusCode, 504);
  t.same(await res.body.json(), {
    error: 'Gateway Timeout',
    message: `The proof server at ${standIn.url} did not answer within 300 ms`,
    code: 'PROVER_TIMEOUT',
  });
});

t.test('identical concurrent requests share one proof-server call', async (t) => {
  const { standIn, s, prover } = await setup(t, ['--mode', 'hold']);
  const N = 5;
  const joined = new Promise<ResultEvent[]>((resolve) => {
    const seen: ResultEvent[] = [];
    prover.events.on('result', (e) => {
      seen.push(e);
      if (seen.length === N) resolve(seen);
    });
  });
  const body = proveBody();
  const pending = Array.from({ length: N }, () =>
    post(s.url, '/prove', body).then(async (r) => ({ status: r.statusCode, cache: r.headers['x-cache'], bytes: Buffer.from(await r.body.arrayBuffer()) })),
  );
  const events = await joined;
  t.same(events.map((e) => e.cache).sort(), ['MISS', 'SHARED', 'SHARED', 'SHARED', 'SHARED']);
  await standIn.release();
  const answers = await Promise.all(pending);
  t.same(
    answers.map((a) => a.status),
    Array(N).fill(200),
  );
  t.ok(
    answers.every((a) => a.bytes.equals(answers[0]!.bytes)),
    'the same proof for all',
  );
  t.equal((await standIn.calls())['/prove'], 1, 'one backend call');
});
