/**
 * The usage ledger's figures: sponsorships, DUST, expiries and refusals per key, UTC day, network
 * and user, as queried; the bounds on users per day, retention and userDays; the Prometheus
 * counters of the usage component. In memory, on an injected clock. Its day files on disk:
 * usage-ledger-files.test.ts.
 */
import t from 'tap';
import { ManualClock } from '../../../helpers/manual-clock.js';
import type { AppContext } from '../../../../src/infra/app-context.js';
import { Metrics } from '../../../../src/infra/metrics/metrics.js';
import { collectUsage, usageComponent } from '../../../../src/features/sponsorship/policy/usage-component.js';
import { DAY_MS } from '../../../../src/features/sponsorship/policy/usage-file.js';
import { sample } from '../../../helpers/metrics-text.js';
import { HOUR, JUNE_1, ledger, month } from '../../../helpers/usage-ledger.js';

t.test('sponsorships, DUST and refusals per key, day and network', async (t) => {
  const clock = new ManualClock(JUNE_1 + 12 * HOUR);
  const { l } = ledger(clock);
  l.sponsored('shop', 'preview', ['alice'], 100n, clock.now());
  l.sponsored('shop', 'preview', ['bob'], 250n, clock.now() + HOUR);
  l.sponsored('shop', 'preprod', ['alice'], 50n, clock.now());
  l.refused('shop', 'preview', 'allow.contracts', clock.now());
  l.refused('shop', 'preview', 'allow.contracts', clock.now());
  l.refused('shop', 'preview', 'FEE_CAP_EXCEEDED', clock.now());
  l.sponsored('game', 'preview', ['carol'], 7n, clock.now());

  const day = l.query({ keys: ['shop'], ...month(clock), groupBy: 'day' });
  t.equal(day.groupBy, 'day');
  t.equal(day.keys.length, 1, 'only the key asked for');
  const shop = day.keys[0]!;
  t.match(shop, { keyId: 'shop', sponsorships: 3, dust: '400', dustUnit: 'SPECK', expired: 0, refusals: { 'allow.contracts': 2, FEE_CAP_EXCEEDED: 1 } });
  t.same(shop.networks, {
    preprod: { sponsorships: 1, dust: '50', expired: 0, refusals: {} },
    preview: { sponsorships: 2, dust: '350', expired: 0, refusals: { 'allow.contracts': 2, FEE_CAP_EXCEEDED: 1 } },
  });
  t.same(shop.days, [{ day: '2025-06-01', sponsorships: 3, dust: '400', expired: 0, refusals: { 'allow.contracts': 2, FEE_CAP_EXCEEDED: 1 } }]);
  t.equal(shop.users, undefined, 'no users when grouped by day');

  const byUser = l.query({ keys: ['shop'], ...month(clock), groupBy: 'user' }).keys[0]!;
  t.same(
    byUser.users,
    [
      { user: 'alice', sponsorships: 2, dust: '150' },
      { user: 'bob', sponsorships: 1, dust: '250' },
    ],
    'by sponsorships, most first',
  );
  t.equal(byUser.days, undefined);

  t.same(
    l.query({ keys: 'all', ...month(clock), groupBy: 'day' }).keys.map((k) => k.keyId),
    ['game', 'shop'],
    'all: every key with usage',
  );
  t.match(
    l.query({ keys: ['nobody'], ...month(clock), groupBy: 'day' }).keys,
    [{ keyId: 'nobody', sponsorships: 0, dust: '0', days: [] }],
    'a key with none: zeros',
  );
});

t.test('UTC day boundaries: a record belongs to its day; a day counts when it overlaps the window', async (t) => {
  const clock = new ManualClock(JUNE_1 + 5 * DAY_MS);
  const { l } = ledger(clock);
  l.sponsored('k', 'preview', [], 1n, JUNE_1 + DAY_MS - 1); // 1 June, last ms
  l.sponsored('k', 'preview', [], 2n, JUNE_1 + DAY_MS); // 2 June, first ms
  const q = (from: number, to: number) => l.query({ keys: ['k'], from, to, groupBy: 'day' }).keys[0]!;
  t.same(
    q(JUNE_1, JUNE_1 + 3 * DAY_MS).days!.map((d) => [d.day, d.dust]),
    [
      ['2025-06-01', '1'],
      ['2025-06-02', '2'],
    ],
  );
  t.same(
    q(JUNE_1, JUNE_1 + DAY_MS).days!.map((d) => d.day),
    ['2025-06-01'],
    'to is exclusive: 2 June starts at to',
  );
  t.same(
    q(JUNE_1 + DAY_MS - 1, JUNE_1 + DAY_MS).days!.map((d) => d.day),
    ['2025-06-01'],
    'one ms of 1 June',
  );
  t.same(
    q(JUNE_1 + DAY_MS + HOUR, JUNE_1 + DAY_MS + 2 * HOUR).days!.map((d) => d.day),
    ['2025-06-02'],
    'an hour inside 2 June counts the whole day',
  );
  t.equal(q(JUNE_1 + 2 * DAY_MS, JUNE_1 + 4 * DAY_MS).sponsorships, 0, 'days after');
  const answer = l.query({ keys: ['k'], from: JUNE_1, to: JUNE_1 + DAY_MS, groupBy: 'day' });
  t.same([answer.from, answer.to], ['2025-06-01T00:00:00.000Z', '2025-06-02T00:00:00.000Z']);
});

