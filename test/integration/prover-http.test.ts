import t from 'tap';
import { request } from 'undici';
import { ManualClock } from '../helpers/manual-clock.js';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { mountProver } from '../../src/features/proving/index.js';
import { startStandIn, type StandIn } from '../fixtures/prover/stand-in.js';
import { upstreamConfig } from '../fixtures/prover/apps.js';
import { checkBody, proveBody, preimageAt } from '../fixtures/prover/samples.js';

const HEADERS = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };
let standIn: StandIn;
t.before(async () => {
  standIn = await startStandIn();
});
t.teardown(() => standIn.close());

t.test('no API key → 401', async (t) => {
  const s = await startApp(upstreamConfig(standIn.url), { modules: [mountProver] });
  t.teardown(() => s.close());
  for (const [method, path] of [
    ['POST', '/prove'],
    ['POST', '/verify'],
    ['POST', '/check'],
    ['POST', '/k'],
    ['GET', '/version'],
    ['GET', '/ready'],
    ['GET', '/proof-versions'],
  ] as const) {
    const res = await request(`${s.url}${path}`, {
      method,
      ...(method === 'POST' ? { body: proveBody(), headers: { 'content-type': 'application/octet-stream' } } : {}),
    });
    t.equal(res.statusCode, 401, `${method} ${path}`);
    t.same(await res.body.json(), { error: 'Unauthorized', message: 'Missing or invalid API key', code: 'UNAUTHORIZED' });
  }
});

t.test("a body that is not the route's format → 400 naming what is wrong, before any prover sees it", async (t) => {
  const s = await startApp(upstreamConfig(standIn.url), { modules: [mountProver] });
  t.teardown(() => s.close());
  const before = (await standIn.calls())['/prove'] ?? 0;
  const cases: Array<[string, Uint8Array, string]> = [
    [
      '/prove',
      Buffer.from('garbage'),
      'a /prove body must start with the tag "midnight:(proof-preimage-versioned,option(proving-data),option(fr-bls)):"; the ' +
        'body starts with bytes 0x67617262616765 (no midnight: tag)',
    ],
    [
      '/prove',
      checkBody(),
      'a /prove body must start with the tag "midnight:(proof-preimage-versioned,option(proving-data),option(fr-bls)):"; the ' +
        'body starts with the tag "midnight:(proof-preimage-versioned,option(wrapped-ir)):"',
    ],
    [
      '/verify',
      proveBody(),
      'a /check body must start with the tag "midnight:(proof-preimage-versioned,option(wrapped-ir)):"; the body starts with ' +
        'the tag "midnight:(proof-preimage-versioned,option(proving-data),option(fr-bls)):"',
    ],
    ['/prove', proveBody().subarray(0, 200), 'truncated: preimage public transcript inputs claims 64 elements at byte 184, 16 bytes left'],
    ['/prove', Buffer.concat([proveBody(), Buffer.from([0])]), '1 unexpected bytes after the proving request at byte 481'],
    [
      '/k',
      Buffer.from('midnight:transaction[v9]:xyz'),
      'a /k body (a circuit IR) must start with the tag "midnight:ir-source[v2]:"; the body starts with the tag "midnight:transaction[v9]:"',
    ],
  ];
  for (const [path, body, error] of cases) {
    const res = await request(`${s.url}${path}`, { method: 'POST', body, headers: HEADERS });
    t.equal(res.statusCode, 400, error);
    t.same(await res.body.json(), { error: 'Invalid Body', message: error, code: 'INVALID_BODY' });
  }
  t.equal((await standIn.calls())['/prove'] ?? 0, before, 'nothing reached the proof server');
});

t.test('bodies above server.proverBodyLimit → 413; unknown network → 400; wrong type → 415', async (t) => {
  const s = await startApp({ ...upstreamConfig(standIn.url), server: { proverBodyLimit: 1024 } }, { modules: [mountProver] });
  t.teardown(() => s.close());
  let res = await request(`${s.url}/prove`, { method: 'POST', body: Buffer.alloc(2048), headers: HEADERS });
  t.equal(res.statusCode, 413);
  t.match(await res.body.json(), { code: 'PAYLOAD_TOO_LARGE' });
  res = await request(`${s.url}/prove?network=testnet`, { method: 'POST', body: proveBody(), headers: HEADERS });
  t.equal(res.statusCode, 400);
  t.same(await res.body.json(), {
    error: 'Bad Request',
    message: 'Unknown network "testnet": X-Midnight-Network (or ?network=) must be one of mainnet, preprod, preview',
    code: 'INVALID_NETWORK',
  });
  res = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(), headers: { ...HEADERS, 'x-midnight-network': 'Devnet' } });
  t.equal(res.statusCode, 400);
  await res.body.dump();
  res = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(), headers: { ...HEADERS, 'x-midnight-network': 'PREPROD' } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['x-midnight-network'], 'preprod');
  await res.body.dump();
  res = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(), headers: { ...HEADERS, 'content-type': 'text/plain' } });
  t.equal(res.statusCode, 415);
  await res.body.dump();
});

t.test('X-Cache: MISS, then HIT, then MISS once the 30 s have passed; per network; /verify too', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const s = await startApp(upstreamConfig(standIn.url), { modules: [mountProver], clock });
  t.teardown(() => s.close());
  const body = proveBody(preimageAt('cache/test'));
  const cacheOf = async (path: string, b: Uint8Array, network = 'preview'): Promise<string | undefined> => {
    const res = await request(`${s.url}${path}?network=${network}`, { method: 'POST', body: b, headers: HEADERS });
    t.equal(res.statusCode, 200);
    await res.body.dump();
    return res.headers['x-cache'] as string | undefined;
  };
  t.equal(await cacheOf('/prove', body), 'MISS');
  t.equal(await cacheOf('/prove', body), 'HIT');
  t.equal(await cacheOf('/prove', body, 'mainnet'), 'MISS', 'another network is another key');
  clock.advance(29_999);
  t.equal(await cacheOf('/prove', body), 'HIT');
  clock.advance(1);
  t.equal(await cacheOf('/prove', body), 'MISS', 'expired after 30 s');
  t.equal(await cacheOf('/verify', checkBody()), 'MISS');
  t.equal(await cacheOf('/check', checkBody()), 'HIT', '/check and /verify are one operation');
});
