/**
 * The in-memory per-user counters (one instance): the caps per user and fixed window, the place
 * given back by release and refund, a commit refused past maxDust, and the bound on the users kept.
 */
import t from 'tap';
import { secondsToWindowEnd, windowStartOf } from '../../../../src/features/sponsorship/common/fixed-window.js';
import { MemoryUserCounters, type HoldResult, type UserHold } from '../../../../src/features/sponsorship/policy/user-counters.js';

const WINDOW = 60_000;
const T0 = 1_800_000_040_000; // 40 s into a window
const held = (r: HoldResult): UserHold => {
  if (!r.ok) throw new Error(`refused: ${r.rule}`);
  return r.hold;
};

t.test('window helpers: fixed windows, Retry-After to the window end', async (t) => {
  t.equal(windowStartOf(T0, WINDOW), 1_800_000_000_000);
  t.equal(secondsToWindowEnd(T0, WINDOW), 20);
  t.equal(secondsToWindowEnd(T0 + 19_999, WINDOW), 1, 'at least 1 s');
  t.equal(secondsToWindowEnd(T0 + 20_000, WINDOW), 60, 'a new window');
});

t.test('maxSponsorships: places held count, other users and keys have their own', async (t) => {
  const s = new MemoryUserCounters();
  const limits = { maxSponsorships: 3, windowMs: WINDOW };
  for (let i = 0; i < 3; i++) t.ok(s.hold('k', 'alice', limits, T0 + i).ok);
  const refused = s.hold('k', 'alice', limits, T0 + 5_000);
  t.same(refused, { ok: false, rule: 'perUser.maxSponsorships', retryAfterS: 15 }, 'the fourth is refused until the window ends');
  t.ok(s.hold('k', 'bob', limits, T0).ok, 'another user');
  t.ok(s.hold('k2', 'alice', limits, T0).ok, 'the same user under another key');
  t.same(s.read('k', 'alice', WINDOW, T0), { count: 3, dust: 0n });
  t.same(s.read('k', 'carol', WINDOW, T0), { count: 0, dust: 0n }, 'an unknown user reads zero');
});

t.test('the window rolls over: counts and DUST start afresh; a late answer counts in its own window', async (t) => {
  const s = new MemoryUserCounters();
  const limits = { maxSponsorships: 3, maxDust: 100n, windowMs: WINDOW };
  const h = held(s.hold('k', 'alice', limits, T0));
  t.equal(h.windowStart, windowStartOf(T0, WINDOW));
  const late1 = held(s.hold('k', 'alice', limits, T0 + 19_000));
  const late2 = held(s.hold('k', 'alice', limits, T0 + 19_500));
  t.notOk(s.hold('k', 'alice', limits, T0 + 19_999).ok, 'full until the window ends');
  const next = T0 + 20_000;
  t.same(s.read('k', 'alice', WINDOW, next), { count: 0, dust: 0n }, 'the next window reads empty');
  const h2 = held(s.hold('k', 'alice', limits, next));
  t.equal(h2.windowStart, windowStartOf(next, WINDOW));
  t.same(s.read('k', 'alice', WINDOW, next), { count: 1, dust: 0n });
  // Answers of the past window arrive after it rolled over: they count there, against its cap.
  t.ok(s.commit(late1, 90n, limits.maxDust), 'a late answer under the cap of its window');
  t.notOk(s.commit(late2, 90n, limits.maxDust), 'the next one would pass it: refused');
  t.same(s.read('k', 'alice', WINDOW, T0), { count: 2, dust: 90n }, 'the past window holds them');
  s.release(h);
  t.same(s.read('k', 'alice', WINDOW, T0), { count: 1, dust: 90n }, 'a release of the past window gives back there');
  t.same(s.read('k', 'alice', WINDOW, next), { count: 1, dust: 0n }, 'the new window untouched');
});

