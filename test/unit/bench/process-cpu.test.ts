import { Worker } from 'node:worker_threads';
import t from 'tap';
import { backgroundCpuMicros, cpuMicros, processCpuMicros } from '../../../bench/lib/processes.js';

// A worker thread that does a fixed amount of work (not a wall-clock span: a loaded machine would
// deschedule it), then exits. While it works the main thread only waits, so the CPU time it adds is
// the "background" of this process: about 0.5 s of CPU on the 2-core test host.
const SPIN = `
const { workerData } = require('node:worker_threads');
let x = 0;
for (let i = 0; i < workerData; i++) x += Math.sqrt(i) % 7;
if (x < 0) console.log(x);
`;

t.test('process CPU: every thread counts in the process, only the main thread in cpuMicros', async (t) => {
  const pid = process.pid;
  const main0 = cpuMicros(pid);
  const all0 = processCpuMicros(pid);
  const bg0 = backgroundCpuMicros(pid);
  t.ok(main0 !== undefined && all0 !== undefined && bg0 !== undefined, 'readable for this process');
  t.ok((all0 ?? 0) >= (main0 ?? 0), 'the process has spent at least what its main thread has');

  const worker = new Worker(SPIN, { eval: true, workerData: 50_000_000 });
  await new Promise<void>((resolve, reject) => {
    worker.once('exit', () => resolve());
    worker.once('error', reject);
  });

  const bg1 = backgroundCpuMicros(pid) ?? 0;
  const main1 = cpuMicros(pid) ?? 0;
  // The work is ≈ 500 ms of one thread's CPU whatever the load; the bound leaves 5× for a faster host.
  t.ok(bg1 - (bg0 ?? 0) >= 100_000, `the worker's spin is background time (${bg1 - (bg0 ?? 0)} µs)`);
  t.ok(main1 - (main0 ?? 0) < bg1 - (bg0 ?? 0), 'and not main-thread time');
});

t.test('process CPU: a process that does not exist reads as undefined', async (t) => {
  // Above /proc/sys/kernel/pid_max's ceiling (4 194 304), so never a live pid.
  const gone = 4_194_305;
  t.equal(cpuMicros(gone), undefined);
  t.equal(processCpuMicros(gone), undefined);
  t.equal(backgroundCpuMicros(gone), undefined);
});
