/**
 * An answered reservation whose fee intent expired unlanded is released at the fee intent's TTL
 * plus the margin, not at the 5-minute reclaim — and only once the chain the sync follows is past
 * that TTL; one whose transaction landed (the sync marked it SPENT) is never released nor
 * refunded; each reports how it ended exactly once. Injected clock, ticked wheel, no sleeps.
 */
import t from 'tap';
import fc from 'fast-check';
import { ReservationReclaimer, type ReservationOutcome } from '../../../../src/features/sponsorship/reservations/reservations.js';
import { TimerWheel } from '../../../../src/features/sponsorship/reservations/timer-wheel.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { tableWith } from '../../../fixtures/dust/table.js';

const TTL = 300_000;
const MARGIN = 10_000;
const T0 = 1_700_000_000_000;

function setup(chainTime: { t: number }) {
  const clock = new ManualClock(T0);
  const table = tableWith([100n, 100n]);
  const wheel = new TimerWheel({ clock, tickMs: 1000 });
  const reclaimer = new ReservationReclaimer(table, wheel, {
    reservationTtlMs: TTL,
    expiryMarginMs: MARGIN,
    recheckMs: 1000,
    chainPast: (t) => chainTime.t > t,
  });
  const advance = (ms: number): void => {
    clock.advance(ms);
    wheel.tick();
  };
  return { clock, table, wheel, reclaimer, advance };
}

t.test('unlanded: released at expiresAt + margin once the chain is past it, refunded once', async (t) => {
  const chain = { t: T0 };
  const { table, reclaimer, advance } = setup(chain);
  const r = table.reserve(100n, T0 + TTL)!;
  const expiresAt = T0 + 30_000;
  let refunds = 0;
  const outcomes: ReservationOutcome[] = [];
  reclaimer.track(r, T0, () => refunds++, { expiresAt, onOutcome: (o) => outcomes.push(o) });
  advance(30_000 + MARGIN - 1_000);
  t.ok(table.isLive(r), 'still reserved before expiresAt + margin');
  // The chain follows the wall clock here.
  chain.t = T0 + 30_000 + MARGIN;
  advance(1_000);
  t.notOk(table.isLive(r), 'released at expiresAt + margin (40 s), not at 300 s');
  t.equal(table.counts().free, 2);
  t.equal(refunds, 1, 'the key is refunded once');
  t.same(outcomes, ['expired']);
  t.equal(reclaimer.tracked, 0);
  advance(TTL);
  t.equal(refunds, 1, 'and never again');
  t.same(outcomes, ['expired']);
});

t.test('the chain not past the TTL (indexer stalled, sync behind): kept, looked at again, released at the latest at the deadline', async (t) => {
  const chain = { t: T0 };
  const { table, reclaimer, advance } = setup(chain);
  const r = table.reserve(100n, T0 + TTL)!;
  const outcomes: ReservationOutcome[] = [];
  let refunds = 0;
  reclaimer.track(r, T0, () => refunds++, { expiresAt: T0 + 30_000, onOutcome: (o) => outcomes.push(o) });
  advance(60_000);
  t.ok(table.isLive(r), 'the chain has not passed the TTL: a late block could still carry it');
  chain.t = T0 + 30_001;
  advance(1_000);
  t.notOk(table.isLive(r), 'released within one recheck of the chain passing it');
  t.same(outcomes, ['expired']);
  t.equal(refunds, 1);

  const r2 = table.reserve(100n, T0 + 61_000 + TTL)!;
  const o2: ReservationOutcome[] = [];
  chain.t = 0;
  reclaimer.track(r2, T0 + 61_000, undefined, { expiresAt: T0 + 61_000 + 30_000, onOutcome: (o) => o2.push(o) });
  advance(TTL - 1_000);
  t.ok(table.isLive(r2), 'a chain that never moves: kept until the reclaim deadline');
  advance(1_000);
  t.notOk(table.isLive(r2), 'released at the deadline as before');
  t.same(o2, ['expired']);
});

t.test('landed: the sync marked it SPENT first — never released, never refunded, reported landed', async (t) => {
  const chain = { t: T0 };
  const { table, reclaimer, advance } = setup(chain);
  const r = table.reserve(100n, T0 + TTL)!;
  let refunds = 0;
  const outcomes: ReservationOutcome[] = [];
  reclaimer.track(r, T0, () => refunds++, { expiresAt: T0 + 30_000, onOutcome: (o) => outcomes.push(o) });
  advance(5_000);
  t.ok(table.markSpent(r.slot), 'the transaction lands: the sync marks its UTXO spent');
  chain.t = T0 + 10 * TTL;
  advance(40_000);
  t.equal(table.slotEntry(r.slot)?.state, 'spent', 'still spent: never back to FREE');
  t.equal(refunds, 0, 'a landed transaction is not refunded');
  t.same(outcomes, ['landed']);
  advance(TTL);
  t.equal(table.slotEntry(r.slot)?.state, 'spent');
  t.same(outcomes, ['landed'], 'reported once');
  t.equal(table.counts().free, 1, 'only the other UTXO is free');
});

t.test('property: never released while live before the chain passes the TTL; a spent one never; each reports once', async (t) => {
  fc.assert(
    fc.property(
      fc.record({
        life: fc.integer({ min: 2_000, max: 200_000 }),
        chainLag: fc.integer({ min: 0, max: 400_000 }),
        landAt: fc.option(fc.nat(250_000), { nil: undefined }),
      }),
      ({ life, chainLag, landAt }) => {
        const chain = { t: 0 };
        const { clock, table, reclaimer, advance } = setup(chain);
        const r = table.reserve(100n, T0 + TTL)!;
        const expiresAt = T0 + life;
        const outcomes: ReservationOutcome[] = [];
        let refunds = 0;
        reclaimer.track(r, T0, () => refunds++, { expiresAt, onOutcome: (o) => outcomes.push(o) });
        let landed = false;
        for (let elapsed = 0; elapsed <= TTL + 2_000; elapsed += 1_000) {
          chain.t = clock.now() - chainLag;
          if (landAt !== undefined && !landed && elapsed >= landAt && landAt < life && table.isLive(r)) landed = table.markSpent(r.slot);
          const wasLive = table.isLive(r);
          advance(1_000);
          if (wasLive && !table.isLive(r) && !landed) {
            // Released: the chain was past the TTL by then, or the deadline came.
            if (!(chain.t > expiresAt || clock.now() >= T0 + TTL)) return false;
            if (clock.now() < expiresAt + MARGIN) return false;
          }
        }
        if (landed) return refunds === 0 && outcomes.length === 1 && outcomes[0] === 'landed' && table.slotEntry(r.slot)?.state === 'spent';
        return refunds === 1 && outcomes.length === 1 && outcomes[0] === 'expired';
      },
    ),
    { numRuns: 200, seed: 26 },
  );
  t.pass('held for every schedule');
});
