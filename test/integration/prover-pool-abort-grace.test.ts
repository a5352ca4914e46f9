/**
 * A caller that leaves while its task runs: the task gets `abortGraceMs` to finish (thread kept,
 * result discarded), and only past it is the thread ended. The grace timer is fired by hand.
 */
import { once } from 'node:events';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import type { GraceTimers } from '../../src/infra/pool/pool-types.js';
import { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { withProve } from '../fixtures/prover/pool-modules.js';
import { isGatewayError } from '../../src/core/errors.js';
import { preimageAt, proveBody } from '../fixtures/prover/samples.js';
import { hanging as started } from '../fixtures/prover/hang-signal.js';

const workerEntry = new URL('../fixtures/prover/worker-entry.ts', import.meta.url);
const ARGS = { backend: 'dev' as const, keyDir: '', era: 9 as const };

/** Timers that fire only when the test says so. */
class HandTimers implements GraceTimers {
  readonly pending = new Map<number, () => void>();
  #next = 0;
  set(fn: () => void): unknown {
    this.pending.set(++this.#next, fn);
    return this.#next;
  }
  clear(h: unknown): void {
    this.pending.delete(h as number);
  }
  fireAll(): void {
    const fns = [...this.pending.values()];
    this.pending.clear();
    for (const f of fns) f();
  }
}

async function poolWith(t: Test, abortGraceMs: number, timers?: GraceTimers): Promise<WorkerPool> {
  const pool = new WorkerPool({
    threads: 1,
    maxQueue: 1,
    logger: pino({ level: 'silent' }),
    ...withProve(workerEntry),
    abortGraceMs,
    ...(timers ? { timers } : {}),
  });
  t.teardown(() => pool.close());
  // A first task: the thread is up and has loaded everything.
  await pool.run('prove', { args: ARGS, data: proveBody(undefined, 1n) });
  return pool;
}

const codeOf = (e: unknown): string | undefined => (isGatewayError(e) ? e.code : undefined);

t.test('a task that ends within the grace period keeps its thread; its result is discarded', async (t) => {
  const timers = new HandTimers();
  const pool = await poolWith(t, 60_000, timers);
  const thread = pool.threads[0]!;
  let exited = false;
  thread.once('exit', () => (exited = true));
  const client = new AbortController();
  const running = started(thread);
  const result = pool.run('prove', { args: ARGS, data: proveBody(preimageAt('test/slow'), 2n) }, { signal: client.signal }).then(
    () => 'answered',
    (e: unknown) => codeOf(e),
  );
  await running;
  client.abort();
  t.equal(timers.pending.size, 1, 'the grace period started');
  t.equal(await result, 'CLIENT_ABORTED', 'the caller gets CLIENT_ABORTED, not the result');
  t.equal(timers.pending.size, 0, 'and the grace timer was cleared when the task ended');
  t.equal(pool.threads[0], thread, 'the same thread');
  t.equal(exited, false, 'never ended');
  t.same(pool.health().abandoned, { finished: 1, cutShort: 0 });
  t.equal(pool.health().threadsEnded, 0);
  const next = await pool.run('prove', { args: ARGS, data: proveBody(undefined, 3n) });
  t.ok(next.byteLength > 0, 'and it serves the next task');
});

t.test('a task still running when the grace period ends has its thread ended and replaced', async (t) => {
  const timers = new HandTimers();
  const pool = await poolWith(t, 60_000, timers);
  const thread = pool.threads[0]!;
  const ended = once(thread, 'exit');
  const client = new AbortController();
  const running = started(thread);
  let settled = false;
  const result = pool
    .run('prove', { args: ARGS, data: proveBody(preimageAt('test/hang'), 4n) }, { signal: client.signal })
    .then(
      () => 'answered',
      (e: unknown) => codeOf(e),
    )
    .finally(() => (settled = true));
  await running;
  client.abort();
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(settled, false, 'within the grace period the caller still waits for the task (its slot stays taken)');
  t.equal(pool.threads[0], thread, 'and the thread is untouched');
  timers.fireAll();
  t.equal(await result, 'CLIENT_ABORTED');
  await ended;
  t.same(pool.health().abandoned, { finished: 0, cutShort: 1 });
  t.equal(pool.health().threadsEnded, 1, 'one thread ended');
  const next = await pool.run('prove', { args: ARGS, data: proveBody(undefined, 5n) });
  t.ok(next.byteLength > 0, 'a fresh thread serves the next task');
  t.not(pool.threads[0]!.threadId, thread.threadId);
});

t.test('abortGraceMs 0: the thread of a running task is ended at once', async (t) => {
  const pool = await poolWith(t, 0);
  const thread = pool.threads[0]!;
  const ended = once(thread, 'exit');
  const client = new AbortController();
  const running = started(thread);
  const result = pool.run('prove', { args: ARGS, data: proveBody(preimageAt('test/hang'), 6n) }, { signal: client.signal }).then(
    () => 'answered',
    (e: unknown) => codeOf(e),
  );
  await running;
  client.abort();
  t.equal(await result, 'CLIENT_ABORTED');
  await ended;
  t.same(pool.health().abandoned, { finished: 0, cutShort: 1 });
  t.equal(pool.health().threadsEnded, 1);
});

t.test('a caller that left before the task was handed to a thread: never started', async (t) => {
  const pool = await poolWith(t, 60_000, new HandTimers());
  const client = new AbortController();
  client.abort();
  const code = await pool.run('prove', { args: ARGS, data: proveBody(undefined, 7n) }, { signal: client.signal }).then(
    () => 'answered',
    (e: unknown) => codeOf(e),
  );
  t.equal(code, 'CLIENT_ABORTED');
  t.same(pool.health().abandoned, { finished: 0, cutShort: 0 });
  t.equal(pool.health().threadsEnded, 0);
  t.equal(pool.health().completed, 1, 'only the warm-up task ran');
});
