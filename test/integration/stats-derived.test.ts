/**
 * Derived routes from the block window, asserted exactly against a fake indexer whose blocks,
 * times and epoch data the test writes, on a manual clock.
 */
import t from 'tap';
import { FakeIndexer } from '../fixtures/stats/fake-indexer.js';
import { T0, statsApp } from '../fixtures/stats/stats-app.js';

const iso = (ms: number) => new Date(ms).toISOString();
const SUPPLY = {
  total: '24000000000',
  totalSmallestUnit: '24000000000000000',
  decimals: 6,
  source: {
    name: 'midnight-ledger MAX_SUPPLY (ledger/src/structure.rs)',
    url: 'https://github.com/midnightntwrk/midnight-ledger/blob/main/ledger/src/structure.rs',
  },
};

t.test('every derived route, exactly', async (t) => {
  const fake = await FakeIndexer.start();
  fake.epochInfo = { epochNo: 100, durationSeconds: 1800, elapsedSeconds: 900 };
  fake.epochUtilization = 0.95;
  fake.dParameterHistory = [{ blockHeight: 0, numPermissionedCandidates: 10, numRegisteredCandidates: 0 }];
  const { fake: f, get, clock } = await statsApp(t, { fake, blocks: 5 });
  const tip = f.blocks[4]!;
  const latestBlock = { height: 4, hash: tip.hash, timestamp: iso(T0 + 24_000), ageSeconds: 3, protocolVersion: 1, ledger: 8 };
  const blockTime = { averageSeconds: 6, sampleSize: 4, targetSeconds: 6 };
  const blocksProduced = { total: 5, estimatedHourly: 600, estimatedDaily: 14400 };
  const uptime = { status: 'healthy', score: 0.95, latestBlockAgeSeconds: 3, epochUtilization: 0.95 };
  const epoch = { number: 100, durationSeconds: 1800, elapsedSeconds: 900, remainingSeconds: 900, progress: 0.5 };
  const dParameter = { numPermissionedCandidates: 10, numRegisteredCandidates: 0, blockHeight: 4, effectiveSinceHeight: 0 };

  const routes: Array<[string, unknown, string]> = [
    ['latest-block', latestBlock, 'public, max-age=1'],
    ['block-time', blockTime, 'public, max-age=3'],
    ['blocks-produced', blocksProduced, 'public, max-age=3'],
    ['uptime', uptime, 'public, max-age=1'],
    ['epoch', epoch, 'public, max-age=1'],
    ['d-parameter', dParameter, 'public, max-age=3'],
    ['night-supply', SUPPLY, 'public, max-age=86400'],
  ];
  for (const [path, body, cache] of routes) {
    const r = await get(`/api/v1/mainnet/${path}`);
    t.equal(r.status, 200, path);
    t.strictSame(r.json, body, path);
    t.equal(r.headers['cache-control'], cache, `${path} Cache-Control`);
    t.match(r.headers['etag'], /^"[A-Za-z0-9_-]{22}"$/, `${path} ETag`);
    t.match(r.headers['content-type'], /^application\/json/);
  }
  const summary = await get('/api/v1/mainnet/summary');
  t.strictSame(summary.json, {
    network: { id: 'mainnet', name: 'Midnight Mainnet', source: `indexer:127.0.0.1:${f.port}` },
    generatedAt: iso(T0 + 27_000),
    status: 'healthy',
    dataAgeSeconds: 0,
    ledger: 8,
    latestBlock,
    blockTime,
    blocksProduced,
    uptime,
    epoch,
    dParameter,
    nightSupply: SUPPLY,
  });

  // Within the same second nothing is re-rendered: the summary keeps its generation time.
  clock.advance(900);
  t.equal(((await get('/api/v1/mainnet/summary')).json as { generatedAt: string }).generatedAt, iso(T0 + 27_000));

  // The next second: time-dependent values move, chain-only bodies keep their bytes.
  const bt1 = await get('/api/v1/mainnet/block-time');
  clock.set(T0 + 28_500);
  t.strictSame((await get('/api/v1/mainnet/latest-block')).json, { ...latestBlock, ageSeconds: 4 });
  t.strictSame((await get('/api/v1/mainnet/epoch')).json, { ...epoch, elapsedSeconds: 901, remainingSeconds: 899, progress: 0.5006 });
  const bt2 = await get('/api/v1/mainnet/block-time');
  t.equal(bt2.headers['etag'], bt1.headers['etag'], 'same block-time bytes');
  t.equal(bt2.headers['cache-control'], 'public, max-age=2', 'the next block is due in 1.5 s');

  // A late chain: 36 s without a block halves freshness, short of stale (10 block times).
  clock.set(T0 + 60_000);
  t.strictSame((await get('/api/v1/mainnet/uptime')).json, { status: 'healthy', score: 0.475, latestBlockAgeSeconds: 36, epochUtilization: 0.95 });
  const s2 = (await get('/api/v1/mainnet/summary')).json as { status: string; dataAgeSeconds: number };
  t.equal(s2.status, 'healthy');
  t.equal(s2.dataAgeSeconds, 33);
  // A stale one: 60 s without a block.
  clock.set(T0 + 84_000);
  t.strictSame((await get('/api/v1/mainnet/uptime')).json, { status: 'degraded', score: 0, latestBlockAgeSeconds: 60, epochUtilization: 0.95 });
  t.equal(((await get('/api/v1/mainnet/summary')).json as { status: string }).status, 'degraded');
});

