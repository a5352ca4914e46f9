import t from 'tap';
import { TimerWheel } from '../../../../src/features/sponsorship/reservations/timer-wheel.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

// 8 buckets of 1 s: one revolution is 8 s, so these delays wrap the wheel many times.

t.test('delays longer than a revolution wait for their own revolution', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  const fired: number[] = [];
  // All three share bucket 3 (3 s, 3 + 8 s, 3 + 80 s).
  for (const delay of [3_000, 11_000, 83_000]) wheel.schedule(delay, () => fired.push(delay));
  for (let time = 1000; time <= 90_000; time += 1000) {
    clock.set(time);
    wheel.tick(time);
    if (time === 10_000) t.strictSame(fired, [3_000], 'passing bucket 3 again at 11 s is still one revolution short');
  }
  t.strictSame(fired, [3_000, 11_000, 83_000]);
  t.equal(wheel.size, 0);
});

t.test('a stall of many revolutions fires everything due, in deadline order', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  const fired: number[] = [];
  for (const delay of [50_000, 2_000, 17_000, 9_000, 1_000, 60_001, 60_000]) wheel.schedule(delay, () => fired.push(delay));
  clock.set(60_000);
  t.equal(wheel.tick(60_000), 6, 'one call after 60 s without ticks');
  t.strictSame(fired, [1_000, 2_000, 9_000, 17_000, 50_000, 60_000]);
  t.equal(wheel.size, 1, 'the timer 1 ms later still waits');
  clock.set(60_001);
  wheel.tick(60_001);
  t.strictSame(fired.at(-1), 60_001);
});

t.test('a 5-minute timer on the default wheel (1 s × 512 buckets)', async (t) => {
  const clock = new ManualClock(1_700_000_000_250);
  const wheel = new TimerWheel({ clock });
  let fired = 0;
  wheel.schedule(300_000, () => fired++);
  clock.advance(299_999);
  wheel.tick();
  t.equal(fired, 0, '1 ms early: not yet');
  clock.advance(1);
  wheel.tick();
  t.equal(fired, 1);
});

t.test('a deadline already in a processed tick fires at the next tick', async (t) => {
  const clock = new ManualClock(10_000);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  wheel.tick(20_000);
  let fired = 0;
  wheel.scheduleAt(12_345, () => fired++);
  t.equal(wheel.tick(20_000), 1);
  t.equal(fired, 1);
});
