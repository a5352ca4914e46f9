/**
 * Several instances, one service: two nightgate instances, each with its own DUST
 * wallet, in front of one devnet run apart, sharing one real redis-server. A key's rate limit,
 * DUST budget and share of the pool hold over both (the (limit+1)th request is refused whichever
 * instance gets it); the same bytes sent to the other instance are answered from the first
 * one's answer (no second UTXO); a third instance given a wallet already leased is refused at
 * start; Redis killed mid-run: statistics serve, keyed routes work on local limits (counted),
 * sponsorship answers 503 BUDGET_UNAVAILABLE; Redis restarted: everything is shared again.
 *
 * The whole rig (its own Redis, devnet and instances) runs once per ledger era (SPONSOR_ERAS): the
 * devnet runs that era and the instances learn it from the chain they sync. The sponsorship
 * subtests (dedupe, budget, share) run on each; those that never reach a ledger (a third
 * instance refused at start, the rate limit on /wallet-status, the Redis outage) run once, on the
 * default era's rig.
 */
import t from 'tap';
import { startRedis, until } from '../helpers/redis-server.js';
import { instanceConfig, startDevnetApart, startInstance, type Instance } from '../fixtures/scale-out.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { SPONSOR_ERAS } from '../fixtures/dust/sponsor-app.js';
import { DEFAULT_ERA, type Era } from '../../src/infra/ledger/index.js';
import { sha256Hex } from '../../src/core/guards/auth.js';
import { buildApp } from '../../src/app.js';
import { mountProver } from '../../src/features/proving/index.js';
import { mountSponsorship } from '../../src/features/sponsorship/index.js';
import { captureLogs, OTHER_KEY, TEST_KEY } from '../helpers/app.js';
import type { SharedState } from '../../src/infra/state/index.js';

t.setTimeout(420_000 * SPONSOR_ERAS.length);

/** The era whose rig also runs the subtests that never reach a ledger. */
const INFRA_ERA: Era = SPONSOR_ERAS.includes(DEFAULT_ERA) ? DEFAULT_ERA : SPONSOR_ERAS[0]!;

/** An assertion message: the error of a refused answer, not a sponsored transaction's hex. */
const why = (r: { status: number; json: Record<string, unknown> }): string => (r.status === 200 ? 'sponsored' : JSON.stringify(r.json));

