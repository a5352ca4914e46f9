/**
 * The per-user counters shared through a real redis-server, by two "instances" (two
 * connections, one store each) in one process: the caps hold over both under concurrent holds and
 * commits, releases and refunds count once by token (a late hold after its release is refused),
 * windows roll over and keys expire, any key or user string is safe, and Redis trouble refuses
 * with 503 BUDGET_UNAVAILABLE (fail closed) while undos wait for Redis to come back.
 */
import { existsSync } from 'node:fs';
import t from 'tap';
import { pino } from 'pino';
import { GatewayError } from '../../src/core/errors.js';
import { RedisState } from '../../src/infra/state/redis.js';
import { RedisUserCounters, userCounterKey, userTokenKey } from '../../src/features/sponsorship/redis/user-counters.js';
import { windowStartOf } from '../../src/features/sponsorship/common/fixed-window.js';
import type { HoldResult, UserHold } from '../../src/features/sponsorship/policy/user-counters.js';
import { REDIS_SERVER, startRedis, until } from '../helpers/redis-server.js';

const silent = pino({ level: 'silent' });
const WINDOW = 3_600_000;
const T0 = 1_800_000_000_000 + 600_000; // 10 min into a window
const held = (r: HoldResult): UserHold => {
  if (!r.ok) throw new Error(`refused: ${r.rule}`);
  return r.hold;
};

const skip = existsSync(REDIS_SERVER) ? false : `redis-server is not installed (${REDIS_SERVER}; set NIGHTGATE_TEST_REDIS_SERVER)`;

