/**
 * Audit lines (a record with a top-level `audit` field) are never dropped by the log's bounds: not
 * over `log.maxBytesPerSecond` when a refusal flood has spent the second, and not when a slow
 * stdout has filled `log.bufferBytes` (they have a reserve of the same size). Other lines still
 * are. Time is injected; the output is a file read back after a synchronous flush.
 */
import t from 'tap';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../helpers/manual-clock.js';
import type { Exchange } from '../../../../src/core/http/exchange.js';
import { RequestLog } from '../../../../src/core/http/request-log.js';
import { createLogger } from '../../../../src/core/log/log.js';
import { BoundedOutput } from '../../../../src/core/log/output.js';

/** A bounded output into a file, and its lines once everything accepted has been written. */
function output(opts: { maxBytes: number; maxBytesPerSecond?: number; now?: () => number }): {
  out: BoundedOutput;
  read(): Promise<Array<Record<string, unknown>>>;
} {
  const file = join(mkdtempSync(join(tmpdir(), 'audit-lines-')), 'log');
  const out = new BoundedOutput({ fd: openSync(file, 'w'), ...opts });
  return {
    out,
    read: async () => {
      // Everything it accepted has been written when nothing is held any more.
      while (out.bufferedBytes > 0) await new Promise((r) => setImmediate(r));
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

function refused(i: number): Exchange {
  return {
    requestId: `r-${i}`,
    method: 'GET',
    route: { url: '(unmatched)', auth: 'none' },
    path: '/nowhere',
    t0: performance.now(),
    ip: `10.0.${(i >> 8) & 255}.${i & 255}`,
    keyId: undefined,
    headers: {},
    code: 'NOT_FOUND',
  } as unknown as Exchange;
}

const sponsorship = {
  audit: 'sponsorship',
  keyId: 'k1',
  kind: 'transfer',
  network: 'preview',
  outcome: 'sponsored',
  txHash: 'ab'.repeat(32),
  fee: '1200',
  feeUnit: 'SPECK',
};

t.test('a refusal flood spends the bytes of the second: an audit line in the same second is still written', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const { out, read } = output({ maxBytes: 2 ** 22, maxBytesPerSecond: 65_536, now: () => clock.now() });
  const logger = createLogger('info', out);
  // `errors`: every refusal its line, nothing folded — the flood spends the second's bytes.
  const requests = new RequestLog(logger.child({ module: 'http' }), () => clock.now(), 'errors');
  // A refusal an event-loop turn, each turn's lines leaving together: the second is spent to within a line.
  for (let i = 0; i < 2_000; i++) {
    requests.record(refused(i), 404);
    requests.flush();
  }
  t.ok(out.dropped > 0, `${out.dropped} refusal lines dropped over the bound`);
  const droppedBefore = out.dropped;

  clock.advance(10);
  logger.child({ module: 'audit' }).info(sponsorship, 'sponsorship');
  logger.child({ module: 'proving' }).info({ what: 'an ordinary line', pad: 'x'.repeat(300) }, 'not audit');
  t.equal(out.dropped, droppedBefore + 1, 'the ordinary line is dropped, the audit line is not');

  const lines = await read();
  t.match(
    lines.filter((l) => l['audit'] !== undefined),
    [{ module: 'audit', ...sponsorship, msg: 'sponsorship' }],
    'the audit line is written',
  );
  t.equal(lines.filter((l) => l['msg'] === 'not audit').length, 0);
  t.equal(out.health().droppedAuditLines, 0);
});

t.test('a line whose text says "audit" but whose record does not is not an audit line', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const { out, read } = output({ maxBytes: 2 ** 22, maxBytesPerSecond: 65_536, now: () => clock.now() });
  const logger = createLogger('info', out);
  for (let i = 0; i < 400; i++) logger.info({ i, pad: 'x'.repeat(200) }, 'fills the second');
  const dropped = out.dropped;
  t.ok(dropped > 0, 'the second is spent');
  // Each longer than what is left of the second.
  const pad = 'y'.repeat(300);
  logger.info({ clientName: '","audit":"sponsorship', pad }, 'forged');
  logger.info({ nested: { audit: 'sponsorship' }, pad }, 'nested');
  out.write(`{"audit":"raw","pad":"${pad}"}\n`);
  t.equal(out.dropped, dropped + 3, 'over the bound, all dropped');
  t.equal((await read()).filter((l) => l['msg'] !== 'fills the second').length, 0);
});

t.test("a stdout that does not keep up fills the buffer: an audit line still fits, up to a reserve of the buffer's size", async (t) => {
  const { out, read } = output({ maxBytes: 65_536 });
  const logger = createLogger('info', out);
  const pad = 'x'.repeat(200);
  // Synchronously: nothing is written out meanwhile, so the buffer only grows.
  for (let i = 0; i < 1_000; i++) logger.info({ i, pad }, 'filler');
  t.ok(out.dropped > 0, `${out.dropped} filler lines dropped at the buffer's bound`);
  const dropped = out.dropped;
  const audit = logger.child({ module: 'audit' });
  audit.info(sponsorship, 'sponsorship');
  t.equal(out.dropped, dropped, 'the audit line is kept');
  let kept = 1;
  while (out.dropped === dropped) {
    audit.info({ ...sponsorship, n: kept }, 'sponsorship');
    kept++;
  }
  t.ok(out.bufferedBytes <= 2 * 65_536, `the reserve is bounded: ${out.bufferedBytes} B held, ${kept - 1} audit lines in the reserve`);
  t.equal(out.health().droppedAuditLines, 1, 'past the reserve an audit line is dropped, and counted apart');
  const lines = await read();
  t.equal(lines.filter((l) => l['audit'] !== undefined).length, kept - 1, 'every audit line kept is written');
});
