/** Lookup caching: single-flight, X-Cache, ETag/304, lifetimes by finality, stale on failure. */
import t from 'tap';
import { statsApp } from '../fixtures/stats/stats-app.js';

t.test('N concurrent identical lookups cost one upstream call', async (t) => {
  const { get, fake } = await statsApp(t, { blocks: 4 });
  const release = fake.hold();
  const pending = Array.from({ length: 20 }, () => get('/api/v1/mainnet/block?height=1'));
  await fake.until(() => fake.count('BlockDetail') === 1);
  release();
  const answers = await Promise.all(pending);
  t.strictSame(
    answers.map((a) => a.status),
    Array(20).fill(200),
  );
  t.strictSame(new Set(answers.map((a) => a.headers['x-cache'])), new Set(['MISS']));
  t.equal(new Set(answers.map((a) => a.text)).size, 1, 'one body for all');
  t.equal(fake.count('BlockDetail'), 1, 'one upstream request');
  const hit = await get('/api/v1/mainnet/block?height=1');
  t.equal(hit.headers['x-cache'], 'HIT');
  t.equal(hit.headers['etag'], answers[0]!.headers['etag']);
  t.equal(fake.count('BlockDetail'), 1);
});

t.test('X-Cache MISS then HIT; ETag and 304 on both', async (t) => {
  const { get, fake } = await statsApp(t, { blocks: 3 });
  const hash = fake.blocks[1]!.transactions[0]!.hash;
  const miss = await get(`/api/v1/mainnet/transaction?hash=${hash}`);
  t.equal(miss.headers['x-cache'], 'MISS');
  const etag = miss.headers['etag'] as string;
  t.match(etag, /^"[A-Za-z0-9_-]{22}"$/);
  const hit = await get(`/api/v1/mainnet/transaction?hash=${hash}`);
  t.equal(hit.headers['x-cache'], 'HIT');
  t.equal(hit.text, miss.text);
  const notModified = await get(`/api/v1/mainnet/transaction?hash=${hash}`, { 'if-none-match': etag });
  t.equal(notModified.status, 304);
  t.equal(notModified.text, '');
  t.equal(notModified.headers['etag'], etag);
  const other = fake.blocks[2]!.transactions[0]!.hash;
  const first = await get(`/api/v1/mainnet/transaction?hash=${other}`);
  const missThen304 = await get(`/api/v1/mainnet/transaction?hash=${fake.blocks[0]!.transactions[0]!.hash}`, {
    'if-none-match': `W/${first.headers['etag']}, "x"`,
  });
  t.equal(missThen304.status, 200, 'a different body does not match');
  t.equal(fake.count('TransactionDetail'), 3);
});

t.test('tip data expires with the next block; finalized data lasts longer', async (t) => {
  const { get, fake, clock } = await statsApp(t, { blocks: 4 });
  const tip = await get('/api/v1/mainnet/block?height=3');
  const final = await get('/api/v1/mainnet/block?height=1');
  t.strictSame([tip.headers['cache-control'], final.headers['cache-control']], ['public, max-age=6', 'public, max-age=3600']);
  clock.advance(5999);
  t.strictSame(
    [(await get('/api/v1/mainnet/block?height=3')).headers['x-cache'], (await get('/api/v1/mainnet/block?height=1')).headers['x-cache']],
    ['HIT', 'HIT'],
  );
  clock.advance(1);
  t.strictSame(
    [(await get('/api/v1/mainnet/block?height=3')).headers['x-cache'], (await get('/api/v1/mainnet/block?height=1')).headers['x-cache']],
    ['MISS', 'HIT'],
  );
  clock.advance(600_000);
  t.equal((await get('/api/v1/mainnet/block?height=1')).headers['x-cache'], 'MISS', 'after 10 minutes');
  t.equal(fake.count('BlockDetail'), 4);
});

t.test('an expired entry is served STALE with its age when the indexer fails', async (t) => {
  const { get, fake, clock } = await statsApp(t, { blocks: 3 });
  const fresh = await get('/api/v1/mainnet/contract?address=' + 'cd'.repeat(32));
  t.equal(fresh.status, 404, 'errors are not cached');
  const ok = await get('/api/v1/mainnet/block?height=2');
  clock.advance(10_000);
  fake.setMode('down');
  const stale = await get('/api/v1/mainnet/block?height=2');
  t.equal(stale.status, 200);
  t.equal(stale.text, ok.text);
  t.strictSame(
    [stale.headers['x-cache'], stale.headers['age'], stale.headers['cache-control'], stale.headers['etag']],
    ['STALE', '10', 'public, max-age=1', ok.headers['etag']],
  );
  const none = await get('/api/v1/mainnet/block?height=1');
  t.equal(none.status, 500, 'nothing cached for that one');
  t.equal((none.json as { code: string }).code, 'INDEXER_UNAVAILABLE');
});
