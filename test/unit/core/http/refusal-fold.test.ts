/**
 * The refusal fold (`log.requests: aggregate`) across many addresses: at most
 * REFUSAL_LINES_PER_SECOND refusal lines a second whatever the number of addresses, the rest
 * counted into one `"refusals"` line a second of bounded size (counts by code, the addresses
 * refused most). Time is the injected clock; the once-a-second line is written by calling what
 * its timer calls.
 */
import t from 'tap';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ManualClock } from '../../../helpers/manual-clock.js';
import type { Exchange } from '../../../../src/core/http/exchange.js';
import * as fold from '../../../../src/core/http/refusal-fold.js';
import { RequestLog } from '../../../../src/core/http/request-log.js';

/** Read from the module, not imported by name, so that a build without the budget fails here rather than at load. */
const BUDGET = fold.REFUSAL_LINES_PER_SECOND;

/** The app's logger shape (base, ISO time, http child) writing into an array. */
function capture(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(l);
      cb();
    },
  });
  const logger = pino({ level: 'info', base: { service: 'nightgate' }, timestamp: pino.stdTimeFunctions.isoTime }, stream).child({ module: 'http' });
  return { logger, lines };
}

/** A refused request as the pipeline leaves it: what RequestLog.record reads. */
function refused(ip: string, status: number, code: string, n: number): Exchange {
  return {
    requestId: `r-${n}`,
    method: 'GET',
    route: { url: '(unmatched)', auth: 'none' },
    path: '/nowhere',
    t0: performance.now(),
    ip,
    keyId: undefined,
    headers: {},
    code,
    status,
  } as unknown as Exchange;
}

function address(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

const parse = (l: string): Record<string, unknown> => JSON.parse(l) as Record<string, unknown>;

t.test('10 000 addresses refused once a second each: at most the budget of lines a second and one "refusals" line', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const { logger, lines } = capture();
  const log = new RequestLog(logger, () => clock.now(), 'aggregate');
  const ADDRESSES = 10_000;
  const SECONDS = 5;
  let n = 0;
  let bytes = 0;
  for (let second = 0; second < SECONDS; second++) {
    const before = lines.length;
    for (let i = 0; i < ADDRESSES; i++) {
      const ex = i % 2 === 0 ? refused(address(i), 404, 'NOT_FOUND', n++) : refused(address(i), 401, 'UNAUTHORIZED', n++);
      log.record(ex, ex.code === 'NOT_FOUND' ? 404 : 401);
      // The second's refusals spread over it: 1 ms every ten.
      if (i % 10 === 9) clock.advance(1);
    }
    // What the once-a-second timer does.
    log.flushAll();
    const written = lines.slice(before).map(parse);
    const requestLines = written.filter((l) => l['msg'] === 'request');
    const summaries = written.filter((l) => l['msg'] === 'refusals');
    t.ok(requestLines.length <= BUDGET, `second ${second}: ${requestLines.length} refusal lines (budget ${BUDGET})`);
    t.equal(summaries.length, 1, 'one "refusals" line');
    const s = summaries[0]!;
    t.equal(s['total'], ADDRESSES - requestLines.length, 'the rest counted');
    t.same(
      s['codes'],
      {
        NOT_FOUND: ADDRESSES / 2 - requestLines.filter((l) => l['status'] === 404).length,
        UNAUTHORIZED: ADDRESSES / 2 - requestLines.filter((l) => l['status'] === 401).length,
      },
      'by code',
    );
    t.equal(s['addresses'], ADDRESSES - requestLines.length, 'how many addresses');
    t.ok(Object.keys(s['clients'] as object).length <= fold.TOP_REFUSED_CLIENTS + 1, 'the top addresses and "other", not every address');
    const size = lines.slice(before).reduce((k, l) => k + Buffer.byteLength(l) + 1, 0);
    t.ok(size < 4096, `${size} B of log for ${ADDRESSES} refusals`);
    bytes += size;
  }
  const perRefusal = bytes / (ADDRESSES * SECONDS);
  t.ok(perRefusal < 0.5, `${ADDRESSES * SECONDS} refusals from ${ADDRESSES} addresses: ${bytes} B of log, ${perRefusal.toFixed(3)} B a refusal`);
});