t.test('maxDust: a commit past the cap is refused and gives back its place; a user at the cap is refused', async (t) => {
  const s = new MemoryUserCounters();
  const limits = { maxDust: 1_000n, windowMs: WINDOW };
  const a = held(s.hold('k', 'alice', limits, T0));
  const b = held(s.hold('k', 'alice', limits, T0));
  t.ok(s.commit(a, 700n, limits.maxDust));
  t.notOk(s.commit(b, 301n, limits.maxDust), '700 + 301 passes 1000');
  t.same(s.read('k', 'alice', WINDOW, T0), { count: 1, dust: 700n }, 'the refused commit gave back its place, its fee not counted');
  const c = held(s.hold('k', 'alice', limits, T0));
  t.ok(s.commit(c, 300n, limits.maxDust), 'exactly at the cap is allowed');
  t.same(s.hold('k', 'alice', limits, T0), { ok: false, rule: 'perUser.maxDust', retryAfterS: 20 }, 'at the cap: no more holds');
  t.ok(s.commit(held(s.hold('k', 'bob', { windowMs: WINDOW }, T0)), 10n ** 30n, undefined), 'no maxDust: any fee (past 2^64)');
  t.same(s.read('k', 'bob', WINDOW, T0), { count: 1, dust: 10n ** 30n });
});

t.test('release gives back a place; refund its place and fee', async (t) => {
  const s = new MemoryUserCounters();
  const limits = { maxSponsorships: 2, maxDust: 1_000n, windowMs: WINDOW };
  const a = held(s.hold('k', 'alice', limits, T0));
  const b = held(s.hold('k', 'alice', limits, T0));
  t.notOk(s.hold('k', 'alice', limits, T0).ok);
  s.release(a);
  t.same(s.read('k', 'alice', WINDOW, T0), { count: 1, dust: 0n });
  t.ok(s.commit(b, 400n, limits.maxDust));
  s.refund(b, 400n);
  t.same(s.read('k', 'alice', WINDOW, T0), { count: 0, dust: 0n }, 'the refunded answer is not counted');
  s.release(b);
  t.same(s.read('k', 'alice', WINDOW, T0), { count: 0, dust: 0n }, 'never below zero');
});

t.test('a refused or given-back request leaves no counter behind', async (t) => {
  const s = new MemoryUserCounters();
  const limits = { maxSponsorships: 1, maxDust: 100n, windowMs: WINDOW };
  for (let i = 0; i < 1_000; i++) s.release(held(s.hold('k', `fresh-${i}`, limits, T0)));
  t.equal(s.size, 0, 'a thousand holds released: nothing kept');
  const a = held(s.hold('k', 'alice', limits, T0));
  t.notOk(s.commit(a, 101n, limits.maxDust), 'refused at commit');
  t.equal(s.size, 0, 'nor after a refused commit');
  const b = held(s.hold('k', 'alice', limits, T0));
  t.ok(s.commit(b, 40n, limits.maxDust));
  s.refund(b, 40n);
  t.equal(s.size, 0, 'nor after a refund');
  t.ok(s.commit(held(s.hold('k', 'alice', limits, T0)), 40n, limits.maxDust));
  t.equal(s.size, 1, 'an answer is kept');
});

t.test('bounded per key: expired counters go first, then the least recently used; keys never push out each other', async (t) => {
  const s = new MemoryUserCounters(3);
  const minute = { maxSponsorships: 1, windowMs: WINDOW };
  const day = { maxSponsorships: 1, windowMs: 86_400_000 };
  t.ok(s.hold('k', 'u1', minute, T0).ok);
  t.ok(s.hold('k', 'u2', minute, T0).ok);
  t.ok(s.hold('k', 'u3', minute, T0 - 2 * WINDOW).ok, 'u3 two windows ago: expired');
  t.ok(s.hold('k', 'u4', minute, T0).ok, 'full: u3 (expired) is dropped');
  t.same(s.read('k', 'u1', WINDOW, T0), { count: 1, dust: 0n }, 'u1 kept');
  // A hold (even refused) uses u1: u2 is the least recently used now.
  t.notOk(s.hold('k', 'u1', minute, T0).ok);
  t.ok(s.hold('k', 'u5', minute, T0).ok);
  t.same(s.read('k', 'u2', WINDOW, T0), { count: 0, dust: 0n }, 'u2 forgotten: it starts afresh');
  t.notOk(s.hold('k', 'u1', minute, T0).ok, 'u1 still at its cap');
  t.ok(s.hold('k', 'u2', minute, T0).ok, 'a forgotten user may hold again');

  // A key counting by the day, at its cap, while another key with minute windows churns users.
  t.ok(s.hold('daily', 'victim', day, T0).ok);
  for (let i = 0; i < 50; i++) s.hold('k', `churn-${i}`, minute, T0 + 5 * WINDOW + i);
  t.notOk(s.hold('daily', 'victim', day, T0 + 5 * WINDOW + 60).ok, "the other key's churn did not forget the daily user");
  t.ok(s.size <= 3 + 1, 'each key within its bound');
});
