import t from 'tap';
import { TimerWheel } from '../../../../src/features/sponsorship/reservations/timer-wheel.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

t.test('a cancelled timer never fires', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  const fired: string[] = [];
  const a = wheel.schedule(5_000, () => fired.push('a'));
  const b = wheel.schedule(5_000, () => fired.push('b'));
  const c = wheel.schedule(5_000, () => fired.push('c'));
  t.equal(wheel.size, 3);
  t.ok(wheel.cancel(b), 'the middle of a bucket');
  t.ok(wheel.cancel(a), 'its head');
  t.equal(wheel.size, 1);
  t.notOk(wheel.cancel(a), 'twice is a no-op');
  t.notOk(a.pending);
  t.ok(c.pending);
  clock.set(5_000);
  wheel.tick();
  t.strictSame(fired, ['c']);
  t.notOk(c.pending);
  t.notOk(wheel.cancel(c), 'a fired timer cannot be cancelled');
  t.equal(wheel.size, 0);
});

t.test('a callback may cancel a timer due in the same tick', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  const fired: string[] = [];
  const handles = { second: wheel.schedule(2_000, () => fired.push('never')) };
  wheel.schedule(1_000, () => {
    fired.push('first');
    t.ok(wheel.cancel(handles.second));
  });
  clock.set(3_000);
  t.equal(wheel.tick(), 1);
  t.strictSame(fired, ['first']);
  t.equal(wheel.size, 0);
});

t.test('handles of another wheel, or made up, are refused', async (t) => {
  const clock = new ManualClock(0);
  const one = new TimerWheel({ clock });
  const other = new TimerWheel({ clock });
  const handle = one.schedule(1_000, () => undefined);
  t.notOk(other.cancel(handle));
  t.notOk(one.cancel({ deadline: 1_000, pending: true }));
  t.ok(handle.pending);
});

t.test('insert and cancel do not depend on how many timers a bucket holds', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 1 });
  const handles = Array.from({ length: 10_000 }, (_, i) => wheel.schedule(i, () => undefined));
  // Cancel from both ends and the middle: each unlink touches only the neighbours.
  for (const handle of [handles[0], handles[9_999], handles[5_000]]) t.ok(handle !== undefined && wheel.cancel(handle));
  t.equal(wheel.size, 9_997);
  clock.set(10_000);
  t.equal(wheel.tick(), 9_997);
});

t.test('rejects options and delays it cannot honour', async (t) => {
  const clock = new ManualClock(0);
  t.throws(() => new TimerWheel({ clock, slots: 12 }), new RangeError('slots must be a power of two from 1 to 2^30, got 12'));
  t.throws(() => new TimerWheel({ clock, tickMs: 0 }), new RangeError('tickMs must be a positive number, got 0'));
  const wheel = new TimerWheel({ clock });
  t.throws(() => wheel.schedule(-1, () => undefined), new RangeError('delayMs must be a non-negative number, got -1'));
  t.throws(() => wheel.schedule(Number.NaN, () => undefined), new RangeError('delayMs must be a non-negative number, got NaN'));
  t.throws(() => wheel.scheduleAt(Number.POSITIVE_INFINITY, () => undefined), new RangeError('deadline must be a finite number, got Infinity'));
});