t.test('one address flooding among many: named first in "clients", with its counts by code', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const { logger, lines } = capture();
  const log = new RequestLog(logger, () => clock.now(), 'aggregate');
  let n = 0;
  for (let i = 0; i < 3_000; i++) {
    log.record(refused(address(i), 404, 'NOT_FOUND', n++), 404);
    log.record(refused('203.0.113.7', 429, 'RATE_LIMITED', n++), 429);
    if (i % 3 === 0) log.record(refused('2001:db8:1:2:3:4:5:6', 401, 'UNAUTHORIZED', n++), 401);
  }
  log.flushAll();
  const summary = lines.map(parse).find((l) => l['msg'] === 'refusals')!;
  const clients = summary['clients'] as Record<string, Record<string, number>>;
  const names = Object.keys(clients);
  t.same(names.slice(0, 2), ['203.0.113.7', '2001:db8:1:2::/64'], 'the heaviest first; an IPv6 client by its /64');
  t.same(clients['203.0.113.7'], { RATE_LIMITED: 2_999 }, 'its first 429 of the second is a line, the rest counted');
  t.equal(names.length, fold.TOP_REFUSED_CLIENTS + 1);
  t.equal(names.at(-1), 'other');
  let sum = 0;
  for (const codes of Object.values(clients)) for (const k of Object.values(codes)) sum += k;
  t.equal(sum, summary['total'], '"clients" adds up to the total');
  t.equal(lines.map(parse).filter((l) => l['msg'] === 'request').length + (summary['total'] as number), 3_000 * 2 + 1_000, 'every refusal a line or counted');
});

t.test('one address alone keeps its lines: its first 429 of a code and its first five of another each second', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const { logger, lines } = capture();
  const log = new RequestLog(logger, () => clock.now(), 'aggregate');
  for (let second = 0; second < 3; second++) {
    for (let i = 0; i < 100; i++) {
      log.record(refused('203.0.113.7', 429, 'RATE_LIMITED', i), 429);
      log.record(refused('203.0.113.7', 404, 'NOT_FOUND', i), 404);
    }
    clock.advance(1_000);
  }
  log.flushAll();
  const requestLines = lines.map(parse).filter((l) => l['msg'] === 'request');
  t.equal(requestLines.filter((l) => l['status'] === 429).length, 3, 'one 429 line a second');
  t.equal(requestLines.filter((l) => l['status'] === 404).length, 15, 'five 404 lines a second');
  t.match(
    lines.map(parse).find((l) => l['msg'] === 'refusals'),
    {
      level: 40,
      total: 600 - 18,
      codes: { RATE_LIMITED: 297, NOT_FOUND: 285 },
      addresses: 1,
      clients: { '203.0.113.7': { RATE_LIMITED: 297, NOT_FOUND: 285 } },
    },
  );
});

t.test('5xx answers never fold, whatever the budget', async (t) => {
  const f = new fold.RefusalFold(() => 0, 1);
  t.equal(f.fold('a', 404, 'NOT_FOUND'), false);
  t.equal(f.fold('b', 404, 'NOT_FOUND'), true, 'the budget of one line spent');
  t.equal(f.fold('b', 503, 'QUEUE_FULL'), false);
  t.equal(f.fold('b', 200, undefined), false);
});

t.test('RefusalCounts: the top addresses, ties in first-counted order, the rest under "other"; bounded', async (t) => {
  const c = new fold.RefusalCounts(4);
  for (const [client, code, k] of [
    ['a', 'X', 1],
    ['b', 'X', 3],
    ['c', 'Y', 2],
    ['d', 'X', 3],
    ['e', 'Y', 9],
  ] as const) {
    for (let i = 0; i < k; i++) c.add(client, code);
  }
  t.equal(c.addresses, 4, 'the fifth address is not counted one by one');
  t.equal(c.total, 18);
  t.same(
    [...c.codes],
    [
      ['X', 7],
      ['Y', 11],
    ],
  );
  const { top, other } = c.top(2);
  t.same(
    top.map((x) => [x.client, x.total]),
    [
      ['b', 3],
      ['d', 3],
    ],
  );
  t.same(
    [...other!],
    [
      ['X', 1],
      ['Y', 11],
    ],
    'a, c and the uncounted e',
  );
  t.equal(c.top(10).other?.get('Y'), 9, 'all counted addresses named: only the uncounted one is "other"');
  c.clear();
  t.equal(c.total, 0);
  t.same(c.top(3), { top: [], other: undefined });
});