t.test('an expired sponsorship: its fee leaves the DUST of the day it was answered, and it is counted there', async (t) => {
  const clock = new ManualClock(JUNE_1 + 23 * HOUR);
  const { l } = ledger(clock);
  const answeredAt = clock.now();
  l.sponsored('k', 'preview', ['alice'], 100n, answeredAt);
  l.sponsored('k', 'preview', ['bob'], 40n, answeredAt);
  clock.advance(2 * HOUR); // 2 June: the reservation is reclaimed
  l.expired('k', 'preview', ['alice'], 100n, answeredAt);
  const k = l.query({ keys: ['k'], ...month(clock), groupBy: 'day' }).keys[0]!;
  t.same(k.days, [{ day: '2025-06-01', sponsorships: 2, dust: '40', expired: 1, refusals: {} }], 'in 1 June, nothing in 2 June');
  t.match(k, { sponsorships: 2, dust: '40', expired: 1 });
  const users = l.query({ keys: ['k'], ...month(clock), groupBy: 'user' }).keys[0]!.users;
  t.same(
    users,
    [
      { user: 'bob', sponsorships: 1, dust: '40' },
      { user: 'alice', sponsorships: 1, dust: '0' },
    ],
    "alice's DUST taken back",
  );
  l.expired('k', 'preview', ['alice'], 100n, answeredAt);
  t.equal(l.query({ keys: ['k'], ...month(clock), groupBy: 'day' }).keys[0]!.dust, '0', 'never below zero');

  const counters = l.counters().find((c) => c.keyId === 'k')!;
  t.same(Object.fromEntries(counters.outcomes), { sponsored: 2, expired: 2 }, 'the counters only grow');
  t.equal(counters.dust, 140n);
});

t.test('users are bounded per key and day: the rest are (other); the top 100 are listed', async (t) => {
  const clock = new ManualClock(JUNE_1);
  const { l } = ledger(clock, { maxUsersPerDay: 3 });
  for (const u of ['u1', 'u2', 'u3', 'u4', 'u5']) l.sponsored('k', 'preview', [u], 10n, clock.now());
  l.sponsored('k', 'preview', ['u1'], 10n, clock.now());
  l.sponsored('k', 'preview', ['u2', 'u3', 'u2'], 10n, clock.now()); // several users, one repeated
  l.expired('k', 'preview', ['u5'], 10n, clock.now());
  const users = l.query({ keys: ['k'], ...month(clock), groupBy: 'user' }).keys[0]!.users!;
  t.same(
    users,
    [
      { user: 'u1', sponsorships: 2, dust: '20' },
      { user: 'u2', sponsorships: 2, dust: '20' },
      { user: 'u3', sponsorships: 2, dust: '20' },
      { user: '(other)', sponsorships: 2, dust: '10' },
    ],
    'u4 and u5 under (other), whose DUST gives back the expired one',
  );
  clock.advance(DAY_MS);
  l.sponsored('k', 'preview', ['u9'], 1n, clock.now());
  t.same(
    l.query({ keys: ['k'], from: clock.now(), to: clock.now() + 1, groupBy: 'user' }).keys[0]!.users,
    [{ user: 'u9', sponsorships: 1, dust: '1' }],
    'a new day has room again',
  );

  const { l: many } = ledger(clock);
  for (let i = 0; i < 150; i++) for (let n = 0; n <= i % 7; n++) many.sponsored('k', 'preview', [`user-${i}`], 1n, clock.now());
  const top = many.query({ keys: ['k'], ...month(clock), groupBy: 'user' }).keys[0]!.users!;
  t.equal(top.length, 100, 'the top 100');
  t.ok(
    top.every((u, i) => i === 0 || top[i - 1]!.sponsorships >= u.sponsorships),
    'most sponsorships first',
  );
  t.equal(top[0]!.sponsorships, 7);
});

