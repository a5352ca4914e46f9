import fc from 'fast-check';
import t from 'tap';
import { TimerWheel } from '../../../../src/features/sponsorship/reservations/timer-wheel.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

// The wheel's contract, checked on random schedules: a timer fires at the first tick(now) with
// now ≥ its deadline — never earlier, never later, exactly once. With tick() called every
// tickMs, that is at most one tick after the deadline.

/** Multiples of 25 ms give or take 1 ms, so deadlines and tick times often meet exactly. */
function coarse(units: number): fc.Arbitrary<number> {
  return fc.tuple(fc.nat(units), fc.constantFrom(-1, 0, 1)).map(([n, d]) => Math.max(0, n * 25 + d));
}

t.test('fires exactly at the first tick at or after the deadline', async (t) => {
  fc.assert(
    fc.property(
      fc.record({
        start: fc.integer({ min: 0, max: 2 ** 40 }),
        tickMs: fc.constantFrom(1, 7, 100, 1000),
        slots: fc.constantFrom(1, 2, 8, 64),
        timers: fc.array(fc.record({ at: coarse(200), delay: coarse(800) }), { maxLength: 40 }),
        steps: fc.array(coarse(120), { minLength: 1, maxLength: 60 }),
      }),
      ({ start, tickMs, slots, timers, steps }) => {
        const clock = new ManualClock(start);
        const wheel = new TimerWheel({ clock, tickMs, slots });
        const firedAt = new Map<number, number[]>();
        let now = start;
        let previous = start;
        // Timers are scheduled at `start + at` (never before the last tick), between the ticks.
        const pending = [...timers.entries()].sort(([, a], [, b]) => a.at - b.at);
        const deadlines = new Map<number, number>();
        for (const step of steps) {
          now += step;
          for (let next = pending[0]; next !== undefined && start + next[1].at <= now; next = pending[0]) {
            pending.shift();
            const [id, { at, delay }] = next;
            clock.set(Math.max(start + at, previous));
            deadlines.set(id, clock.now() + delay);
            wheel.schedule(delay, () => firedAt.set(id, [...(firedAt.get(id) ?? []), clock.now()]));
          }
          clock.set(now);
          wheel.tick(now);
          // Checked after every tick, these two pin the firing to the first tick with now ≥ deadline.
          for (const [id, deadline] of deadlines) {
            const fired = firedAt.get(id);
            if (deadline <= now && fired?.length !== 1) return false;
            if (deadline > now && fired !== undefined) return false;
          }
          previous = now;
        }
        const due = [...deadlines.values()].filter((deadline) => deadline > now).length;
        return wheel.size === due;
      },
    ),
    { numRuns: 300 },
  );
  t.pass('300 random schedules');
});

t.test('driven every tickMs, a timer fires within one tick of its deadline', async (t) => {
  const clock = new ManualClock(1_000_500);
  const wheel = new TimerWheel({ clock, tickMs: 1000, slots: 16 });
  const delays = [0, 1, 999, 1000, 1001, 15_999, 16_000, 16_001, 300_000, 300_001];
  const late = new Map<number, number>();
  for (const delay of delays) {
    const deadline = clock.now() + delay;
    wheel.schedule(delay, () => late.set(delay, clock.now() - deadline));
  }
  // Ticks at every tick boundary, like the production interval.
  for (let time = 1_001_000; late.size < delays.length; time += 1000) {
    clock.set(time);
    wheel.tick(time);
  }
  for (const delay of delays) {
    const lateness = late.get(delay) ?? -1;
    t.ok(lateness >= 0 && lateness < 1000, `delay ${delay} fired ${lateness} ms after its deadline`);
  }
});
