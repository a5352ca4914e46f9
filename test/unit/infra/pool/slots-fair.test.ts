/**
 * The slots shared fairly across keys: one key's pile of waiting work does not delay another
 * key's next task past the work already running; the next slot goes to the key that has used the
 * least (by the cost its work claimed, corrected by what it really cost); a key cannot fill the
 * queue of all (its own bound, its own error); callers that name no key keep first come, first
 * served among themselves. Everything is driven by hand: no timers.
 */
import t from 'tap';
import { Slots } from '../../../../src/infra/pool/slots.js';

function slots(size: number, maxQueue: number, maxQueuePerKey?: number): Slots {
  return new Slots({
    size,
    maxQueue,
    ...(maxQueuePerKey === undefined ? {} : { maxQueuePerKey }),
    full: () => new Error('full'),
    keyFull: (key) => new Error(`key ${key} full`),
    refused: (label) => new Error(`refused ${label}`),
  });
}

/** The order in which waiters get their slot, recorded as each resolves. */
function recorder(): { order: string[]; wait(label: string, p: Promise<void> | undefined): void } {
  const order: string[] = [];
  return {
    order,
    wait: (label, p) =>
      void p?.then(
        () => order.push(label),
        () => order.push(`${label} refused`),
      ),
  };
}

/** Let every settled waiter's callback run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

t.test("one key's pile of waiting tasks: another key's single task gets the next slot, not the last", async (t) => {
  const s = slots(1, 16);
  const r = recorder();
  t.equal(s.acquire('a0', undefined, false, { key: 'a' }), undefined, 'key a takes the free slot');
  for (let i = 1; i <= 5; i++) r.wait(`a${i}`, s.acquire(`a${i}`, undefined, false, { key: 'a' }));
  r.wait('b1', s.acquire('b1', undefined, false, { key: 'b' }));
  t.match(s, { busy: 1, waiting: 6, waitingKeys: 2 });
  let running = 'a';
  for (let i = 0; i < 6; i++) {
    s.release(running);
    await settle();
    running = r.order.at(-1)!.slice(0, 1);
  }
  t.same(r.order, ['b1', 'a1', 'a2', 'a3', 'a4', 'a5'], "key b's task ran as soon as the running one ended");
});

t.test('two keys with piles of equal work alternate', async (t) => {
  const s = slots(1, 16);
  const r = recorder();
  s.acquire('a0', undefined, false, { key: 'a' });
  for (let i = 1; i <= 3; i++) r.wait(`a${i}`, s.acquire(`a${i}`, undefined, false, { key: 'a' }));
  for (let i = 1; i <= 3; i++) r.wait(`b${i}`, s.acquire(`b${i}`, undefined, false, { key: 'b' }));
  let running = 'a';
  for (let i = 0; i < 6; i++) {
    s.release(running);
    await settle();
    running = r.order.at(-1)!.slice(0, 1);
  }
  t.same(r.order, ['b1', 'a1', 'b2', 'a2', 'b3', 'a3']);
});

t.test('by cost: a key whose tasks cost ten times more gets a tenth of the turns', async (t) => {
  const s = slots(1, 64);
  const r = recorder();
  s.acquire('slow0', undefined, false, { key: 'slow', cost: 10 });
  for (let i = 1; i <= 3; i++) r.wait(`slow${i}`, s.acquire(`slow${i}`, undefined, false, { key: 'slow', cost: 10 }));
  for (let i = 1; i <= 20; i++) r.wait(`fast${i}`, s.acquire(`fast${i}`, undefined, false, { key: 'fast', cost: 1 }));
  let running = 'slow';
  for (let i = 0; i < 23; i++) {
    s.release(running);
    await settle();
    running = r.order.at(-1)!.replace(/\d+$/, '');
  }
  const firstSlow = r.order.indexOf('slow1');
  t.ok(firstSlow >= 9 && firstSlow <= 11, `about ten fast tasks ran before the next slow one (${firstSlow})`);
  t.equal(r.order.filter((x) => x.startsWith('slow')).length, 3, 'and the slow key was not starved');
});

t.test('what work really cost is charged to its key: a claim that ran long costs its key its next turns', async (t) => {
  const s = slots(1, 16);
  const r = recorder();
  s.acquire('a0', undefined, false, { key: 'a', cost: 1 });
  r.wait('a1', s.acquire('a1', undefined, false, { key: 'a', cost: 1 }));
  for (let i = 1; i <= 4; i++) r.wait(`b${i}`, s.acquire(`b${i}`, undefined, false, { key: 'b', cost: 1 }));
  // a0 claimed 1 and took 5: key a is 4 behind, so b runs until it has used as much.
  s.release('a', 4);
  await settle();
  for (let i = 0; i < 4; i++) {
    s.release(r.order.at(-1)!.slice(0, 1));
    await settle();
  }
  t.same(r.order, ['b1', 'b2', 'b3', 'b4', 'a1']);
});

t.test('a key that becomes busy starts level with the others: no credit banked while idle', async (t) => {
  const s = slots(1, 16);
  const r = recorder();
  // Key a works alone for a while.
  for (let i = 0; i < 5; i++) {
    t.equal(s.acquire(`a${i}`, undefined, false, { key: 'a' }), undefined);
    s.release('a');
  }
  s.acquire('a5', undefined, false, { key: 'a' });
  r.wait('a6', s.acquire('a6', undefined, false, { key: 'a' }));
  r.wait('a7', s.acquire('a7', undefined, false, { key: 'a' }));
  r.wait('c1', s.acquire('c1', undefined, false, { key: 'c' }));
  r.wait('c2', s.acquire('c2', undefined, false, { key: 'c' }));
  r.wait('c3', s.acquire('c3', undefined, false, { key: 'c' }));
  let running = 'a';
  for (let i = 0; i < 5; i++) {
    s.release(running);
    await settle();
    running = r.order.at(-1)!.slice(0, 1);
  }
  t.same(r.order, ['c1', 'a6', 'c2', 'a7', 'c3'], 'the newcomer goes next, then they alternate: key a did not owe five turns');
  t.equal(s.of('a').running + s.of('c').running, 1);
});

t.test('callers that name no key share one: first come, first served among them', async (t) => {
  const s = slots(2, 8);
  const r = recorder();
  s.acquire('x');
  s.acquire('y');
  for (const l of ['p', 'q', 'r']) r.wait(l, s.acquire(l));
  s.release();
  s.release();
  s.release();
  await settle();
  t.same(r.order, ['p', 'q', 'r']);
  t.match(s, { busy: 2, waiting: 0 });
});

t.test("a key's own bound: its waiters beyond it are refused with its error, other keys still wait; the whole queue's bound stays", async (t) => {
  const s = slots(1, 5, 2);
  s.acquire('a0', undefined, false, { key: 'a' });
  const waits = [s.acquire('a1', undefined, false, { key: 'a' }), s.acquire('a2', undefined, false, { key: 'a' })];
  t.throws(() => s.acquire('a3', undefined, false, { key: 'a' }), /key a full/, 'a third waiter of key a: refused with the key error');
  t.equal(s.refusal('a')?.message, 'key a full', 'and said so before it asks');
  t.equal(s.refusal('b'), undefined, 'key b would still be taken');
  waits.push(s.acquire('b1', undefined, false, { key: 'b' }), s.acquire('b2', undefined, false, { key: 'b' }));
  waits.push(s.acquire('n1'));
  t.throws(() => s.acquire('c1', undefined, false, { key: 'c' }), /^full$/, 'the whole queue full: the plain error');
  t.throws(() => s.acquire('n2'), /^full$/);
  t.match(s, { waiting: 5, waitingKeys: 3 });
  s.drain();
  await Promise.allSettled(waits);
  t.match(s, { waiting: 0, waitingKeys: 0 });
});

t.test('a key whose only waiter leaves is forgotten; a slot released with no one waiting is free', async (t) => {
  const s = slots(1, 4);
  s.acquire('a0', undefined, false, { key: 'a' });
  const ac = new AbortController();
  const b = s.acquire('b1', ac.signal, false, { key: 'b' });
  ac.abort(new Error('left'));
  await t.rejects(b!, /left/);
  t.same(s.of('b'), { waiting: 0, running: 0 });
  t.equal(s.waitingKeys, 0);
  s.release('a');
  t.match(s, { busy: 0, waiting: 0 });
  t.same(s.of('a'), { waiting: 0, running: 0 });
});
