import t from 'tap';
import { ManualClock } from '../../helpers/manual-clock.js';
import { ResultCache } from '../../../src/core/result-cache.js';

const bytes = (n: number, fill = 1): Uint8Array => new Uint8Array(n).fill(fill);

t.test('entries live ttlMs by the injected clock', async (t) => {
  const clock = new ManualClock(1_000);
  const c = new ResultCache(clock, 30_000, 1 << 20);
  c.set('a', bytes(10));
  clock.advance(29_999);
  t.same(c.get('a'), bytes(10));
  clock.advance(1);
  t.equal(c.get('a'), undefined);
  t.same(c.stats(), { entries: 0, bytes: 0, maxBytes: 1 << 20, ttlMs: 30_000 }, 'an expired entry is dropped on sight');
});

t.test('the byte cap evicts the least recently used first; a value above the cap is not kept', async (t) => {
  const c = new ResultCache(new ManualClock(), 30_000, 3 * (1_000 + 96 + 2));
  c.set('a', bytes(1_000));
  c.set('b', bytes(1_000));
  c.set('c', bytes(1_000));
  t.ok(c.get('a'), 'a used: b is now the oldest');
  c.set('d', bytes(1_000));
  t.equal(c.get('b'), undefined, 'b evicted');
  t.ok(c.get('a') && c.get('c') && c.get('d'));
  t.ok(c.stats().bytes <= c.stats().maxBytes);
  c.set('huge', bytes(10_000));
  t.equal(c.get('huge'), undefined);
  t.equal(c.stats().entries, 3, 'and nothing else was evicted for it');
});

t.test('a zero TTL disables caching', async (t) => {
  const c = new ResultCache(new ManualClock(), 0, 1 << 20);
  c.set('a', bytes(1));
  t.equal(c.get('a'), undefined);
});
