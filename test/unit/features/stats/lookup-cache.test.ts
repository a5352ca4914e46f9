/** Per-entry lifetimes on the injected clock, stale-on-error (single-flight itself: test/unit/core/single-flight.test.ts). */
import t from 'tap';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { LookupCache } from '../../../../src/features/stats/lookup-cache.js';

t.test('HIT while fresh, MISS when expired, STALE when the indexer fails', async (t) => {
  const clock = new ManualClock(1000);
  const cache = new LookupCache(10, clock);
  let n = 0;
  let fail: GatewayError | undefined;
  const fetch = async () => {
    if (fail) throw fail;
    return { value: { n: ++n }, ttlMs: 5000, cacheControl: 'public, max-age=6' };
  };
  const miss = await cache.get('k', fetch);
  t.equal(miss.headers?.['X-Cache'], 'MISS');
  t.equal(String(miss.body), '{"n":1}');
  const hit = cache.get('k', fetch);
  t.notOk(hit instanceof Promise, 'a hit is synchronous');
  t.equal((hit as { headers: Record<string, string> }).headers['X-Cache'], 'HIT');
  t.equal((hit as { headers: Record<string, string> }).headers['ETag'], miss.headers?.['ETag']);
  clock.advance(5000);
  const again = await cache.get('k', fetch);
  t.equal(String(again.body), '{"n":2}', 'expired: fetched again');
  clock.advance(7000);
  fail = new GatewayError('INDEXER_UNAVAILABLE');
  const stale = await cache.get('k', fetch);
  t.strictSame(stale.headers, { ETag: again.headers?.['ETag'], 'Cache-Control': 'public, max-age=1', 'X-Cache': 'STALE', Age: '7' });
  t.equal(String(stale.body), '{"n":2}');
  fail = new GatewayError('BLOCK_NOT_FOUND');
  await t.rejects(Promise.resolve(cache.get('k', fetch)), { code: 'BLOCK_NOT_FOUND' }, 'only indexer failures fall back');
  fail = new GatewayError('INDEXER_TIMEOUT');
  await t.rejects(Promise.resolve(cache.get('new', fetch)), { code: 'INDEXER_TIMEOUT' }, 'nothing cached: the error');
  fail = new GatewayError('INDEXER_BUSY');
  const busy = await cache.get('k', fetch);
  t.equal(busy.headers?.['X-Cache'], 'STALE', 'the address-stream cap also falls back to what was cached');
  t.equal(String(busy.body), '{"n":2}');
  await t.rejects(Promise.resolve(cache.get('other', fetch)), { code: 'INDEXER_BUSY' }, 'nothing cached: the 503');
  t.strictSame([cache.hits, cache.misses, cache.stale], [1, 7, 2]);
});
