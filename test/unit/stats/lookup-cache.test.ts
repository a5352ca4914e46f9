/** Single-flight, per-entry lifetimes on the injected clock, stale-on-error. */
import t from 'tap';
import { ManualClock } from '../../../src/clock.js';
import { GatewayError } from '../../../src/errors.js';
import { LookupCache } from '../../../src/stats/lookup-cache.js';
import { SingleFlight } from '../../../src/stats/single-flight.js';
import { deferred } from '../../helpers/app.js';

t.test('one call for N concurrent identical keys; the shared call survives one caller leaving', async (t) => {
  const sf = new SingleFlight<number>();
  let calls = 0;
  const gate = deferred<number>();
  let seen: AbortSignal | undefined;
  const fn = (s: AbortSignal): Promise<number> => {
    calls++;
    seen = s;
    return gate.promise;
  };
  const a = new AbortController();
  const b = new AbortController();
  const p1 = sf.run('k', fn, a.signal);
  const p2 = sf.run('k', fn, b.signal);
  const p3 = sf.run('other', async () => 7);
  t.equal(calls, 1);
  t.equal(sf.size, 2);
  a.abort();
  t.equal(seen?.aborted, false, 'one of two callers left: still running');
  gate.resolve(42);
  t.strictSame(await Promise.all([p1, p2, p3]), [42, 42, 7]);
  t.equal(sf.size, 0);

  const c = new AbortController();
  const never = deferred<number>();
  const p4 = sf.run('k', (s) => {
    s.addEventListener('abort', () => never.reject(s.reason));
    return never.promise;
  }, c.signal);
  c.abort(new Error('gone'));
  await t.rejects(p4, { message: 'gone' }, 'every caller left: the call is aborted');
});

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
  t.strictSame([cache.hits, cache.misses, cache.stale], [1, 5, 1]);
});
