/**
 * The indexer down, slow or answering garbage: 500 with the code saying how it failed when
 * nothing is cached; cached data, marked degraded with its age, when something is; recovery.
 */
import t from 'tap';
import { FakeIndexer, type FakeMode } from '../fixtures/stats/fake-indexer.js';
import { T0, statsApp } from '../fixtures/stats/stats-app.js';

/**
 * A refused connection and a garbage answer are immediate: a deadline far beyond any load lets
 * them, not the timeout, end every request (with 300 ms, a loaded machine once saw
 * INDEXER_TIMEOUT for a refused connection). Only the slow indexer, which never answers, needs a
 * short one, and there the deadline is the only way a request can end.
 */
const NO_DEADLINE_MS = 10_000;
const failures: Array<[FakeMode, string, RegExp, number]> = [
  ['down', 'INDEXER_UNAVAILABLE', /^The indexer could not be reached: [A-Z_]+$/, NO_DEADLINE_MS],
  ['slow', 'INDEXER_TIMEOUT', /did not answer .* within 300 ms|did not acknowledge the subscription connection within 300 ms/, 300],
  ['garbage', 'INDEXER_BAD_RESPONSE', /not JSON/, NO_DEADLINE_MS],
];

for (const [mode, code, detail, upstreamTimeoutMs] of failures) {
  t.test(`indexer ${mode}, nothing cached: 500 ${code}`, async (t) => {
    const fake = await FakeIndexer.start();
    fake.addBlock(T0);
    fake.setMode(mode);
    const { get, net } = await statsApp(t, { fake, blocks: 0, wait: false, stats: { upstreamTimeoutMs } });
    await net.follower.waitUntil((f) => f.lastError?.code === code);
    for (const path of ['summary', 'latest-block', 'uptime']) {
      const r = await get(`/api/v1/mainnet/${path}`);
      t.equal(r.status, 500, path);
      const body = r.json as { error: string; message: string; code: string };
      t.equal(body.code, code, path);
      t.match(body.message, /; no data is cached for mainnet yet$/, path);
    }
    const lookup = await get('/api/v1/mainnet/block?height=0');
    t.equal(lookup.status, 500);
    t.equal((lookup.json as { code: string }).code, code);
    t.match((lookup.json as { message: string }).message, detail);
    // A public answer never names the internal indexer (its origin is in the logs and, with a key, in /health).
    const origin = new URL(fake.url).host;
    for (const path of ['summary', 'block?height=0', 'address-activity?identifier=00'])
      t.notMatch((await get(`/api/v1/mainnet/${path}`)).text, origin, `${path}: no ${origin}`);
    t.equal(net.health().status, 'down');
  });
}

t.test('indexer down with data cached: served, degraded, with its age; then recovery', async (t) => {
  const { get, fake, net, clock } = await statsApp(t, { blocks: 4, stats: { upstreamTimeoutMs: NO_DEADLINE_MS } });
  const fresh = await get('/api/v1/mainnet/summary');
  t.equal((fresh.json as { status: string }).status, 'healthy');
  t.strictSame([fresh.headers['x-cache'], fresh.headers['age']], ['HIT', undefined], 'current data: HIT, no Age');
  fake.setMode('down');
  await net.follower.waitUntil((f) => !f.upstreamOk);
  clock.advance(2000);
  const summary = await get('/api/v1/mainnet/summary');
  t.equal(summary.status, 200);
  const body = summary.json as {
    status: string;
    dataAgeSeconds: number;
    latestBlock: { height: number; ageSeconds: number };
    uptime: { status: string; score: number };
  };
  t.strictSame([body.status, body.dataAgeSeconds, body.latestBlock.height, body.latestBlock.ageSeconds], ['degraded', 2, 3, 5]);
  t.strictSame(
    body.uptime,
    { status: 'degraded', score: 1, latestBlockAgeSeconds: 5, epochUtilization: null },
    'the chain looked fine; the indexer is what fails',
  );
  t.strictSame([summary.headers['x-cache'], summary.headers['age']], ['STALE', '2'], 'the last data while the indexer fails: STALE, with its age');
  const bt = await get('/api/v1/mainnet/block-time');
  t.strictSame([bt.status, bt.headers['cache-control'], bt.headers['x-cache'], bt.headers['age']], [200, 'public, max-age=1', 'STALE', '2']);
  const recent = await get('/api/v1/mainnet/recent-transactions?limit=3');
  t.strictSame([recent.status, recent.headers['x-cache'], recent.headers['age']], [200, 'STALE', '2'], 'a limit first rendered while the indexer fails');
  const supply = await get('/api/v1/mainnet/night-supply');
  t.strictSame([supply.status, supply.headers['x-cache']], [200, 'HIT'], 'a constant is never stale');
  const notModified = await get('/api/v1/mainnet/block-time', { 'if-none-match': bt.headers['etag'] as string });
  t.strictSame([notModified.status, notModified.headers['x-cache'], notModified.headers['age']], [304, 'STALE', '2'], 'a 304 says the same');
  clock.advance(3000);
  const later = await get('/api/v1/mainnet/summary');
  t.strictSame(
    [later.headers['x-cache'], later.headers['age'], (later.json as { dataAgeSeconds: number }).dataAgeSeconds],
    ['STALE', '5', 5],
    'Age grows with the outage',
  );
  t.equal(net.health().status, 'degraded');
  t.equal((net.health()['lastError'] as { code: string }).code, 'INDEXER_UNAVAILABLE');

  fake.setMode('ok');
  await net.follower.waitUntil((f) => f.upstreamOk && f.state === 'live');
  fake.addBlock(T0 + 24_000, [fake.tx()]);
  await net.follower.waitForHeight(4);
  await net.follower.settled();
  clock.set(T0 + 28_000);
  const back = (await get('/api/v1/mainnet/summary')).json as { status: string; dataAgeSeconds: number; latestBlock: { height: number } };
  t.strictSame([back.status, back.dataAgeSeconds, back.latestBlock.height], ['healthy', 2, 4], 'the block arrived at T0 + 26 s on the manual clock');
  const backBt = await get('/api/v1/mainnet/block-time');
  t.strictSame([backBt.headers['x-cache'], backBt.headers['age']], ['HIT', undefined], 'recovered: HIT again');
  t.equal(net.health().status, 'ok');
});

t.test('garbage from the indexer while data is cached: still served', async (t) => {
  const { get, fake, net } = await statsApp(t, { blocks: 3, stats: { upstreamTimeoutMs: NO_DEADLINE_MS } });
  fake.setMode('garbage');
  fake.dropSubscriptions();
  await net.follower.waitUntil((f) => f.lastError?.code === 'INDEXER_BAD_RESPONSE' && !f.upstreamOk);
  const r = await get('/api/v1/mainnet/latest-block');
  t.equal(r.status, 200);
  t.equal((r.json as { height: number }).height, 2);
  t.equal(((await get('/api/v1/mainnet/summary')).json as { status: string }).status, 'degraded');
});
