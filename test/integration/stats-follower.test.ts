/** The chain follower: backfill in aliased batches, polling fallback, reconnect and resume, chain reset. */
import t from 'tap';
import { FakeIndexer } from '../fixtures/stats/fake-indexer.js';
import { T0, statsApp } from '../fixtures/stats/stats-app.js';

t.test('backfill fills the window in aliased batches, newest first', async (t) => {
  const fake = await FakeIndexer.start();
  for (let i = 0; i < 40; i++) fake.addBlock(T0 + i * 6000);
  const { get, net } = await statsApp(t, { fake, blocks: 0, stats: { ringSize: 30 } });
  const backfills = fake.requests.filter((r) => r.operationName.startsWith('Backfill'));
  t.strictSame(
    backfills.map((r) => r.operationName),
    ['Backfill12', 'Backfill12', 'Backfill5'],
  );
  t.strictSame(backfills[0]!.variables, Object.fromEntries(Array.from({ length: 12 }, (_, k) => [`h${k}`, 38 - k])));
  t.strictSame(backfills[2]!.variables, { h0: 14, h1: 13, h2: 12, h3: 11, h4: 10 });
  t.strictSame([net.window.size, net.window.oldest?.height, net.window.tip?.height], [30, 10, 39]);
  t.strictSame((await get('/api/v1/mainnet/block-time')).json, { averageSeconds: 6, sampleSize: 29, targetSeconds: 6 });
});

t.test('subscription lost: polls meanwhile, then resumes from the last height it holds', async (t) => {
  const { fake, net, get } = await statsApp(t, { blocks: 4 });
  t.equal(fake.subscriptions.length, 1);
  fake.wsRefused = true;
  fake.dropSubscriptions();
  await net.follower.waitUntil((f) => f.state === 'polling');
  fake.addBlock(T0 + 24_000, [fake.tx()]);
  await net.follower.waitForHeight(4);
  t.equal(net.follower.state, 'polling', 'block 4 came by polling');
  // Attempts are sequential: once one that started holding block 4 has failed, every later one resumes from 4.
  await net.follower.waitUntil((f) => f.subscribedFrom.at(-1) === 4 && f.state === 'polling');
  t.ok(net.follower.reconnects >= 1);
  t.equal(fake.subscriptions.length, 1, 'refused reconnection attempts never subscribed');
  fake.wsRefused = false;
  await net.follower.waitUntil((f) => f.state === 'live');
  t.strictSame(
    fake.subscriptions.map((s) => s.variables),
    [{}, { offset: { height: 4 } }],
    'resumed from height 4, inclusive',
  );
  fake.addBlock(T0 + 30_000, [fake.tx()]);
  await net.follower.waitForHeight(5);
  t.strictSame(
    net.window.all.map((b) => b.height),
    [0, 1, 2, 3, 4, 5],
    'no gap, no duplicate',
  );
  t.strictSame(
    ((await get('/api/v1/mainnet/recent-transactions?limit=3')).json as { transactions: Array<{ blockHeight: number }> }).transactions.map(
      (x) => x.blockHeight,
    ),
    [5, 4, 3],
  );
  const health = net.health();
  t.strictSame([health.status, health['follower'], health['subscription'], health['latestHeight']], ['ok', 'live', 'connected', 5]);
});

t.test('a chain that goes backwards (reset) replaces the window', async (t) => {
  const { fake, net, get } = await statsApp(t, { blocks: 5 });
  fake.wsRefused = true;
  fake.dropSubscriptions();
  fake.blocks.length = 2;
  const fresh = fake.addBlock(T0 + 100_000);
  await net.follower.waitUntil(() => net.window.tip?.hash === fresh.hash && net.window.size === 3);
  t.strictSame(
    net.window.all.map((b) => b.height),
    [0, 1, 2],
  );
  t.equal(((await get('/api/v1/mainnet/latest-block')).json as { hash: string }).hash, fresh.hash);
});

t.test('heights the indexer does not have are not asked for again', async (t) => {
  const fake = await FakeIndexer.start();
  for (let i = 0; i < 5; i++) fake.addBlock(T0 + i * 6000);
  fake.hiddenHeights.add(0).add(1);
  const { net } = await statsApp(t, { fake, blocks: 0, wait: false });
  await net.follower.waitUntil(() => net.window.size === 3);
  await net.follower.settled();
  t.strictSame(
    fake.requests.filter((r) => r.operationName.startsWith('Backfill')).map((r) => r.variables),
    [{ h0: 3, h1: 2, h2: 1, h3: 0 }],
  );
  const tips = fake.count('Tip');
  fake.wsRefused = true;
  fake.dropSubscriptions();
  await fake.until(() => fake.count('Tip') >= tips + 2);
  await net.follower.settled();
  t.equal(fake.requests.filter((r) => r.operationName.startsWith('Backfill')).length, 1, 'polls ask for the tip only');
});