const SEED_A = 'a1'.repeat(32);
const SEED_B = 'b2'.repeat(32);
const LIMITED = 'limited-key-0123456789';
const POOR = 'poor-key-0123456789abc';
/** A key whose policy pays 2 sponsorships per end user (4 asked at once stay within its share of SHARE). */
const CAPPED = 'capped-key-0123456789a';
const PER_USER = 2;
const POOR_BUDGET = 10n ** 20n;
/** Windows far longer than the test (the next boundary is years away): no window rolls mid-test. */
const LONG_WINDOW_MS = 1_000_000_000_000;
const SHARE = 4;

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: two instances, one Redis, one devnet`, async (t) => {
    const infra = era === INFRA_ERA;
    const redis = await startRedis();
    t.teardown(() => redis.stop());
    const devnet = await startDevnetApart([SEED_A, SEED_B], era);
    t.teardown(() => devnet.stop());
    const overrides = {
      auth: {
        keys: [
          { id: 'limited', sha256: sha256Hex(LIMITED), rateLimit: { limit: 6, windowMs: LONG_WINDOW_MS } },
          { id: 'poor', sha256: sha256Hex(POOR), dustBudget: POOR_BUDGET.toString() },
          { id: 'capped', sha256: sha256Hex(CAPPED), policy: { perUser: { maxSponsorships: PER_USER, windowMs: LONG_WINDOW_MS } } },
        ],
      },
      rateLimit: { limit: 10_000, windowMs: LONG_WINDOW_MS },
      dust: { maxReservationsPerKey: SHARE, budgetWindowMs: LONG_WINDOW_MS },
    };
    const a = await startInstance(instanceConfig(devnet, redis.url, [SEED_A], overrides));
    t.teardown(() => a.close());
    const b = await startInstance(instanceConfig(devnet, redis.url, [SEED_B], overrides));
    t.teardown(() => b.close());
    const stateOf = (i: Instance): SharedState => i.app.context.state!;

    if (infra)
      await t.test('a third instance given a wallet another live instance holds is refused at start', async (t) => {
        const logs = captureLogs();
        const config = instanceConfig(devnet, redis.url, [SEED_A], overrides);
        await t.rejects(buildApp(config, { logger: logs.logger, devnet: false, modules: [mountProver, mountSponsorship], print: () => undefined }), {
          name: 'ConfigError',
          message: new RegExp(
            'DUST wallet [0-9a-f]{16}… of mainnet is in use by another live instance \\(.+\\).*Give each instance ' +
              'its own wallets: its own NIGHTGATE_DUST_WALLET_ACCOUNT',
          ),
        });
        t.notMatch(logs.text(), SEED_A, 'the seed is never logged');
      });

    if (infra)
      await t.test("a key's rate limit holds across instances", async (t) => {
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? b : a).get('/wallet-status', LIMITED)).status);
        t.same(statuses, [200, 200, 200, 200, 200, 200]);
        const onA = await a.get('/wallet-status', LIMITED);
        const onB = await b.get('/wallet-status', LIMITED);
        t.equal(onA.status, 429, 'the 7th on A');
        t.equal(onB.status, 429, 'and on B');
        t.equal(onA.json['code'], 'RATE_LIMITED');
        t.equal(onB.headers['x-ratelimit-remaining'], '0');
      });

    await Promise.all([a.service.whenSynced('preview'), b.service.whenSynced('preview')]);
    t.same([a.service.eraOf('preview'), b.service.eraOf('preview')], [era, era], `both instances learned ledger ${era} from the chain`);
    // A sponsored transaction holds its inputs on every instance until it lands or expires: each
    // transaction below spends a UTXO of its own (one user, so the per-user cap still counts one user).
    // dedupe 2, budget 4, per-user cap 2 × PER_USER, share SHARE + 2, Redis outage 2 (default era's rig only).
    const TXS = 2 + 4 + 2 * PER_USER + SHARE + 2 + (infra ? 2 : 0);
    const { user, utxos } = await devnet.fundedUser(81, 1_000_000_000n, TXS);
    const to = freshUser(82, era).address;
    let amount = 1_000n;
    let used = 0;
    const tx = (): Uint8Array => {
      const utxo = utxos[used++];
      if (!utxo) throw new Error(`more than the ${TXS} funded UTXOs spent`);
      return transferFrom(user, utxo, to, amount++).serialize();
    };
    let feeSeen = '0';

    await t.test('dedupe across instances: the same bytes get the first answer, no second UTXO', async (t) => {
      const body = tx();
      const first = await a.post('/prove-and-balance', body);
      t.equal(first.status, 200, why(first));
      t.equal(first.headers['x-dedupe'], 'MISS');
      feeSeen = first.json['fee'] as string;
      const again = await b.post('/prove-and-balance', body);
      t.equal(again.status, 200);
      t.equal(again.headers['x-dedupe'], 'HIT', "answered on B from A's answer");
      t.same(again.json, first.json, 'the same transaction, fee and UTXO');
      t.equal(b.service.network('preview')!.table.counts().reserved, 0, 'B reserved nothing');
      // At once on both: one computes, the other waits for its answer.
      const body2 = tx();
      const [x, y] = await Promise.all([a.post('/prove-and-balance', body2), b.post('/prove-and-balance', body2)]);
      t.equal(x.status, 200);
      t.equal(y.status, 200);
      t.same([x.headers['x-dedupe'], y.headers['x-dedupe']].sort(), ['HIT', 'MISS']);
      t.equal(x.json['txHash'], y.json['txHash']);
      const reserved = a.service.network('preview')!.table.counts().reserved + b.service.network('preview')!.table.counts().reserved;
      t.equal(reserved, 2, 'two transactions, two reservations over both instances');
    });

    await t.test("a key's DUST budget holds across instances", async (t) => {
      // Fees follow the devnet's prices (3 × 10^14 to 10^15 SPECK from run to run, within a run
      // ±3 %): the key's spend in Redis is set, as other instances' answers would have left it, so
      // that two more fees fit and a third does not.
      const fee = BigInt(feeSeen);
      const windowStart = Math.floor(Date.now() / LONG_WINDOW_MS) * LONG_WINDOW_MS;
      const budgetKey = `nightgate:budget:{poor}:${windowStart}`;
      const before = POOR_BUDGET - (fee * 5n) / 2n;
      await stateOf(a).redis.command(['SET', budgetKey, before.toString()]);
      const r1 = await a.post('/prove-and-balance', tx(), POOR);
      const r2 = await b.post('/prove-and-balance', tx(), POOR);
      t.equal(r1.status, 200, why(r1));
      t.equal(r2.status, 200, why(r2));
      const spent = before + BigInt(r1.json['fee'] as string) + BigInt(r2.json['fee'] as string);
      t.ok(spent <= POOR_BUDGET);
      const r3 = await a.post('/prove-and-balance', tx(), POOR);
      const r4 = await b.post('/prove-and-balance', tx(), POOR);
      t.equal(r3.status, 429, 'the third on A');
      t.equal(r3.json['code'], 'DUST_BUDGET_EXCEEDED');
      t.equal(r4.status, 429, 'and on B');
      t.equal(r4.json['code'], 'DUST_BUDGET_EXCEEDED');
      t.equal(String(await stateOf(a).redis.command(['GET', budgetKey])), spent.toString(), 'Redis holds exactly the two answered fees more');
      const reserved = a.service.network('preview')!.table.counts().reserved + b.service.network('preview')!.table.counts().reserved;
      t.equal(reserved, 4, 'the refusals hold no UTXO (2 dedupe answers, 2 budget answers)');
    });

    await t.test("a policy's per-user cap holds across instances", async (t) => {
      // Both at once, alternating instances: the user's places are counted in Redis, one count.
      const answers = await Promise.all(Array.from({ length: 2 * PER_USER }, (_, i) => (i % 2 ? b : a).post('/prove-and-balance', tx(), CAPPED)));
      const ok = answers.filter((r) => r.status === 200);
      t.equal(ok.length, PER_USER, `exactly ${PER_USER} sponsored over both instances`);
      t.same(
        [...new Set(answers.filter((r) => r.status !== 200).map((r) => `${r.status} ${String(r.json['code'])} ${String(r.json['rule'])}`))],
        ['429 USER_LIMIT perUser.maxSponsorships'],
      );
      t.equal(a.service.held('preview', 'capped') + b.service.held('preview', 'capped'), PER_USER, 'the refusals hold no UTXO');
    });

    await t.test("a key's share of the pool holds across instances", async (t) => {
      const got = [];
      for (let i = 0; i < SHARE; i++) got.push(await (i % 2 ? b : a).post('/prove-and-balance', tx(), OTHER_KEY));
      t.same(
        got.map((g) => g.status),
        Array(SHARE).fill(200),
        JSON.stringify(got.map((g) => g.json['code'])),
      );
      const overA = await a.post('/prove-and-balance', tx(), OTHER_KEY);
      const overB = await b.post('/prove-and-balance', tx(), OTHER_KEY);
      t.equal(overA.status, 429);
      t.equal(overA.json['code'], 'RESERVATION_LIMIT', "A holds 2, B holds 2: the key's share of 4 is full on A");
      t.equal(overB.json['code'], 'RESERVATION_LIMIT', 'and on B');
      t.equal(a.service.held('preview', 'env-2'), SHARE / 2, 'each instance holds only its own two');
    });

    if (infra)
      await t.test('Redis killed mid-run, then restarted', async (t) => {
        const fallbacks = stateOf(a).counters().localFallbacks;
        await redis.kill();
        await until('both instances see Redis gone', () => !stateOf(a).redis.available && !stateOf(b).redis.available);
        const stats = await a.get('/api/v1/preview/recent-transactions');
        t.equal(stats.status, 200, 'statistics keep serving');
        const keyed = await a.get('/wallet-status', TEST_KEY);
        t.equal(keyed.status, 200, 'keyed routes keep working');
        t.ok(stateOf(a).counters().localFallbacks > fallbacks, 'on local limits, counted');
        const reservedBefore = b.service.network('preview')!.table.counts().reserved;
        const refused = await b.post('/prove-and-balance', tx());
        t.equal(refused.status, 503);
        t.equal(refused.json['code'], 'BUDGET_UNAVAILABLE', 'sponsorship refuses: the budget cannot be charged exactly');
        t.ok(refused.headers['retry-after']);
        t.equal(b.service.network('preview')!.table.counts().reserved, reservedBefore, 'the refusal reserved nothing');
        t.equal(a.app.health()['status'], 'degraded');
        t.match(
          a.logs.lines.find((l) => l['module'] === 'state' && l['level'] === 40),
          { msg: /redis unavailable/ },
        );

        await redis.restart();
        await until('both reconnect and take their wallet leases again', () =>
          [a, b].every(
            (i) =>
              stateOf(i).redis.available &&
              (i.app.health()['components'] as Record<string, { walletLeases?: Array<{ held: boolean }> }>)['sponsorship']!.walletLeases!.every((l) => l.held),
          ),
        );
        const back = await b.post('/prove-and-balance', tx());
        t.equal(back.status, 200, why(back));
        const windowStart = Math.floor(Date.now() / LONG_WINDOW_MS) * LONG_WINDOW_MS;
        t.equal(
          String(await stateOf(b).redis.command(['GET', `nightgate:budget:{env-1}:${windowStart}`])),
          back.json['fee'],
          'charged once, for the answer only (the refused one charged nothing)',
        );
        t.equal((await a.get('/wallet-status', LIMITED)).status, 200, 'a fresh Redis: the limited key starts again');
      });
  });
