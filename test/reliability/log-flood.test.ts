/**
 * A slow stdout must not make nightgate's memory grow. The log output holds at most
 * `log.bufferBytes`; beyond it lines are dropped and counted, and once stdout catches up one line
 * says how many were lost. Driven by a child process whose stdout pipe the test does not read until
 * it has reported — no timing involved.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ROOT } from '../helpers/spawn.js';

t.test('a flood of log lines to a stdout nobody reads: bounded buffer, drops counted, one line when it recovers', async (t) => {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/fixtures/log/flood.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pause();
  let err = '';
  child.stderr!.setEncoding('utf8');
  const report = new Promise<Record<string, number>>((resolve, reject) => {
    child.stderr!.on('data', (d: string) => {
      err += d;
      const nl = err.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(err.slice(0, nl)) as Record<string, number>);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before reporting: ${err}`)));
  });
  const r = await report;
  t.ok(r['dropped']! > 0, `${r['dropped']} of ${r['written']} lines dropped and counted`);
  t.ok(r['bufferedBytes']! <= r['maxBytes']!, `${r['bufferedBytes']} bytes held (bound ${r['maxBytes']})`);
  t.ok(
    r['heapGrownBytes']! < 8 * 2 ** 20,
    `heap grew ${(r['heapGrownBytes']! / 2 ** 20).toFixed(1)} MiB for ≈ ${Math.round((r['written']! * 2_100) / 2 ** 20)} MiB logged`,
  );

  // Now read: the output drains, and says what it lost.
  const lines: string[] = [];
  let buf = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  child.stdout!.resume();
  // 'close', not 'exit': the child may exit while the last of its output is still in the pipe.
  const [code] = (await once(child, 'close')) as [number | null];
  t.equal(code, 0);
  const recovered = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'log lines dropped: stdout did not keep up');
  t.equal(recovered.length, 1, 'one line about the loss');
  t.match(recovered[0], { level: 40, droppedLines: r['dropped'], droppedTotal: r['dropped'] });
  t.equal(lines.length - 1 + r['dropped']!, r['written'], 'every line is either written or counted as dropped');
});
