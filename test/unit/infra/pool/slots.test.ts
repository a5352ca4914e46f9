import t from 'tap';
import { Slots } from '../../../../src/infra/pool/slots.js';

function slots(size: number, maxQueue: number): Slots {
  return new Slots({ size, maxQueue, full: () => new Error('full'), refused: (label) => new Error(`refused ${label}`) });
}

/** Settlement order of the given waits, recorded as they settle. */
function track(waits: Record<string, Promise<void> | undefined>): { order: string[]; all: Promise<void> } {
  const order: string[] = [];
  const all = Promise.all(
    Object.entries(waits).map(([name, p]) =>
      p?.then(
        () => void order.push(`${name} ok`),
        (e: Error) => void order.push(`${name} ${e.message}`),
      ),
    ),
  ).then(() => undefined);
  return { order, all };
}

t.test('a free slot is taken at once; the rest wait in FIFO order and get a slot as one is released', async (t) => {
  const s = slots(2, 3);
  t.equal(s.acquire('a'), undefined, 'free: no waiting');
  t.equal(s.acquire('b'), undefined);
  const c = s.acquire('c');
  const d = s.acquire('d');
  t.ok(c && d, 'both slots busy: wait');
  t.match(s, { busy: 2, waiting: 2 });
  let dHasSlot = false;
  void d!.then(() => (dHasSlot = true));
  s.release();
  await c;
  t.equal(dHasSlot, false, 'the first waiter got the released slot, the second still waits');
  t.equal(s.waiting, 1);
  s.release();
  await d;
  t.match(s, { busy: 2, waiting: 0 }, 'the slots passed on, none freed');
  s.release();
  s.release();
  t.equal(s.busy, 0);
});

t.test('a full queue throws at once', async (t) => {
  const s = slots(1, 1);
  s.acquire('a');
  const b = s.acquire('b');
  t.throws(() => s.acquire('c'), /full/);
  t.equal(s.waiting, 1);
  s.release();
  await b;
});

t.test('no queue at all (maxQueue 0): busy means full', (t) => {
  const s = slots(1, 0);
  s.acquire('a');
  t.throws(() => s.acquire('b'), /full/);
  t.end();
});

t.test('a waiter whose signal aborts leaves the queue at once with the reason; its place is not kept', async (t) => {
  const s = slots(1, 2);
  s.acquire('a');
  const ac = new AbortController();
  const b = s.acquire('b', ac.signal);
  const c = s.acquire('c');
  ac.abort(new Error('client left'));
  await t.rejects(b!, /client left/);
  t.equal(s.waiting, 1);
  s.release();
  await c;
  t.match(s, { busy: 1, waiting: 0 }, 'the slot went to the next waiter');
  const gone = new AbortController();
  gone.abort(new Error('already gone'));
  t.throws(() => s.acquire('d', gone.signal), /already gone/, 'an aborted signal is refused before queueing');
});

t.test('drain refuses every waiter now and every later caller; the slots held are untouched', async (t) => {
  const s = slots(2, 4);
  s.acquire('a');
  s.acquire('b');
  const { order, all } = track({ c: s.acquire('c'), d: s.acquire('d') });
  t.equal(s.drain(), 2, 'two refused');
  await all;
  t.same(order, ['c refused c', 'd refused d'], 'each refused with its label, in order');
  t.match(s, { busy: 2, waiting: 0, draining: true });
  t.throws(() => s.acquire('e'), /refused e/, 'a new caller is refused at once, even with a slot about to be free');
  s.release();
  t.throws(() => s.acquire('f'), /refused f/, 'and with a slot free');
  t.equal(s.busy, 1);
});

t.test('drain keeps the exempt (work already started): they wait, then get their slot', async (t) => {
  const s = slots(1, 4);
  s.acquire('a');
  const plain = s.acquire('plain');
  const step = s.acquire('step', undefined, true);
  let stepHasSlot = false;
  void step!.then(() => (stepHasSlot = true));
  t.equal(s.drain(), 1);
  await t.rejects(plain!, /refused plain/, 'the plain waiter is refused');
  t.equal(stepHasSlot, false, 'the exempt one still waits');
  t.equal(s.waiting, 1);
  const later = s.acquire('later step', undefined, true);
  t.ok(later, 'an exempt caller may still queue after drain');
  s.release();
  await step;
  s.release();
  await later;
  t.match(s, { busy: 1, waiting: 0 });
});
