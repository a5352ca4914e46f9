import t from 'tap';
import { SingleFlight } from '../../../src/core/single-flight.js';

function gate<T>(): { promise: Promise<T>; open(v: T): void } {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => (open = r));
  return { promise, open };
}

t.test('callers of the same key share one computation; another key gets its own', async (t) => {
  const f = new SingleFlight<string>();
  const g = gate<string>();
  let computations = 0;
  const compute = async (): Promise<string> => {
    computations++;
    return g.promise;
  };
  const a = f.run('k', compute, new AbortController().signal);
  const b = f.run('k', compute, new AbortController().signal);
  const c = f.run('other', async () => 'x', new AbortController().signal);
  t.same([a.shared, b.shared, c.shared], [false, true, false]);
  g.open('proof');
  t.same(await Promise.all([a.result, b.result, c.result]), ['proof', 'proof', 'x']);
  t.equal(computations, 1);
  t.equal(f.size, 0, 'done flights are forgotten');
});

t.test('one caller leaving does not cancel the others; the last one leaving aborts the computation', async (t) => {
  const f = new SingleFlight<string>();
  let computeSignal: AbortSignal | undefined;
  const g = gate<string>();
  const compute = async (s: AbortSignal): Promise<string> => {
    computeSignal = s;
    return g.promise;
  };
  const first = new AbortController();
  const second = new AbortController();
  const a = f.run('k', compute, first.signal);
  const b = f.run('k', compute, second.signal);
  await Promise.resolve();
  first.abort(new Error('first left'));
  await t.rejects(a.result, { message: 'first left' });
  t.equal(computeSignal?.aborted, false, 'still computing for the second');
  second.abort(new Error('second left'));
  await t.rejects(b.result, { message: 'second left' });
  t.equal(computeSignal?.aborted, true, 'nobody waits: the computation is told to stop');
  g.open('late');
});

t.test('a failure reaches every waiter and is not remembered', async (t) => {
  const f = new SingleFlight<string>();
  const a = f.run(
    'k',
    async () => {
      throw new Error('boom');
    },
    new AbortController().signal,
  );
  const b = f.run('k', async () => 'unused', new AbortController().signal);
  await t.rejects(a.result, { message: 'boom' });
  await t.rejects(b.result, { message: 'boom' });
  t.equal(await f.run('k', async () => 'fresh', new AbortController().signal).result, 'fresh');
});

t.test('a caller without a signal keeps the flight alive when others leave', async (t) => {
  const f = new SingleFlight<string>();
  let aborted = false;
  let finish!: (v: string) => void;
  const leaving = new AbortController();
  const a = f.run('k', (s) => {
    s.addEventListener('abort', () => (aborted = true));
    return new Promise<string>((r) => (finish = r));
  });
  const b = f.run('k', async () => 'unused', leaving.signal);
  leaving.abort(new Error('gone'));
  await t.rejects(b.result, { message: 'gone' });
  t.equal(aborted, false, 'the signal-less caller is still waiting');
  finish('done');
  t.equal(await a.result, 'done');
});

t.test('abortAll aborts every computation in flight', async (t) => {
  const f = new SingleFlight<string>();
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const a = f.run('k', (s) => {
    started();
    return new Promise<string>((_, reject) => s.addEventListener('abort', () => reject(s.reason)));
  });
  await running;
  f.abortAll(new Error('shutdown'));
  await t.rejects(a.result, { message: 'shutdown' });
});

t.test('a caller arriving after everyone left, before the aborted computation ended, gets a new one', async (t) => {
  const f = new SingleFlight<string>();
  const signals: AbortSignal[] = [];
  const stopped = gate<string>();
  const fresh = gate<string>();
  // The first computation ignores its abort for a while, as a stream still closing its socket does.
  const computes = [async (s: AbortSignal) => (signals.push(s), stopped.promise), async (s: AbortSignal) => (signals.push(s), fresh.promise)];
  let n = 0;
  const compute = (s: AbortSignal): Promise<string> => computes[n++]!(s);
  const leaving = new AbortController();
  const a = f.run('k', compute, leaving.signal);
  await Promise.resolve();
  leaving.abort(new Error('left'));
  await t.rejects(a.result, { message: 'left' });
  t.equal(signals[0]?.aborted, true, 'told to stop');

  const b = f.run('k', compute, new AbortController().signal);
  t.equal(b.shared, false, 'not joined to the aborted flight');
  fresh.open('answer');
  t.equal(await b.result, 'answer');
  stopped.open('too late');
  await Promise.resolve();
  t.equal(n, 2);
  const c = f.run('k', async () => 'third', new AbortController().signal);
  t.equal(c.shared, false, 'the old flight ending did not leave a stale entry');
  t.equal(await c.result, 'third');
  t.equal(f.size, 0);
});
