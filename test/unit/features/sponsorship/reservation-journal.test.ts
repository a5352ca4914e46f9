import t, { type Test } from 'tap';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { JOURNAL_FILE, ReservationJournal, type JournalEntry } from '../../../../src/features/sponsorship/reservations/reservation-journal.js';
import { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';
import { captureLogs } from '../../../helpers/app.js';

function dir(t: Test): string {
  const d = mkdtempSync(join(tmpdir(), 'ng-journal-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

const fileLines = (d: string) =>
  readFileSync(join(d, JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const entry = (network: string, key: bigint, deadline: number, wallet = 0): JournalEntry => ({ network, wallet, key, deadline });

t.test('records survive a reopen; expired lines are dropped and the file rewritten', async (t) => {
  const d = dir(t);
  const clock = new ManualClock(1_000_000);
  const logs = captureLogs();
  const j = ReservationJournal.open({ dir: d, clock, logger: logs.logger });
  t.same(j.pending('preview'), [], 'a new journal has nothing pending');
  t.ok(j.record(entry('preview', 1n, 1_300_000)));
  t.ok(j.record(entry('preview', 2n ** 64n - 1n, 1_100_000, 1)), 'the largest 64-bit key');
  t.ok(j.record(entry('preprod', 7n, 1_200_000)));
  j.close();
  t.equal(fileLines(d).length, 3);

  clock.set(1_150_000);
  const again = ReservationJournal.open({ dir: d, clock, logger: logs.logger });
  t.same(again.pending('preview'), [entry('preview', 1n, 1_300_000)], 'the expired preview line is gone');
  t.same(again.pending('preprod'), [entry('preprod', 7n, 1_200_000)]);
  t.same(
    fileLines(d).map((l) => l['key']),
    ['1', '7'],
    'rewritten without it',
  );
  t.match(logs.lines.at(-1), { msg: 'DUST reservation journal opened', pending: 2, expired: 1, unreadable: 0 });
  again.restored('preview');
  t.same(again.pending('preview'), [], 'restored: forgotten');
  t.equal(again.stats().entries, 2, 'but still in the file for the next restart');
  again.close();
});

t.test('a torn last line and foreign lines are skipped and counted', async (t) => {
  const d = dir(t);
  const clock = new ManualClock(0);
  const logs = captureLogs();
  const j = ReservationJournal.open({ dir: d, clock, logger: logs.logger });
  j.record(entry('preview', 5n, 10_000));
  j.close();
  appendFileSync(
    join(d, JOURNAL_FILE),
    [
      '{"network":"preview","wallet":0,"key":"1', // torn write
      'not json',
      '{"network":"preview","wallet":-1,"key":"1","deadline":5}',
      '{"network":"preview","wallet":0,"key":"18446744073709551616","deadline":5}', // 2^64
      '{"network":"preview","wallet":0,"key":"0x1","deadline":5}',
      '[]',
    ].join('\n'),
  );
  const again = ReservationJournal.open({ dir: d, clock, logger: logs.logger });
  t.same(again.pending('preview'), [entry('preview', 5n, 10_000)]);
  t.match(logs.lines.at(-1), { pending: 1, expired: 0, unreadable: 6 });
  t.equal(fileLines(d).length, 1, 'the rewrite keeps only the good line');
  again.close();
});

t.test('compaction drops expired lines once as many new lines as the file held were written', async (t) => {
  const d = dir(t);
  const clock = new ManualClock(0);
  const j = ReservationJournal.open({ dir: d, clock, logger: captureLogs().logger, compactSlack: 4 });
  for (let i = 0; i < 3; i++) j.record(entry('preview', BigInt(i), 100));
  t.equal(fileLines(d).length, 3, 'appended');
  clock.set(200); // those three have expired
  j.record(entry('preview', 10n, 1_000));
  t.same(
    fileLines(d).map((l) => l['key']),
    ['10'],
    'the fourth line (compactSlack) compacted the file to the unexpired line',
  );
  t.equal(j.stats().entries, 1);
  // The next compaction waits for max(compactSlack, lines kept) = 4 more lines.
  for (let i = 0; i < 3; i++) j.record(entry('preview', BigInt(20 + i), 150));
  clock.set(300);
  t.equal(fileLines(d).length, 4, 'three appended, not yet compacted');
  j.record(entry('preview', 30n, 1_000));
  t.same(
    fileLines(d).map((l) => l['key']),
    ['10', '30'],
  );
  j.close();
  // The file is all the state: a reopen sees the same.
  const again = ReservationJournal.open({ dir: d, clock, logger: captureLogs().logger });
  t.same(
    again.pending('preview').map((e) => e.key),
    [10n, 30n],
  );
  again.close();
});

t.test('a journal that cannot be written: open throws, a failed append is logged and counted', async (t) => {
  const d = dir(t);
  const file = join(d, 'not-a-dir');
  writeFileSync(file, '');
  t.throws(
    () => ReservationJournal.open({ dir: file, clock: new ManualClock(0), logger: captureLogs().logger }),
    /ENOTDIR|EEXIST/,
    'a state dir that is a file',
  );
  const logs = captureLogs();
  const j = ReservationJournal.open({ dir: d, clock: new ManualClock(0), logger: logs.logger });
  j.close();
  t.equal(j.record(entry('preview', 1n, 10)), false, 'closed: not written');
  t.equal(j.stats().writeErrors, 1);
  t.match(logs.lines.at(-1), { level: 50, msg: /would not survive a restart/ });
});

t.test('reserveExact takes the FREE slot the caller read, and only that one', async (t) => {
  const table = DustAllocatorTable.create(4);
  const a = table.add({ walletIndex: 0, key: 1n, value: 100n });
  const b = table.add({ walletIndex: 1, key: 2n, value: 500n });
  const seen = table.slotEntry(a)!;
  const r = table.reserveExact(seen, 42_000);
  t.ok(r, 'reserved');
  t.match(table.slotEntry(a), { state: 'reserved', deadline: 42_000, generation: r!.generation });
  t.equal(r!.value, 100n);
  t.equal(table.reserveExact(seen, 42_000), null, 'the same read twice: the slot changed, refused');
  const other = table.slotEntry(b)!;
  t.ok(table.reserve(1n, 50_000), 'a request takes the other UTXO');
  t.equal(table.reserveExact(other, 42_000), null, 'a slot a request took is refused');
  t.ok(table.release({ slot: a, generation: r!.generation }), 'the exact reservation releases');
  t.throws(() => table.reserveExact({ slot: a, generation: 0 }, -1), RangeError);
  t.throws(() => table.reserveExact({ slot: 9, generation: 0 }, 1), RangeError);
});
