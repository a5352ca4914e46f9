/**
 * The usage ledger's day files: one file per UTC day, written at most once per interval and at
 * close, read back by a new ledger; a restart drops the days past the retention and the users
 * past userDays; a corrupt file is logged and moved aside; a failed write is logged and retried.
 * Writes run on a scheduler the test drives and an injected clock; nothing sleeps. The figures
 * themselves: usage-ledger.test.ts.
 */
import t from 'tap';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { DAY_MS } from '../../../../src/features/sponsorship/policy/usage-file.js';
import { USAGE_DIR, UsageLedger } from '../../../../src/features/sponsorship/policy/usage.js';
import { dir, HOUR, JUNE_1, ledger, month } from '../../../helpers/usage-ledger.js';

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
