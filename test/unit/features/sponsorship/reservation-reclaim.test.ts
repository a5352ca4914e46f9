import fc from 'fast-check';
import t from 'tap';
import { ReservationReclaimer } from '../../../../src/features/sponsorship/reservations/reservations.js';
import { TimerWheel } from '../../../../src/features/sponsorship/reservations/timer-wheel.js';
import type { Reservation } from '../../../../src/features/sponsorship/allocator/allocator.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { tableWith } from '../../../fixtures/dust/table.js';

const TTL = 300_000;
const TICK = 1000;

t.test('never reclaimed before 300 s, always by 300 s + one tick; settled ones never', async (t) => {
  fc.assert(
    fc.property(
      fc.record({
        start: fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }),
        // When each reservation is made, ms after the start, and what becomes of it.
        plans: fc.array(
          fc.record({
            at: fc.nat(400_000),
            fate: fc.constantFrom('expire', 'release', 'spend', 'chain-spend'),
            settleAfter: fc.nat(TTL - 1),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        // Extra ticks between the regular ones, as a late or early interval might add.
        jitter: fc.array(fc.nat(TICK - 1), { maxLength: 3 }),
      }),
      ({ start, plans, jitter }) => {
        const clock = new ManualClock(start);
        const table = tableWith(plans.map(() => 100n));
        const wheel = new TimerWheel({ clock, tickMs: TICK });
        const reclaimer = new ReservationReclaimer(table, wheel, { reservationTtlMs: TTL });
        const made: { plan: (typeof plans)[number]; reservation: Reservation; at: number; settled: boolean }[] = [];
        const end = start + 400_000 + TTL + 2 * TICK;
        for (let base = start; base <= end; base += TICK) {
          for (const now of [base, ...jitter.map((offset) => base + offset).sort((a, b) => a - b)]) {
            clock.set(now);
            for (const plan of plans) {
              if (start + plan.at <= now && !made.some((m) => m.plan === plan)) {
                const reservation = table.reserve(1n, now + TTL);
                if (reservation === null || !reclaimer.track(reservation, now)) return false;
                made.push({ plan, reservation, at: now, settled: false });
              }
            }
            for (const entry of made) {
              const { plan, reservation, at } = entry;
              if (entry.settled || plan.fate === 'expire' || now < at + plan.settleAfter) continue;
              entry.settled = true;
              if (plan.fate === 'release' && !reclaimer.settle(reservation, 'released')) return false;
              if (plan.fate === 'spend' && !reclaimer.settle(reservation, 'spent')) return false;
              if (plan.fate === 'chain-spend' && !reclaimer.markSpent(reservation.slot)) return false;
            }
            wheel.tick(now);
            // A released or reclaimed UTXO may be reserved again by a later plan: what is
            // checked is whether each reservation still holds it, and that spent stays spent.
            for (const { plan, reservation, at, settled } of made) {
              const live = table.isLive(reservation);
              if (settled) {
                if (live) return false;
                if (plan.fate !== 'release' && table.slotEntry(reservation.slot)?.state !== 'spent') return false;
              } else if (now < at + TTL) {
                if (!live) return false;
              } else if (now >= at + TTL + TICK && live) {
                return false;
              }
            }
          }
        }
        // Every timer is gone: fired, or cancelled when its reservation settled.
        return wheel.size === 0 && reclaimer.tracked === 0;
      },
    ),
    { numRuns: 60 },
  );
  t.pass('60 random schedules');
});

t.test('a release before the deadline cancels the reclaim timer', async (t) => {
  const clock = new ManualClock(0);
  const table = tableWith([100n]);
  const wheel = new TimerWheel({ clock, tickMs: TICK });
  const reclaimer = new ReservationReclaimer(table, wheel);
  t.equal(reclaimer.reservationTtlMs, 300_000, 'five minutes by default');
  const first = table.reserve(1n, TTL);
  if (first === null) throw new Error('100 covers 1');
  t.ok(reclaimer.track(first));
  t.equal(wheel.size, 1);
  clock.set(10_000);
  t.ok(reclaimer.settle(first, 'released'));
  t.equal(wheel.size, 0, 'no timer left behind');
  const second = table.reserve(1n, 10_000 + TTL);
  if (second === null) throw new Error('released, so free again');
  t.ok(reclaimer.track(second));
  clock.set(TTL);
  wheel.tick();
  t.ok(table.isLive(second), 'the first reservation’s deadline does not reclaim the second');
  clock.set(10_000 + TTL);
  wheel.tick();
  t.notOk(table.isLive(second));
  t.notOk(reclaimer.settle(second, 'released'), 'a release after the reclaim is refused');
});

t.test('a reservation reported after it ended is not tracked', async (t) => {
  const clock = new ManualClock(0);
  const table = tableWith([100n]);
  const wheel = new TimerWheel({ clock, tickMs: TICK });
  const reclaimer = new ReservationReclaimer(table, wheel);
  const reservation = table.reserve(1n, TTL);
  if (reservation === null) throw new Error('100 covers 1');
  t.ok(table.release(reservation), 'the worker released it before the main thread heard of it');
  t.notOk(reclaimer.track(reservation));
  t.equal(wheel.size, 0);
  const again = table.reserve(1n, TTL);
  if (again === null) throw new Error('free again');
  t.ok(reclaimer.track(again));
  t.ok(reclaimer.track(again), 'tracking twice keeps one timer');
  t.equal(wheel.size, 1);
});

t.test('a reservation tracked late is reclaimed late, never early', async (t) => {
  const clock = new ManualClock(50_000);
  const table = tableWith([100n]);
  const wheel = new TimerWheel({ clock, tickMs: TICK });
  const reclaimer = new ReservationReclaimer(table, wheel);
  const reservation = table.reserve(1n, 10_000 + TTL);
  if (reservation === null) throw new Error('100 covers 1');
  reclaimer.track(reservation);
  clock.set(50_000 + TTL - 1);
  wheel.tick();
  t.ok(table.isLive(reservation), 'the TTL counts from when the main thread heard of it');
  clock.set(50_000 + TTL);
  wheel.tick();
  t.notOk(table.isLive(reservation));
});