t.test('retention: days past it are dropped, and records for them ignored', async (t) => {
  const clock = new ManualClock(JUNE_1);
  const { l } = ledger(clock, { retentionDays: 10 });
  l.sponsored('k', 'preview', [], 5n, clock.now());
  clock.advance(9 * DAY_MS);
  l.sponsored('k', 'preview', [], 7n, clock.now());
  const window = { keys: ['k'] as const, from: JUNE_1, to: JUNE_1 + 20 * DAY_MS, groupBy: 'day' as const };
  t.equal(l.query(window).keys[0]!.dust, '12', 'day 0 is still within 10 days');
  clock.advance(DAY_MS);
  l.refused('k', 'preview', 'FEE_CAP_EXCEEDED', clock.now());
  t.same(
    l.query(window).keys[0]!.days!.map((d) => d.day),
    ['2025-06-10', '2025-06-11'],
    'the oldest day is gone',
  );
  l.sponsored('k', 'preview', [], 100n, JUNE_1);
  l.expired('k', 'preview', [], 7n, JUNE_1);
  t.equal(l.query(window).keys[0]!.dust, '7', 'a record for a dropped day is ignored');
  t.equal(l.stats().days, 2);
});

t.test('users are kept for the last userDays days; older days keep their totals', async (t) => {
  const clock = new ManualClock(JUNE_1);
  const { l } = ledger(clock, { userDays: 2 });
  const all = { keys: ['k'] as const, from: JUNE_1, to: JUNE_1 + 10 * DAY_MS };
  l.sponsored('k', 'preview', ['alice'], 5n, clock.now());
  clock.advance(DAY_MS);
  l.sponsored('k', 'preview', ['bob'], 7n, clock.now());
  t.same(
    l.query({ ...all, groupBy: 'user' }).keys[0]!.users!.map((u) => u.user),
    ['bob', 'alice'],
    "two days: both days' users (most DUST first)",
  );
  clock.advance(DAY_MS);
  l.sponsored('k', 'preview', ['carol'], 1n, clock.now());
  t.same(
    l.query({ ...all, groupBy: 'user' }).keys[0]!.users!.map((u) => u.user),
    ['bob', 'carol'],
    "1 June's users are dropped",
  );
  t.match(l.query({ ...all, groupBy: 'day' }).keys[0]!, { sponsorships: 3, dust: '13' }, 'its totals are kept');
  l.sponsored('k', 'preview', ['dave'], 2n, JUNE_1);
  t.match(l.query({ ...all, groupBy: 'day' }).keys[0]!, { sponsorships: 4, dust: '15' }, 'a late record for a trimmed day counts in its totals');
  t.notOk(
    l.query({ ...all, groupBy: 'user' }).keys[0]!.users!.some((u) => u.user === 'dave'),
    'not in its users',
  );
});

t.test('Prometheus counters by key id and outcome, from the usage component', async (t) => {
  const clock = new ManualClock(JUNE_1);
  const { l } = ledger(clock);
  const metrics = new Metrics({ defaultMetrics: false });
  let component: ReturnType<typeof usageComponent> | undefined;
  const ctx = { metrics, component: (name: string) => (name === 'usage' ? component : undefined) } as unknown as AppContext;
  collectUsage(ctx);
  t.notMatch(await metrics.render(), /nightgate_key_sponsorships_total\{/, 'no series before the component exists');
  component = usageComponent(l);
  l.sponsored('shop', 'preview', ['alice'], 100n, clock.now());
  l.sponsored('shop', 'preprod', ['alice'], 20n, clock.now());
  l.expired('shop', 'preview', ['alice'], 100n, clock.now());
  l.refused('shop', 'preview', 'allow.contracts', clock.now());
  l.refused('game', 'preview', 'DUST_BUDGET_EXCEEDED', clock.now());
  const text = await metrics.render();
  t.equal(sample(text, 'nightgate_key_sponsorships_total', { key: 'shop', outcome: 'sponsored' }), 2);
  t.equal(sample(text, 'nightgate_key_sponsorships_total', { key: 'shop', outcome: 'expired' }), 1);
  t.equal(sample(text, 'nightgate_key_sponsorships_total', { key: 'shop', outcome: 'allow.contracts' }), 1);
  t.equal(sample(text, 'nightgate_key_sponsorships_total', { key: 'game', outcome: 'DUST_BUDGET_EXCEEDED' }), 1);
  t.equal(sample(text, 'nightgate_key_sponsored_dust_speck_total', { key: 'shop' }), 120);
  t.notMatch(text, /alice/, 'no user is ever a label');
  t.match(component.health(), { status: 'ok', path: null, days: 1 });
});