t.test('per-user counters over two instances sharing one Redis', { skip }, async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  const ra = new RedisState({ url: redis.url, logger: silent, commandTimeoutMs: 300, reconnectMaxMs: 200 });
  const rb = new RedisState({ url: redis.url, logger: silent, commandTimeoutMs: 300, reconnectMaxMs: 200 });
  t.teardown(async () => {
    await ra.close();
    await rb.close();
  });
  t.ok((await ra.start()) && (await rb.start()), 'both connected');
  const a = new RedisUserCounters(ra);
  const b = new RedisUserCounters(rb);

  await t.test('maxSponsorships: 50 concurrent holds on each instance, cap 10 → exactly 10', async (t) => {
    const limits = { maxSponsorships: 10, windowMs: WINDOW };
    const all = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).hold('k', 'alice', limits, T0 + i)));
    t.equal(all.filter((r) => r.ok).length, 10);
    const refused = all.find((r) => !r.ok);
    t.match(refused, { ok: false, rule: 'perUser.maxSponsorships' });
    t.same(await a.read('k', 'alice', WINDOW, T0), { count: 10, dust: 0n });
    t.same(await b.read('k', 'alice', WINDOW, T0), { count: 10, dust: 0n }, 'both read the shared count');
    t.same(
      await b.hold('k', 'alice', limits, T0 + 1_200_000),
      { ok: false, rule: 'perUser.maxSponsorships', retryAfterS: 1_800 },
      'Retry-After: the window end',
    );
    t.ok((await a.hold('k', 'bob', limits, T0)).ok, 'another user has their own count');
    t.ok((await a.hold('k2', 'alice', limits, T0)).ok, 'so has the same user under another key');
  });

  await t.test('windows roll over; counters and tokens expire a window after theirs ends', async (t) => {
    const limits = { maxSponsorships: 1, windowMs: WINDOW };
    const h = held(await a.hold('k', 'roll', limits, T0));
    t.notOk((await b.hold('k', 'roll', limits, T0 + 1)).ok);
    const next = windowStartOf(T0, WINDOW) + WINDOW;
    t.same(await b.read('k', 'roll', WINDOW, next), { count: 0, dust: 0n }, 'the next window reads empty');
    t.ok((await b.hold('k', 'roll', limits, next)).ok, 'and holds again');
    const pttl = Number(await ra.command(['PTTL', `nightgate:${userCounterKey('k', 'roll', h.windowStart)}`]));
    // Held 10 min into the window: 50 min left, then one more window.
    t.ok(pttl > WINDOW && pttl <= 2 * WINDOW - 600_000, `the counter expires after its window and one more (${pttl} ms)`);
    const tokenTtl = Number(await ra.command(['PTTL', `nightgate:${userTokenKey('k', 'roll', h.token!)}`]));
    t.ok(tokenTtl > WINDOW && tokenTtl <= pttl, `its token as long (${tokenTtl} ms)`);
    // The old hold's answer arrives in the next window: it counts in its own window, not the new one.
    t.ok(await a.commit(h, 5n, 10n));
    t.same(await a.read('k', 'roll', WINDOW, next), { count: 1, dust: 0n });
  });

  await t.test('maxDust: concurrent commits over both instances never pass the cap (decimal past 2^64)', async (t) => {
    const maxDust = 10n ** 38n;
    const fee = 10n ** 37n;
    const limits = { maxDust, windowMs: WINDOW };
    const holds = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).hold('k', 'rich', limits, T0)));
    t.equal(holds.filter((r) => r.ok).length, 30, 'no count cap: all held');
    const commits = await Promise.all(holds.map((r, i) => (i % 2 ? b : a).commit(held(r), fee, maxDust)));
    t.equal(commits.filter(Boolean).length, 10, 'ten fees of 10^37 fit under 10^38');
    t.same(await a.read('k', 'rich', WINDOW, T0), { count: 10, dust: maxDust }, 'the refused commits gave back their places');
    t.same(await b.hold('k', 'rich', limits, T0), { ok: false, rule: 'perUser.maxDust', retryAfterS: 3_000 }, 'at the cap: no more holds');
    // A commit sent again (its answer lost) counts once.
    const one = held(await a.hold('k', 'once', limits, T0));
    t.ok(await a.commit(one, 7n, maxDust));
    t.ok(await b.commit(one, 7n, maxDust), 'sent again on the other instance');
    t.same(await a.read('k', 'once', WINDOW, T0), { count: 1, dust: 7n });
    // No maxDust: any fee is counted.
    const free = held(await b.hold('k', 'free', { windowMs: WINDOW }, T0));
    t.ok(await b.commit(free, 10n ** 40n, undefined));
    t.same(await a.read('k', 'free', WINDOW, T0), { count: 1, dust: 10n ** 40n });
  });

  await t.test('release and refund count once by token, on either instance', async (t) => {
    const limits = { maxSponsorships: 3, maxDust: 1_000n, windowMs: WINDOW };
    const h1 = held(await a.hold('k', 'carol', limits, T0));
    const h2 = held(await b.hold('k', 'carol', limits, T0));
    const h3 = held(await a.hold('k', 'carol', limits, T0));
    await a.release(h1);
    await b.release(h1);
    await a.release(h1);
    t.same(await a.read('k', 'carol', WINDOW, T0), { count: 2, dust: 0n }, 'three releases of one hold give back one place');
    t.notOk(await a.commit(h1, 1n, limits.maxDust), 'a released hold cannot commit');
    t.ok(await b.commit(h2, 400n, limits.maxDust));
    t.ok(await a.commit(h3, 500n, limits.maxDust));
    await a.refund(h2, 400n);
    await b.refund(h2, 400n);
    t.same(await b.read('k', 'carol', WINDOW, T0), { count: 1, dust: 500n }, 'a refund gives back the place and fee once');
    await b.release(h2);
    t.same(await b.read('k', 'carol', WINDOW, T0), { count: 1, dust: 500n }, 'and a release after it changes nothing');
    // An uncommitted hold's refund gives back its place only: its fee was never counted.
    const h4 = held(await b.hold('k', 'carol', limits, T0));
    await a.refund(h4, 300n);
    t.same(await a.read('k', 'carol', WINDOW, T0), { count: 1, dust: 500n });
    // A commit refused past maxDust gave back its place already: its release does not again.
    const h5 = held(await b.hold('k', 'carol', limits, T0));
    t.notOk(await a.commit(h5, 501n, limits.maxDust));
    await b.release(h5);
    t.same(await a.read('k', 'carol', WINDOW, T0), { count: 1, dust: 500n });
  });

  await t.test('a release of a hold Redis never saw leaves a tombstone: the hold arriving late is refused', async (t) => {
    const limits = { maxSponsorships: 5, windowMs: WINDOW };
    const ghost: UserHold = { keyId: 'k', user: 'dave', windowStart: windowStartOf(T0, WINDOW), windowMs: WINDOW, token: 'late-token' };
    await b.release(ghost);
    t.equal(String(await ra.command(['GET', `nightgate:${userTokenKey('k', 'dave', 'late-token')}`])), 'r', 'tombstone');
    t.ok(Number(await ra.command(['PTTL', `nightgate:${userTokenKey('k', 'dave', 'late-token')}`])) > 0, 'which expires');
    const late = (await ra.run(
      'nightgateUserHold',
      [userCounterKey('k', 'dave', ghost.windowStart), userTokenKey('k', 'dave', 'late-token')],
      ['5', '', WINDOW],
    )) as number[];
    t.equal(late[0], -1, 'the late hold is refused');
    t.same(await a.read('k', 'dave', WINDOW, T0), { count: 0, dust: 0n }, 'and counted nothing');
    t.ok((await a.hold('k', 'dave', limits, T0)).ok, 'a new hold of the user is not affected');
  });

  await t.test('any key id and user string is a safe key; the user id is not stored', async (t) => {
    const limits = { maxSponsorships: 1, windowMs: WINDOW };
    const odd = ['a}{b', 'x:y:z', '{', '', 'ü'.repeat(2_000), '\u0000\ud800'];
    for (const user of odd) t.ok((await a.hold('key}{:', user, limits, T0)).ok, `user ${JSON.stringify(user.slice(0, 8))}`);
    for (const user of odd) t.notOk((await b.hold('key}{:', user, limits, T0)).ok, 'counted apart, each at its cap');
    t.ok((await b.hold('key}{', ':a}{b', limits, T0)).ok, '("key}{", ":a}{b") is not ("key}{:", "a}{b")');
    const keys = (await ra.command(['KEYS', 'nightgate:peruser:*'])) as string[];
    t.ok(
      keys.every((k) => /^nightgate:peruser:\{[A-Za-z0-9_-]{43}\}:(\d+|t:[A-Za-z0-9_-]+)$/.test(k)),
      'every key has one shape',
    );
    t.notOk(
      keys.some((k) => k.includes('alice')),
      'no user id in a key',
    );
  });

  await t.test('Redis paused: a hold is refused with 503 and undone once Redis answers; a release waits for it', async (t) => {
    const limits = { maxSponsorships: 5, windowMs: WINDOW };
    const kept = held(await a.hold('k', 'erin', limits, T0));
    const before = ra.counters().budgetUnavailable;
    redis.pause();
    const err = await a.hold('k', 'erin', limits, T0).catch((e: unknown) => e);
    t.ok(err instanceof GatewayError, 'a GatewayError');
    t.match(err, { code: 'BUDGET_UNAVAILABLE', status: 503, message: /per-user counters/, headers: { 'Retry-After': '5' } });
    t.equal(ra.counters().budgetUnavailable, before + 1, 'counted as a refusal for want of shared state');
    await a.release(kept);
    t.ok(ra.counters().pendingRefunds >= 2, 'the undo of the lost hold and the release wait for Redis');
    await t.rejects(a.commit(kept, 1n, undefined), { code: 'BUDGET_UNAVAILABLE' }, 'a commit is refused too');
    await t.rejects(a.read('k', 'erin', WINDOW, T0), { code: 'BUDGET_UNAVAILABLE', message: /per-user counters .* cannot be read/ });
    redis.resume();
    // Redis now runs the hold it had been sent (it lands), then the queued undos.
    await until('A sends its pending undos', () => ra.available && ra.counters().pendingRefunds === 0);
    t.same(await b.read('k', 'erin', WINDOW, T0), { count: 0, dust: 0n }, 'the lost hold landed and was undone; the release counted once');
  });

  await t.test('Redis stopped: holds, commits and reads refused with 503 on both instances; back by itself', async (t) => {
    const limits = { maxSponsorships: 5, maxDust: 100n, windowMs: WINDOW };
    const h = held(await b.hold('k', 'frank', limits, T0));
    await redis.kill();
    await until('both see Redis gone', () => !ra.available && !rb.available);
    const pending = ra.counters().pendingRefunds;
    await t.rejects(a.hold('k', 'frank', limits, T0), { code: 'BUDGET_UNAVAILABLE', status: 503, message: /per-user counters/ });
    t.equal(ra.counters().pendingRefunds, pending, 'a hold never sent leaves nothing to undo');
    await t.rejects(b.hold('k', 'frank', limits, T0), { code: 'BUDGET_UNAVAILABLE', status: 503 });
    await t.rejects(b.commit(h, 1n, limits.maxDust), { code: 'BUDGET_UNAVAILABLE', status: 503 }, 'a commit that cannot be counted fails closed');
    t.equal(rb.counters().pendingRefunds, 1, 'and queues the undo of its hold');
    await t.rejects(a.read('k', 'frank', WINDOW, T0), { code: 'BUDGET_UNAVAILABLE' });
    await redis.restart();
    await until('both reconnect', () => ra.available && rb.available);
    // Redis came back empty (no persistence in tests): the queued undo of the commit leaves a tombstone only.
    await until('B sends its pending undo', () => rb.counters().pendingRefunds === 0);
    t.ok((await a.hold('k', 'frank', limits, T0)).ok, 'holds work again');
    t.same(await b.read('k', 'frank', WINDOW, T0), { count: 1, dust: 0n });
  });
});
