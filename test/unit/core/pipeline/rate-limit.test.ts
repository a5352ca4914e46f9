import t from 'tap';
import { MemoryRateLimitStore, policyField, rateLimitField, resetSeconds, retryAfterSeconds } from '../../../../src/core/guards/rate-limit.js';

t.test('fixed window counts and resets at the window boundary', async (t) => {
  const s = new MemoryRateLimitStore('fixed', 10);
  t.same(
    [1, 2, 3].map(() => s.hit('key', 'a', 2, 1000, 100).allowed),
    [true, true, false],
  );
  t.equal(s.hit('key', 'a', 2, 1000, 100).resetAt, 1000);
  t.equal(s.hit('key', 'a', 2, 1000, 1000).allowed, true, 'new window');
});

t.test('sliding window weighs the previous window and admits exactly when it says', async (t) => {
  const s = new MemoryRateLimitStore('sliding', 10);
  for (let i = 0; i < 10; i++) t.equal(s.hit('key', 'k', 10, 1000, 900).allowed, true);
  // At t=1000 the previous window (10 hits) weighs fully: denied.
  const denied = s.hit('key', 'k', 10, 1000, 1000);
  t.equal(denied.allowed, false);
  // prev*(1-x) + 0 <= 9  →  x >= 0.1  →  admitted at 1100.
  t.equal(denied.resetAt, 1100);
  t.equal(s.hit('key', 'k', 10, 1000, 1099).allowed, false);
  t.equal(s.hit('key', 'k', 10, 1000, 1100).allowed, true);
});

t.test('past the cap a new client gets its own budget: the least recently used entry is evicted', async (t) => {
  const s = new MemoryRateLimitStore('fixed', 10);
  for (let i = 0; i < 10; i++) for (let n = 0; n < 2; n++) s.hit('ip', `old-${i}`, 2, 60_000, i);
  t.equal(s.size, 10, 'full, every client at its limit');
  s.hit('ip', 'old-0', 2, 60_000, 20); // old-0 is used again: now the most recent
  const first = s.hit('ip', 'new-a', 2, 60_000, 21);
  const second = s.hit('ip', 'new-b', 2, 60_000, 22);
  t.same([first.allowed, first.remaining], [true, 1], 'a new client has its full budget');
  t.same([second.allowed, second.remaining], [true, 1], 'and the next one too: nothing is shared');
  t.equal(s.size, 10, 'still within the cap');
  t.equal(s.hit('ip', 'old-0', 2, 60_000, 23).allowed, false, 'the recently used entry was kept, with its count');
  t.equal(s.hit('ip', 'old-3', 2, 60_000, 24).allowed, false, 'so was one not yet reached by eviction');
  t.equal(s.hit('ip', 'old-1', 2, 60_000, 25).remaining, 1, 'the least recently used ones were evicted (old-1 starts again)');
});

t.test('memory stays bounded under churn; a client in use keeps its count', async (t) => {
  const s = new MemoryRateLimitStore('fixed', 100);
  for (let i = 0; i < 3; i++) s.hit('key', 'real', 3, 60_000, 0);
  for (let i = 0; i < 10_000; i++) {
    if (i % 40 === 0) s.hit('key', 'real', 3, 60_000, 10);
    const r = s.hit('key', `churn-${i}`, 1_000, 60_000, 10);
    if (r.remaining !== 999) t.fail(`churned client ${i} shared a counter (remaining ${r.remaining})`);
  }
  t.ok(s.size <= 100, `size ${s.size} within the cap`);
  const real = s.hit('key', 'real', 3, 60_000, 20);
  t.equal(real.allowed, false, 'the real key, used all along, is still at its limit');
});

t.test('scopes are counted apart: IP churn cannot crowd out an API key', async (t) => {
  const s = new MemoryRateLimitStore('fixed', 10);
  for (let i = 0; i < 1000; i++) s.hit('ip', `10.0.${i >> 8}.${i & 255}`, 5, 60_000, 0);
  const first = s.hit('key', 'new-key', 2, 60_000, 1);
  t.equal(first.remaining, 1, 'a new key gets its own counter, not the IP overflow');
  t.ok(s.size <= 20);
});

t.test('stale entries are swept when the cap is reached in a later window', async (t) => {
  const s = new MemoryRateLimitStore('fixed', 10);
  for (let i = 0; i < 10; i++) s.hit('key', `old-${i}`, 5, 1000, 0);
  t.equal(s.size, 10);
  t.equal(s.hit('key', 'fresh', 5, 1000, 5000).allowed, true);
  t.equal(s.size, 1, 'entries older than two windows were dropped');
});

t.test('header fields: IETF draft structured fields, reset and Retry-After never early', async (t) => {
  t.equal(policyField('key', 10, 60_000), '"key";q=10;w=60');
  t.equal(rateLimitField('key', 4, 120_000, 90_500), '"key";r=4;t=30');
  t.equal(resetSeconds(100_001), 101, 'rounded up');
  t.equal(retryAfterSeconds(100_001, 90_000), 11, 'never points before X-RateLimit-Reset (101)');
  t.equal(retryAfterSeconds(90_000, 90_000), 1, 'at least one second');
});

t.test('peek answers as hit would, without counting', async (t) => {
  for (const algorithm of ['fixed', 'sliding'] as const) {
    const s = new MemoryRateLimitStore(algorithm, 10);
    t.equal(s.peek('ip', 'a', 2, 1000, 0), undefined, `${algorithm}: untracked`);
    s.hit('ip', 'a', 2, 1000, 0);
    t.same(s.peek('ip', 'a', 2, 1000, 10), { allowed: true, limit: 2, remaining: 0, windowMs: 1000, resetAt: 1000 });
    t.equal(s.peek('ip', 'a', 2, 1000, 10)!.allowed, true, `${algorithm}: peeking twice counts nothing`);
    s.hit('ip', 'a', 2, 1000, 20);
    t.equal(s.peek('ip', 'a', 2, 1000, 30)!.allowed, false, `${algorithm}: used up`);
    t.equal(s.peek('ip', 'a', 2, 1000, 2500)!.allowed, true, `${algorithm}: two windows later`);
    t.equal(s.hit('ip', 'a', 2, 1000, 2500).remaining, 1, `${algorithm}: and hit agrees`);
  }
});
