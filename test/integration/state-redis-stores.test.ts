/**
 * The shared stores against a real redis-server, two "instances" (two clients, two
 * stores each) in one process: a key's rate limit and DUST budget hold over both, per-IP counts
 * are reconciled, failed logins are counted over both, a wallet's lease is held by one instance
 * only, and Redis trouble (paused, killed, restarted) is handled: local limits counted, budget
 * charges refused with 503 BUDGET_UNAVAILABLE, nothing charged twice or lost.
 */
import t from 'tap';
import { pino } from 'pino';
import { ManualClock } from '../helpers/manual-clock.js';
import { freePort, startRedis, until } from '../helpers/redis-server.js';
import { startSharedState, type SharedState } from '../../src/infra/state/index.js';
import { RedisBudgetStore } from '../../src/features/sponsorship/redis/budget.js';
import { WalletLeases, walletId } from '../../src/features/sponsorship/redis/wallet-leases.js';
import { legacyWalletKeys } from '../../src/infra/ledger/index.js';
import { AuthThrottle } from '../../src/core/guards/auth-throttle.js';
import { loadConfig } from '../../src/core/config/index.js';
import { GatewayError } from '../../src/core/errors.js';
import { captureLogs } from '../helpers/app.js';
import { createHash } from 'node:crypto';
import { ProofResults } from '../../src/features/proving/proof-results.js';
import { SharedProofCache } from '../../src/features/proving/shared-proof-cache.js';
import { RedisSponsorshipSharing } from '../../src/features/sponsorship/redis/sponsorship.js';

const silent = pino({ level: 'silent' });

