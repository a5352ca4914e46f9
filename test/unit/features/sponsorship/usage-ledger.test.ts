import t, { type Test } from 'tap';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../helpers/manual-clock.js';
import type { AppContext } from '../../../../src/infra/app-context.js';
import { Metrics } from '../../../../src/infra/metrics/metrics.js';
import { collectUsage, usageComponent } from '../../../../src/features/sponsorship/policy/usage-component.js';
import { DAY_MS } from '../../../../src/features/sponsorship/policy/usage-file.js';
import { USAGE_DIR, UsageLedger, type UsageLedgerOptions } from '../../../../src/features/sponsorship/policy/usage.js';
import { captureLogs } from '../../../helpers/app.js';
import { sample } from '../../../helpers/metrics-text.js';

/** 2025-06-01T00:00:00Z */
const JUNE_1 = Date.UTC(2025, 5, 1);
const HOUR = 3_600_000;

function dir(t: Test): string {
  const d = mkdtempSync(join(tmpdir(), 'ng-usage-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A scheduler that runs nothing until told: what was scheduled, and after how long. */
function timers() {
  const pending: Array<{ fn: () => void; ms: number; live: boolean }> = [];
  return {
    pending,
    live: () => pending.filter((p) => p.live),
    schedule: (fn: () => void, ms: number) => {
      const e = { fn, ms, live: true };
      pending.push(e);
      return () => void (e.live = false);
    },
    runAll(): void {
      for (const p of pending.splice(0)) if (p.live) p.fn();
    },
  };
}

function ledger(clock: ManualClock, extra: Partial<UsageLedgerOptions> = {}) {
  const logs = captureLogs();
  const tm = timers();
  const l = new UsageLedger({ clock, logger: logs.logger, schedule: tm.schedule, ...extra });
  return { l, logs, tm };
}

const month = (clock: ManualClock) => ({ from: clock.now() - 30 * DAY_MS, to: clock.now() + DAY_MS });

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

t.test('kept one file per day: written at most once per interval and at close, read back by a new ledger', async (t) => {
  const d = dir(t);
  const files = join(d, USAGE_DIR);
  const june1 = join(files, '2025-06-01.json');
  const clock = new ManualClock(JUNE_1 + HOUR);
  const { l, tm } = ledger(clock, { flushIntervalMs: 10_000 });
  l.load(d);
  t.same(readdirSync(files), [], 'nothing written before a change');
  t.same(tm.live(), [], 'nor scheduled');
  l.sponsored('shop', 'preview', ['alice'], 100n, clock.now());
  l.refused('shop', 'preprod', 'allow.contracts', clock.now());
  t.same(
    tm.live().map((p) => p.ms),
    [10_000],
    'one write scheduled, an interval after the load',
  );
  t.same(readdirSync(files), [], 'not written yet');
  clock.advance(10_000);
  tm.runAll();
  t.same(readdirSync(files), ['2025-06-01.json'], 'written when the interval is over; no temporary file left');

  clock.advance(4_000);
  l.sponsored('shop', 'preview', ['bob'], 30n, clock.now());
  l.sponsored('shop', 'preview', ['bob'], 30n, clock.now());
  t.same(
    tm.live().map((p) => p.ms),
    [6_000],
    'the next write waits for the rest of the interval, once for both',
  );
  l.expired('shop', 'preview', ['bob'], 30n, clock.now());
  l.close();
  t.same(tm.live(), [], 'close writes at once and cancels the pending write');
  const written = JSON.parse(readFileSync(june1, 'utf8')) as { version: number; day: string };
  t.same([written.version, written.day], [1, '2025-06-01']);

  // The next day: only its file is written; 1 June's is left as it is.
  clock.advance(DAY_MS);
  const { l: next, tm: tm2 } = ledger(clock);
  next.load(d);
  writeFileSync(june1, readFileSync(june1, 'utf8').replace('"version":1', '"version":1 '));
  next.sponsored('shop', 'preview', ['carol'], 5n, clock.now());
  clock.advance(60_000);
  tm2.runAll();
  t.same(readdirSync(files).sort(), ['2025-06-01.json', '2025-06-02.json'], 'a file for 2 June');
  t.match(readFileSync(june1, 'utf8'), /"version":1 /, "1 June's file untouched by a write of 2 June");

  const before = next.query({ keys: 'all', ...month(clock), groupBy: 'user' });
  const { l: again, logs } = ledger(clock);
  again.load(d);
  t.same(again.query({ keys: 'all', ...month(clock), groupBy: 'user' }), before, 'a new ledger reads the same figures');
  t.same(again.query({ keys: ['shop'], ...month(clock), groupBy: 'day' }).keys[0]!.days, [
    { day: '2025-06-01', sponsorships: 3, dust: '130', expired: 1, refusals: { 'allow.contracts': 1 } },
    { day: '2025-06-02', sponsorships: 1, dust: '5', expired: 0, refusals: {} },
  ]);
  t.match(logs.lines.at(-1), { msg: 'usage ledger loaded', days: 2 });
  again.sponsored('shop', 'preview', [], 1n, clock.now());
  t.equal(again.query({ keys: ['shop'], ...month(clock), groupBy: 'day' }).keys[0]!.sponsorships, 5, 'and counts on from them');
  l.sponsored('shop', 'preview', [], 1n, clock.now());
  t.same(tm.live(), [], 'a closed ledger schedules no write');
});

t.test('a restart drops the files past the retention and the users past userDays', async (t) => {
  const d = dir(t);
  const files = join(d, USAGE_DIR);
  const clock = new ManualClock(JUNE_1);
  const { l } = ledger(clock);
  l.load(d);
  for (let i = 0; i < 5; i++) l.sponsored('k', 'preview', [`user-${i}`], 10n, JUNE_1 + i * DAY_MS);
  l.close();
  t.equal(readdirSync(files).length, 5, 'five day files');

  clock.advance(5 * DAY_MS); // 6 June
  const { l: later, tm } = ledger(clock, { retentionDays: 4, userDays: 2 });
  later.load(d);
  const all = { keys: ['k'] as const, from: JUNE_1, to: JUNE_1 + 10 * DAY_MS };
  t.same(
    later.query({ ...all, groupBy: 'day' }).keys[0]!.days!.map((x) => x.day),
    ['2025-06-03', '2025-06-04', '2025-06-05'],
    '1 and 2 June are past 4 days',
  );
  t.same(
    later.query({ ...all, groupBy: 'user' }).keys[0]!.users!.map((u) => u.user),
    ['user-4'],
    'users of 5 June only (6 June has none)',
  );
  t.same(tm.live().length, 1, 'a write scheduled for what the load dropped');
  tm.runAll();
  t.same(readdirSync(files).sort(), ['2025-06-03.json', '2025-06-04.json', '2025-06-05.json'], 'the old files are removed');
  const june3 = JSON.parse(readFileSync(join(files, '2025-06-03.json'), 'utf8')) as { keys: Record<string, { users: unknown[] }> };
  t.same(june3.keys['k']!.users, [], 'and 3 June written without its users');
});

t.test('a corrupt day file is logged and moved aside; the other days are read', async (t) => {
  const good = '{"version":1,"day":"2025-05-31","keys":{"k":{"networks":{"preview":{"sponsorships":1,"dust":"4","expired":0,"refusals":{}}},"users":[]}}}';
  const cases = [
    ['not JSON', '{"version":1,"day'],
    ['another shape', '{"version":2,"day":"2025-06-01","keys":{}}'],
    ['another day', good],
    [
      'a bad amount',
      '{"version":1,"day":"2025-06-01","keys":{"k":{"networks":{"preview":{"sponsorships":1,"dust":"-5","expired":0,"refusals":{}}},"users":[]}}}',
    ],
  ] as const;
  for (const [what, text] of cases) {
    const d = dir(t);
    const files = join(d, USAGE_DIR);
    mkdirSync(files);
    const bad = join(files, '2025-06-01.json');
    writeFileSync(bad, text);
    writeFileSync(join(files, '2025-05-31.json'), good);
    writeFileSync(join(files, 'notes.txt'), 'not a day file');
    const clock = new ManualClock(JUNE_1);
    const { l, logs, tm } = ledger(clock);
    l.load(d);
    t.same(
      l.query({ keys: ['k'], ...month(clock), groupBy: 'day' }).keys[0]!.days!.map((x) => x.day),
      ['2025-05-31'],
      `${what}: the good day read`,
    );
    t.match(
      logs.lines.find((x) => x['level'] === 50),
      { msg: /usage file cannot be read/, path: bad, movedTo: `${bad}.corrupt-${JUNE_1}` },
      `${what}: logged`,
    );
    t.equal(readFileSync(`${bad}.corrupt-${JUNE_1}`, 'utf8'), text, `${what}: kept aside as it was`);
    l.sponsored('k', 'preview', [], 3n, clock.now());
    clock.advance(60_000);
    tm.runAll();
    const fresh = new UsageLedger({ clock, logger: logs.logger });
    fresh.load(d);
    t.equal(fresh.query({ keys: ['k'], ...month(clock), groupBy: 'day' }).keys[0]!.dust, '7', `${what}: a new file written for the day`);
  }
});

t.test('a write that fails is logged and retried; the ledger goes on counting', async (t) => {
  const d = dir(t);
  const clock = new ManualClock(JUNE_1);
  const { l, logs, tm } = ledger(clock, { flushIntervalMs: 1_000 });
  l.load(d);
  rmSync(d, { recursive: true, force: true });
  l.sponsored('k', 'preview', [], 3n, clock.now());
  clock.advance(1_000);
  tm.runAll();
  t.equal(l.stats().writeErrors, 1);
  t.match(
    logs.lines.find((x) => x['level'] === 50),
    { msg: /could not write the usage file/ },
  );
  t.same(
    tm.live().map((p) => p.ms),
    [1_000],
    'retried after the interval',
  );
  t.equal(l.query({ keys: ['k'], ...month(clock), groupBy: 'day' }).keys[0]!.dust, '3');
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
