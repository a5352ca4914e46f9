import t from 'tap';
import { TimerWheel } from '../../../../src/features/sponsorship/reservations/timer-wheel.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

t.test('fire order: by tick, then first scheduled first', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 4 });
  const fired: string[] = [];
  const at = (deadline: number, name: string) => wheel.scheduleAt(deadline, () => fired.push(name));
  at(2_500, 'c1');
  at(1_900, 'b1');
  at(2_100, 'c2');
  at(1_100, 'b2');
  at(500, 'a');
  at(6_500, 'next revolution, same bucket as c');
  clock.set(3_000);
  t.equal(wheel.tick(), 5);
  t.strictSame(fired, ['a', 'b1', 'b2', 'c1', 'c2']);
});

t.test('many timers in one bucket, across revolutions, fire in their own revolution', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 10, slots: 2 });
  const fired: number[] = [];
  // Every deadline lands in bucket 0: ticks 0, 2, 4, … (20 ms per revolution).
  for (let i = 999; i >= 0; i--) wheel.scheduleAt(i * 20, () => fired.push(i));
  for (let time = 0; time < 20_000; time += 10) {
    clock.set(time);
    const expected = time % 20 === 0 ? 1 : 0;
    if (wheel.tick() !== expected) t.fail(`tick at ${time} did not fire exactly ${expected}`);
  }
  t.strictSame(
    fired,
    Array.from({ length: 1000 }, (_, i) => i),
  );
});

t.test('a timer scheduled by a callback waits for a later tick', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  const fired: string[] = [];
  wheel.schedule(1_000, () => {
    fired.push('outer');
    wheel.schedule(0, () => fired.push('inner'));
  });
  clock.set(1_000);
  t.equal(wheel.tick(), 1);
  t.strictSame(fired, ['outer']);
  t.equal(wheel.tick(), 1, 'already due, so the next tick fires it');
  t.strictSame(fired, ['outer', 'inner']);
});

t.test('a throwing callback does not stop the others; its error surfaces after them', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  const fired: string[] = [];
  wheel.schedule(1_000, () => {
    throw new Error('first failure');
  });
  wheel.schedule(1_000, () => fired.push('after'));
  wheel.schedule(1_000, () => {
    throw new Error('second failure');
  });
  clock.set(1_000);
  t.throws(() => wheel.tick(), new Error('first failure'));
  t.strictSame(fired, ['after']);
  t.equal(wheel.size, 0);
  t.equal(wheel.tick(), 0, 'the wheel keeps working');
});

t.test('tick from inside a callback is refused', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  wheel.schedule(0, () => wheel.tick());
  t.throws(() => wheel.tick(), new Error('TimerWheel.tick called from a timer callback'));
});