t.test('a new block re-renders the chain-derived routes', async (t) => {
  const { fake, net, get, clock } = await statsApp(t, { blocks: 3 });
  t.strictSame((await get('/api/v1/mainnet/blocks-produced')).json, { total: 3, estimatedHourly: 600, estimatedDaily: 14400 });
  const tx = fake.tx({ status: 'PARTIAL_SUCCESS', paidFees: '777' });
  const b = fake.addBlock(T0 + 21_000, [tx]);
  await net.follower.waitForHeight(3);
  clock.set(T0 + 22_000);
  t.strictSame((await get('/api/v1/mainnet/block-time')).json, { averageSeconds: 7, sampleSize: 3, targetSeconds: 6 });
  t.strictSame((await get('/api/v1/mainnet/blocks-produced')).json, { total: 4, estimatedHourly: 514, estimatedDaily: 12343 });
  const recent = await get('/api/v1/mainnet/recent-transactions?limit=2');
  t.strictSame(recent.json, {
    limit: 2,
    count: 2,
    transactions: [
      {
        hash: tx.hash,
        id: tx.id,
        kind: 'regular',
        status: 'PARTIAL_SUCCESS',
        paidFees: '777',
        paidFeesUnit: 'SPECK',
        blockHeight: 3,
        blockHash: b.hash,
        timestamp: iso(T0 + 21_000),
      },
      {
        hash: fake.blocks[2]!.transactions[0]!.hash,
        id: 3,
        kind: 'regular',
        status: 'SUCCESS',
        paidFees: '1000',
        paidFeesUnit: 'SPECK',
        blockHeight: 2,
        blockHash: fake.blocks[2]!.hash,
        timestamp: iso(T0 + 12_000),
      },
    ],
  });
  t.equal(recent.headers['cache-control'], 'public, max-age=5');
  const all = (await get('/api/v1/mainnet/recent-transactions')).json as { limit: number; count: number };
  t.strictSame([all.limit, all.count], [20, 4], 'default limit 20');
});

t.test('ETag and 304 on derived routes', async (t) => {
  const { get } = await statsApp(t, { blocks: 2 });
  const first = await get('/api/v1/mainnet/blocks-produced');
  const etag = first.headers['etag'] as string;
  const again = await get('/api/v1/mainnet/blocks-produced', { 'if-none-match': etag });
  t.equal(again.status, 304);
  t.equal(again.text, '');
  t.equal((await get('/api/v1/mainnet/blocks-produced', { 'if-none-match': '"other"' })).status, 200);
});

t.test('epoch from chain time on preview when the indexer has none', async (t) => {
  const { get } = await statsApp(t, { blocks: 2, network: 'preview' });
  // Now is T0 + 9 s = 1 700 000 009 000 ms; epochs of 1 800 000 ms from the Unix epoch:
  // epoch 944444 began at 1 699 999 200 000, 809 s ago.
  t.strictSame((await get('/api/v1/preview/epoch')).json, {
    number: 944444,
    durationSeconds: 1800,
    elapsedSeconds: 809,
    remainingSeconds: 991,
    progress: 0.4494,
  });
  t.equal(((await get('/api/v1/preview/summary')).json as { network: { id: string } }).network.id, 'preview');
});

t.test('epoch unavailable on mainnet without currentEpochInfo', async (t) => {
  const { get } = await statsApp(t, { blocks: 2 });
  const r = await get('/api/v1/mainnet/epoch');
  t.equal(r.status, 404);
  t.strictSame(r.json, {
    error: 'Not Found',
    message: 'No epoch information for mainnet: the indexer has no currentEpochInfo and the epoch length is not known',
    code: 'EPOCH_UNAVAILABLE',
  });
  t.equal(((await get('/api/v1/mainnet/summary')).json as { epoch: unknown }).epoch, null);
});

t.test('epoch and utilization are re-read at most once a minute, on a new block', async (t) => {
  const fake = await FakeIndexer.start();
  fake.epochInfo = { epochNo: 7, durationSeconds: 600, elapsedSeconds: 30 };
  fake.epochUtilization = 1;
  const { net, get, clock } = await statsApp(t, { fake, blocks: 2 });
  t.equal(fake.count('Governance'), 1);
  fake.epochInfo = { epochNo: 9, durationSeconds: 600, elapsedSeconds: 0 };
  fake.epochUtilization = 0.5;
  clock.advance(59_999);
  fake.addBlock(T0 + 12_000);
  await net.follower.waitForHeight(2);
  await net.governance.settled();
  t.equal(fake.count('Governance'), 1, 'not yet a minute');
  t.strictSame(
    (await get('/api/v1/mainnet/epoch')).json,
    { number: 7, durationSeconds: 600, elapsedSeconds: 89, remainingSeconds: 511, progress: 0.1483 },
    'still the old anchor, advanced by the clock',
  );
  clock.advance(1);
  fake.addBlock(T0 + 18_000);
  await net.follower.waitForHeight(3);
  await net.governance.settled();
  t.strictSame([fake.count('Governance'), fake.count('EpochUtilization')], [2, 2]);
  t.strictSame((await get('/api/v1/mainnet/epoch')).json, { number: 9, durationSeconds: 600, elapsedSeconds: 0, remainingSeconds: 600, progress: 0 });
  t.equal(((await get('/api/v1/mainnet/uptime')).json as { epochUtilization: number }).epochUtilization, 0.5);
});
