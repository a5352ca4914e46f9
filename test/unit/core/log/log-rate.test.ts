/**
 * `log.maxBytesPerSecond`: the log output takes at most that many bytes a second; lines beyond it
 * are dropped whole and counted, and the next second begins with one warning saying how many.
 * Time is injected.
 */
import t from 'tap';
import { openSync } from 'node:fs';
import { BoundedOutput } from '../../../../src/core/log/output.js';
import { createLogger } from '../../../../src/core/log/log.js';

class Recording extends BoundedOutput {
  written: string[] = [];
  override writeLines(chunk: string, lines: number): void {
    const before = this.dropped;
    super.writeLines(chunk, lines);
    if (this.dropped === before) this.written.push(chunk);
  }
}

t.test('over the bytes of a second: dropped and counted, then one warning when the next second begins', async (t) => {
  let now = 10_000;
  const out = new Recording({ fd: openSync('/dev/null', 'w'), maxBytes: 2 ** 22, maxBytesPerSecond: 65_536, now: () => now });
  const logger = createLogger('info', out);
  const line = 'x'.repeat(200);
  for (let i = 0; i < 2_000; i++) logger.info({ i, line }, 'flood');
  const kept = out.written.length;
  t.ok(kept > 200 && kept < 300, `${kept} of 2000 lines kept within 64 KiB`);
  t.equal(out.dropped, 2_000 - kept, 'the rest dropped and counted');
  t.ok(out.written.reduce((n, l) => n + Buffer.byteLength(l), 0) <= 65_536, 'at most the bound written');

  now += 1_000;
  logger.info('next second');
  await new Promise((r) => setImmediate(r));
  const warning = out.written.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => /over log\.maxBytesPerSecond/.test(String(l['msg'])));
  t.match(warning, { level: 40, droppedLines: 2_000 - kept, maxBytesPerSecond: 65_536, msg: `${2_000 - kept} log lines dropped: over log.maxBytesPerSecond` });
  t.equal(out.written.filter((l) => l.includes('over log.maxBytesPerSecond')).length, 1, 'said once');
  t.match(out.health(), { maxBytesPerSecond: 65_536, droppedLines: 2_000 - kept });
});
