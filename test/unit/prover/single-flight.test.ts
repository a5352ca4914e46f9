import t from 'tap';
import { SingleFlight } from '../../../src/prover/single-flight.js';

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
  const a = f.run('k', new AbortController().signal, compute);
  const b = f.run('k', new AbortController().signal, compute);
  const c = f.run('other', new AbortController().signal, async () => 'x');
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
  const a = f.run('k', first.signal, compute);
  const b = f.run('k', second.signal, compute);
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
  const a = f.run('k', new AbortController().signal, async () => {
    throw new Error('boom');
  });
  const b = f.run('k', new AbortController().signal, async () => 'unused');
  await t.rejects(a.result, { message: 'boom' });
  await t.rejects(b.result, { message: 'boom' });
  t.equal(await f.run('k', new AbortController().signal, async () => 'fresh').result, 'fresh');
});
