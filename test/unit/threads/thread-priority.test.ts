import t from 'tap';
import { getPriority } from 'node:os';
import { lowerThreadPriority, type PriorityResult } from '../../../packages/threads/src/thread-priority.js';
import { startModuleWorker } from '../../../packages/threads/src/worker-thread.js';

interface Seen {
  before: number;
  result: PriorityResult;
  after: number;
}

async function inWorker(nice: number): Promise<Seen> {
  const worker = startModuleWorker(new URL('../../fixtures/threads/lower-priority', import.meta.url), import.meta.url, { workerData: nice });
  const seen = await new Promise<Seen>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  return seen;
}

t.test('lowers the calling thread only', { skip: process.platform === 'linux' ? false : 'per-thread nice is Linux only' }, async (t) => {
  const main = getPriority();
  const target = Math.max(main, 7);
  const seen = await inWorker(target);
  t.equal(seen.before, main, 'a new thread starts at the process priority');
  t.same(seen.result, { applied: true, nice: target });
  t.equal(seen.after, target, 'the worker thread runs at the lower priority');
  t.equal(getPriority(), main, 'the main thread is untouched');
  const lower = await inWorker(0);
  t.same(lower.result, { applied: true, nice: main }, 'asking for a higher priority than the process has changes nothing');
});

t.test('refuses values outside 0–19 without touching anything', async (t) => {
  t.same(lowerThreadPriority(20), { applied: false, reason: 'nice must be an integer from 0 to 19, got 20' });
  t.same(lowerThreadPriority(-1), { applied: false, reason: 'nice must be an integer from 0 to 19, got -1' });
  t.same(lowerThreadPriority(1.5), { applied: false, reason: 'nice must be an integer from 0 to 19, got 1.5' });
});