t.test('shared stores over two instances', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  const config = loadConfig({ env: {}, overrides: { state: { redisUrl: redis.url }, rateLimit: { algorithm: 'sliding' } } });
  const clock = new ManualClock(1_800_000_000_000);
  const a = await startSharedState(config, silent, clock);
  const b = await startSharedState(config, silent, clock);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  t.ok(a.redis.available && b.redis.available, 'both connected');

  await t.test('a key limit holds across instances: the (limit+1)th is refused on either', async (t) => {
    const now = clock.now();
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await (i % 2 === 0 ? a : b).rateLimit.hit('key', 'k1', 6, 60_000, now + i));
    t.same(
      results.map((r) => r.allowed),
      [true, true, true, true, true, true],
    );
    t.equal(results[5]!.remaining, 0);
    t.equal((await a.rateLimit.hit('key', 'k1', 6, 60_000, now + 10)).allowed, false, 'the 7th on A');
    t.equal((await b.rateLimit.hit('key', 'k1', 6, 60_000, now + 11)).allowed, false, 'and on B');
    t.equal((await b.rateLimit.hit('key', 'k2', 6, 60_000, now + 12)).allowed, true, 'another key has its own');
    // 40 hits at once, half on each: exactly 10 admitted of a limit of 10 (no read-modify-write race).
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).rateLimit.hit('key', 'k3', 10, 60_000, now)));
    t.equal(burst.filter((r) => r.allowed).length, 10);
  });

  await t.test("per-IP counts are local and reconciled: each instance learns the other's hits", async (t) => {
    const now = clock.now();
    for (let i = 0; i < 5; i++) t.ok(a.rateLimit.hit('ip', '203.0.113.7', 8, 60_000, now).valueOf());
    const first = b.rateLimit.hit('ip', '203.0.113.7', 8, 60_000, now);
    t.notOk(first instanceof Promise, 'the per-IP path stays synchronous');
    await a.rateLimit.reconcile();
    await b.rateLimit.reconcile();
    // B has seen 1 hit and absorbed A's 5: two more fit of 8.
    const r1 = b.rateLimit.local.peek('ip', '203.0.113.7', 8, 60_000, now);
    t.equal(r1?.remaining, 1, "B counts 6 of 8 after reconciling (its 1, A's 5)");
    await a.rateLimit.reconcile();
    t.equal(a.rateLimit.local.peek('ip', '203.0.113.7', 8, 60_000, now)?.remaining, 1, "A counts B's hit too");
  });

  await t.test('budgets: exact over both, decimal amounts past 2^64, refunds once', async (t) => {
    const now = clock.now();
    const sa = new RedisBudgetStore(a.redis);
    const sb = new RedisBudgetStore(b.redis);
    const budget = 10n ** 39n;
    const fee = 3n * 10n ** 38n;
    const c1 = await sa.charge('rich', fee, budget, 3_600_000, now);
    const c2 = await sb.charge('rich', fee, budget, 3_600_000, now);
    const c3 = await sa.charge('rich', fee, budget, 3_600_000, now);
    t.ok(c1 && c2 && c3, 'three fit');
    t.equal(await sb.charge('rich', fee, budget, 3_600_000, now), undefined, 'the fourth is refused on the other instance');
    t.equal(sb.spent('rich', 3_600_000, now), 9n * 10n ** 38n, 'the spend Redis reported, exact past 2^64');
    await sb.refund(c1!);
    await sa.refund(c1!);
    t.equal(sa.spent('rich', 3_600_000, now), 6n * 10n ** 38n, 'a refund counts once, whichever instance sends it again');
    // 30 concurrent charges of 1 against a budget of 7, over both instances.
    const many = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? sa : sb).charge('seven', 1n, 7n, 3_600_000, now)));
    t.equal(many.filter(Boolean).length, 7);
    // The pool key stays local: Redis never sees it.
    const local = new RedisBudgetStore(a.redis, { local: (id) => id === 'pool' });
    t.ok(local.charge('pool', 5n, 10n, 3_600_000, now) !== undefined);
    t.equal(await a.redis.command(['EXISTS', `nightgate:budget:{pool}:${now - (now % 3_600_000)}`]), 0);
  });

  await t.test('failed logins are counted over both instances', async (t) => {
    const now = clock.now();
    const mk = (s: SharedState) => new AuthThrottle({ limit: 4, windowMs: 60_000, algorithm: 'fixed', maxEntries: 100, shared: s.authFailures });
    const ta = mk(a);
    const tb = mk(b);
    ta.failed('198.51.100.9', now);
    ta.failed('198.51.100.9', now);
    tb.failed('198.51.100.9', now);
    t.equal(ta.refused('198.51.100.9', now), undefined);
    // The two instances' counts travel on two connections: wait until Redis holds all three.
    const counter = `nightgate:auth:{198.51.100.9}:${now - (now % 60_000)}`;
    await until('three failures counted', async () => Number(await a.redis.command(['GET', counter])) === 3);
    tb.failed('198.51.100.9', now);
    // B's fourth failure makes the shared count 4: B refuses the address now, though it saw 2.
    await until('B learns the shared count', () => tb.refused('198.51.100.9', now) !== undefined);
    t.equal(tb.refused('198.51.100.9', now)!.allowed, false);
    ta.failed('198.51.100.9', now);
    await until('A learns it at its next failure', () => ta.refused('198.51.100.9', now) !== undefined);
    t.equal(ta.refused('198.51.100.9', now + 60_000), undefined, 'until the window ends');
  });

  await t.test('a wallet is leased to one instance; the second start is refused with a clear message', async (t) => {
    const seeds = ['a1'.repeat(32), 'b2'.repeat(32)].map(legacyWalletKeys);
    const wallets = new Map([['preview', seeds]]);
    const logs = captureLogs();
    const la = new WalletLeases({ redis: a.redis, clock, logger: logs.logger, ttlMs: 5_000, wallets });
    await la.start();
    t.doesNotThrow(() => la.check('preview'));
    const lb = new WalletLeases({ redis: b.redis, clock, logger: silent, ttlMs: 5_000, wallets: new Map([['preview', [seeds[1]!]]]) });
    await t.rejects(lb.start(), {
      name: 'WalletLeaseError',
      message: new RegExp(
        `DUST wallet ${walletId(seeds[1]!).slice(0, 16)}… of preview is in use by another live instance \\(${a.redis.instanceId}` +
          `\\).*own NIGHTGATE_DUST_WALLET_ACCOUNT`,
      ),
    });
    t.notMatch(logs.text(), seeds[0]!, 'the seed is never logged');
    t.notMatch(String(await a.redis.command(['KEYS', 'nightgate:lease:*'])), seeds[0]!, 'nor a lease key');
    // Another instance takes the lease at run time (it expired and was taken): A stops sponsoring.
    await a.redis.command(['SET', `nightgate:lease:preview:${walletId(seeds[0]!)}`, 'intruder']);
    await la.renew();
    t.throws(() => la.check('preview'), { code: 'WALLET_LEASE_LOST' });
    const sharing = new RedisSponsorshipSharing({ redis: a.redis, leases: la, clock, logger: silent, dedupeWindowMs: 60_000 });
    t.throws(() => sharing.admit('preview'), { code: 'WALLET_LEASE_LOST' }, 'users are refused');
    t.throws(() => sharing.owns('preview'), { code: 'WALLET_LEASE_LOST' }, "and so are the pool keeper's splits of that wallet's NIGHT");
    t.match(
      logs.lines.find((l) => l['level'] === 50),
      { msg: /wallet lease lost/, holder: 'intruder' },
    );
    await la.release();
    // A lease given back at shutdown is free at once for a new instance.
    const lc = new WalletLeases({ redis: b.redis, clock, logger: silent, ttlMs: 5_000, wallets: new Map([['preview', [seeds[1]!]]]) });
    await lc.start();
    t.doesNotThrow(() => lc.check('preview'));
    await lc.release();
  });

  await t.test('proof results shared: a retry on the other instance is a HIT; the shared bytes are capped', async (t) => {
    const mk = (s: SharedState, maxBytes: number) =>
      new ProofResults(clock, 30_000, 1 << 20, new SharedProofCache(s.redis, { ttlMs: 30_000, maxBytes, now: () => clock.now() }));
    const pa = mk(a, 4_000);
    const pb = mk(b, 4_000);
    let proofs = 0;
    const prove = async (): Promise<Uint8Array> => {
      proofs++;
      return new Uint8Array(1_000).fill(proofs);
    };
    const body = new Uint8Array([1, 2, 3]);
    const first = await pa.get('prove', 'preview', 'dev', body, new AbortController().signal, prove);
    t.equal(first.cache, 'MISS');
    await until(
      'the proof reaches Redis',
      async () => Number(await a.redis.command(['EXISTS', `nightgate:proof:prove|preview|dev|${createHash('sha256').update(body).digest('hex')}`])) === 1,
    );
    const retry = await pb.get('prove', 'preview', 'dev', body, new AbortController().signal, prove);
    t.equal(retry.cache, 'HIT', "answered on B from A's proof");
    t.same(retry.bytes, first.bytes);
    t.equal(proofs, 1, 'proved once');
    // 1 000 bytes are 1 336 in base64: at most two fit under 4 000; the oldest leave first.
    for (let i = 0; i < 4; i++) await pa.get('prove', 'preview', 'dev', new Uint8Array([9, i]), new AbortController().signal, prove);
    await until('the writes land', async () => Number(await a.redis.command(['ZCARD', 'nightgate:proofcache:index'])) <= 2 && proofs === 5);
    t.ok(Number(await a.redis.command(['GET', 'nightgate:proofcache:bytes'])) <= 4_000, 'the shared bytes stay under the cap');
  });

  await t.test('Redis paused then back: a charge whose answer was lost is refunded once, never doubled', async (t) => {
    const now = clock.now();
    const sa = new RedisBudgetStore(a.redis, { attempts: 2 });
    t.ok(await sa.charge('pause', 100n, 1_000n, 3_600_000, now));
    redis.pause();
    const err = await sa.charge('pause', 100n, 1_000n, 3_600_000, now).catch((e: unknown) => e);
    t.ok(err instanceof GatewayError && err.code === 'BUDGET_UNAVAILABLE' && err.status === 503, 'refused with 503 BUDGET_UNAVAILABLE');
    t.equal(a.redis.available, false, 'a timed-out command makes Redis unavailable at once for the next callers');
    t.equal(a.counters().budgetUnavailable, 1);
    t.ok(a.counters().pendingRefunds >= 1, 'the refund of that charge waits for Redis');
    // Per-key limits meanwhile: local, counted.
    const before = a.counters().localFallbacks;
    const local = await a.rateLimit.hit('key', 'while-paused', 2, 60_000, now);
    t.equal(local.allowed, true);
    t.equal(a.counters().localFallbacks, before + 1, 'a local decision is counted');
    redis.resume();
    // Redis now runs the charge it had queued (it counts once: same token), then our refund of it.
    await until('A sees Redis again and sends its refunds', () => a.redis.available && a.counters().pendingRefunds === 0);
    const spent = await a.redis.command(['GET', `nightgate:budget:{pause}:${now - (now % 3_600_000)}`]);
    t.equal(String(spent), '100', 'only the answered charge is counted: the lost one landed once and was refunded');
  });

  await t.test('Redis killed and restarted: local limits meanwhile, 503 for budgets, back by itself', async (t) => {
    const now = clock.now();
    await redis.kill();
    await until('both see Redis gone', () => !a.redis.available && !b.redis.available);
    const r = a.rateLimit.hit('key', 'outage', 1, 60_000, now);
    t.notOk(r instanceof Promise, 'decided locally, at once');
    t.equal((r as { allowed: boolean }).allowed, true);
    t.equal((a.rateLimit.hit('key', 'outage', 1, 60_000, now) as { allowed: boolean }).allowed, false, 'the local limit still holds');
    const sa = new RedisBudgetStore(a.redis);
    await t.rejects(sa.charge('outage', 1n, 10n, 3_600_000, now), { code: 'BUDGET_UNAVAILABLE' });
    await redis.restart();
    await until('both reconnect (backoff)', () => a.redis.available && b.redis.available);
    t.ok(a.counters().reconnects >= 1);
    t.ok(await sa.charge('outage', 1n, 10n, 3_600_000, now), 'charges work again');
    t.equal((await a.rateLimit.hit('key', 'outage2', 1, 60_000, now)).allowed, true);
    t.equal((await b.rateLimit.hit('key', 'outage2', 1, 60_000, now)).allowed, false, 'shared again');
  });
});

