import t from 'tap';
import { TimerWheel, startTimerWheel } from '../../../../src/features/sponsorship/reservations/timer-wheel.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const timeouts = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

t.test('the driver ticks the wheel from an unref’d interval, and stops', async (t) => {
  const clock = new ManualClock(0);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 8 });
  const before = timeouts();
  // The clock already says the timer is due: the interval's first tick fires it.
  const fired = new Promise<number>((resolve) => wheel.scheduleAt(0, resolve, 42));
  const driver = startTimerWheel(wheel, 1);
  t.equal(timeouts(), before, 'the interval does not keep the process alive');
  t.equal(await fired, 42);
  driver.stop();
  t.equal(wheel.size, 0);
});

t.test('rejects an interval it cannot run', async (t) => {
  const wheel = new TimerWheel({ clock: new ManualClock(0) });
  t.throws(() => startTimerWheel(wheel, 0), new RangeError('intervalMs must be a positive number, got 0'));
});
