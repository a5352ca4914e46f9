import fc from 'fast-check';
import t from 'tap';
import { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';
import type { Reservation } from '../../../../src/features/sponsorship/allocator/allocator.js';

// Single-thread model check: random operation sequences against a plain-object model of the
// table. Every result is compared exactly, and after every step the counts and sums agree with
// the model, so FREE + RESERVED + SPENT = total holds throughout, and the header's free count
// (what `keepFree` is checked against) equals the FREE slots paying the reserve's floor after
// every transition, the floor's changes included.

const CAPACITY = 8;

type ModelState = 'empty' | 'free' | 'reserved' | 'spent';
interface ModelSlot {
  state: ModelState;
  generation: number;
  value: bigint;
  deadline: number;
}

// Few distinct values make ties and exact fits common; the edges test both 32-bit halves.
const value = fc.oneof(
  { arbitrary: fc.constantFrom(0n, 1n, 100n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n + 1n, 2n ** 64n - 1n), weight: 4 },
  { arbitrary: fc.bigInt({ min: 0n, max: 1_000n }), weight: 1 },
  { arbitrary: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), weight: 1 },
);
const pick = fc.nat({ max: 1_000 });
const op = fc.oneof(
  fc.record({ op: fc.constant('add' as const), value }),
  fc.record({ op: fc.constant('reserve' as const), fee: value, deadline: fc.nat({ max: 100 }), keepFree: fc.oneof(fc.constant(0), fc.nat({ max: 6 })) }),
  fc.record({ op: fc.constant('release' as const), pick }),
  fc.record({ op: fc.constant('confirm' as const), pick }),
  fc.record({ op: fc.constant('markSpent' as const), pick }),
  fc.record({ op: fc.constant('recycle' as const), pick }),
  fc.record({ op: fc.constant('updateValue' as const), pick, value }),
  fc.record({ op: fc.constant('reclaim' as const), now: fc.nat({ max: 100 }) }),
  fc.record({ op: fc.constant('floor' as const), value }),
);

/** The floor as the table keeps it: rounded up to 2^16, capped below 2^48. */
function roundedFloor(value: bigint): bigint {
  const units = (value + 0xffffn) >> 16n;
  return (units > 0xffff_ffffn ? 0xffff_ffffn : units) << 16n;
}

function bestFit(model: ModelSlot[], fee: bigint): number {
  let best = -1;
  model.forEach((slot, index) => {
    const current = model[best];
    if (slot.state === 'free' && slot.value >= fee && (current === undefined || slot.value < current.value)) best = index;
  });
  return best;
}

t.test('random operation sequences match the model exactly', async (t) => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 100, size: 'max' }), (ops) => {
      const table = DustAllocatorTable.create(CAPACITY);
      const model: ModelSlot[] = [];
      // Every reservation ever issued, live or not: releasing stale ones must fail.
      const issued: Reservation[] = [];
      let floor = 0n;
      const counted = (slot: ModelSlot): boolean => slot.state === 'free' && slot.value >= floor;
      const at = <T>(items: readonly T[], index: number): T | undefined => items[index % Math.max(items.length, 1)];
      for (const step of ops) {
        switch (step.op) {
          case 'add': {
            const empty = model.findIndex((slot) => slot.state === 'empty');
            const expected = empty >= 0 ? empty : model.length;
            if (expected === CAPACITY) {
              if (!throws(() => table.add({ walletIndex: 1, key: 2, value: step.value }))) return false;
              break;
            }
            if (table.add({ walletIndex: 1, key: 2, value: step.value }) !== expected) return false;
            const slot = model[expected] ?? { state: 'empty', generation: 0, value: 0n, deadline: 0 };
            model[expected] = { state: 'free', generation: slot.generation + 1, value: step.value, deadline: 0 };
            break;
          }
          case 'reserve': {
            // The best fit, refused if it pays the floor and taking it would leave fewer than
            // keepFree FREE UTXOs paying the floor.
            const paying = model.filter(counted).length;
            const fit = bestFit(model, step.fee);
            const expected = fit >= 0 && counted(model[fit]!) && paying <= step.keepFree ? -1 : fit;
            const got = table.reserve(step.fee, step.deadline, { keepFree: step.keepFree });
            const slot = model[expected];
            if (slot === undefined) {
              if (got !== null) return false;
              break;
            }
            slot.state = 'reserved';
            slot.generation++;
            slot.deadline = step.deadline;
            const want = { slot: expected, generation: slot.generation, value: slot.value, deadline: step.deadline };
            if (got === null || JSON.stringify(got, big) !== JSON.stringify(want, big)) return false;
            issued.push(got);
            break;
          }
          case 'release':
          case 'confirm': {
            const reservation = at(issued, step.pick);
            if (reservation === undefined) break;
            const slot = model[reservation.slot];
            const live = slot?.state === 'reserved' && slot.generation === reservation.generation;
            const done = step.op === 'release' ? table.release(reservation) : table.confirm(reservation);
            if (done !== live) return false;
            if (live && slot !== undefined) {
              slot.state = step.op === 'release' ? 'free' : 'spent';
              slot.generation++;
            }
            break;
          }
          case 'markSpent':
          case 'recycle':
          case 'updateValue': {
            const index = model.length === 0 ? -1 : step.pick % model.length;
            const slot = model[index];
            if (slot === undefined) break;
            if (step.op === 'markSpent') {
              const expected = slot.state === 'free' || slot.state === 'reserved';
              if (table.markSpent(index) !== expected) return false;
              if (expected) Object.assign(slot, { state: 'spent', generation: slot.generation + 1 });
            } else if (step.op === 'recycle') {
              const expected = slot.state === 'spent';
              if (table.recycle(index) !== expected) return false;
              if (expected) Object.assign(slot, { state: 'empty', generation: slot.generation + 1 });
            } else {
              const expected = slot.state === 'free';
              if (table.updateValue(index, step.value) !== expected) return false;
              if (expected) Object.assign(slot, { value: step.value, generation: slot.generation + 2 });
            }
            break;
          }
          case 'reclaim': {
            const due = model.filter((slot) => slot.state === 'reserved' && slot.deadline <= step.now);
            if (table.reclaimExpired(step.now) !== due.length) return false;
            for (const slot of due) Object.assign(slot, { state: 'free', generation: slot.generation + 1 });
            break;
          }
          case 'floor': {
            // A recount keeps every generation.
            table.setReserveFloor(step.value);
            floor = roundedFloor(step.value);
            if (table.reserveFloor() !== floor) return false;
            break;
          }
        }
        const count = (state: ModelState) => model.filter((slot) => slot.state === state).length;
        const counts = table.counts();
        if (counts.free !== count('free') || counts.reserved !== count('reserved') || counts.spent !== count('spent')) return false;
        if (counts.free + counts.reserved + counts.spent !== counts.total) return false;
        if (table.freeTokens() !== model.filter(counted).length) return false;
        if (table.uncountedFree() !== counts.free - table.freeTokens()) return false;
        const unspent = model.filter((slot) => slot.state === 'free' || slot.state === 'reserved');
        if (table.totalValue() !== unspent.reduce((sum, slot) => sum + slot.value, 0n)) return false;
      }
      return true;
    }),
    { numRuns: 200 },
  );
  t.pass('200 random sequences agreed with the model');
});

function throws(fn: () => unknown): boolean {
  try {
    fn();
    return false;
  } catch {
    return true;
  }
}

function big(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