t.test('Redis unreachable at start: the instance starts on local limits and connects once Redis answers', async (t) => {
  const port = await freePort();
  const logs = captureLogs();
  const config = loadConfig({ env: {}, overrides: { state: { redisUrl: `redis://127.0.0.1:${port}` } } });
  const s = await startSharedState(config, logs.logger, new ManualClock(1_800_000_000_000), 300);
  t.teardown(() => s.close());
  t.equal(s.redis.available, false);
  t.match(
    logs.lines.find((l) => l['level'] === 40 && /unreachable at start/.test(String(l['msg']))),
    { waitedMs: 300 },
  );
  const local = s.rateLimit.hit('key', 'early', 1, 60_000, 1_800_000_000_000);
  t.notOk(local instanceof Promise, 'decided locally');
  t.equal(s.counters().localFallbacks, 1);
  const redis = await startRedis(port);
  t.teardown(() => redis.stop());
  await until('it connects (reconnect backoff)', () => s.redis.available);
  t.equal(await s.redis.command(['PING']), 'PONG');
});

t.test('config: the Redis URL is checked and printed without its credentials', async (t) => {
  t.throws(() => loadConfig({ env: { NIGHTGATE_REDIS_URL: 'http://:hunter2@cache:6379' } }), {
    message: /state\.redisUrl \(NIGHTGATE_REDIS_URL\): "http:\/\/redacted@cache:6379" — expected redis:/,
  });
  const c = loadConfig({ env: { NIGHTGATE_REDIS_URL: 'redis://app:hunter2@cache:6379/2' } });
  t.equal(c.state.redisUrl, 'redis://app:hunter2@cache:6379/2');
  const { redactedConfig } = await import('../../src/core/config/index.js');
  t.notMatch(JSON.stringify(redactedConfig(c)), 'hunter2');
  t.match(JSON.stringify(redactedConfig(c)), 'redis://redacted@cache:6379/2');
});
