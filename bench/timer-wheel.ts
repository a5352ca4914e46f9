/**
 * Micro-benchmark of the hashed timer wheel (src/features/sponsorship/reservations/timer-wheel.ts), on the default wheel
 * (1 s ticks, 512 buckets) with an injected clock, in the pattern of DUST reclaim timers.
 * Run alone: `npx tsx bench/timer-wheel.ts [--quick]` prints the figures as JSON; the bench
 * harness (bench/lib/micro.ts) imports `run(options)` instead.
 *
 * Figures, operations per second (best of several rounds):
 * - insert: schedule timers with deadlines spread over 0–10 minutes (beyond one revolution);
 * - cancel: cancel them all, in random order (most reservations settle before their reclaim);
 * - expire: advance the clock tick by tick over those 10 minutes, firing every timer;
 * - reservationCycle: schedule + cancel of a 5-minute timer, the life of a settled reservation.
 */
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { TimerWheel } from '../src/features/sponsorship/reservations/timer-wheel.js';
import type { Clock, TimerHandle } from '../src/features/sponsorship/reservations/timer-wheel.js';

export interface TimerWheelBenchOptions {
  quick?: boolean;
  /** Time the whole bench may spend measuring, roughly (default 3000 ms). */
  durationMs?: number;
}

export interface TimerWheelBenchFigures {
  insertsPerSecond: number;
  cancelsPerSecond: number;
  expiriesPerSecond: number;
  reservationCyclesPerSecond: number;
  /** Timers per round. */
  timers: number;
  loadAverage1m: number;
}

const TICK_MS = 1000;
const SPREAD_MS = 600_000;
const RECLAIM_MS = 300_000;
const START = 1_700_000_000_000;

class BenchClock implements Clock {
  time = START;
  now(): number {
    return this.time;
  }
}

/** Deterministic pseudo-random sequence (xorshift32), so every run schedules the same timers. */
function sequence(count: number, seed: number): Uint32Array {
  const out = new Uint32Array(count);
  let x = seed;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x >>> 0;
  }
  return out;
}

function perSecond(count: number, startNs: bigint): number {
  return Math.round(count / (Number(process.hrtime.bigint() - startNs) / 1e9));
}

interface Round {
  inserts: number;
  cancels: number;
  expiries: number;
  cycles: number;
}

function round(timers: number, random: Uint32Array): Round {
  let fired = 0;
  const onFire = (): void => {
    fired++;
  };

  const clock = new BenchClock();
  const wheel = new TimerWheel({ clock, tickMs: TICK_MS });
  const handles: TimerHandle[] = [];
  let start = process.hrtime.bigint();
  for (let i = 0; i < timers; i++) handles.push(wheel.schedule((random[i] ?? 0) % SPREAD_MS, onFire));
  const inserts = perSecond(timers, start);

  // Cancel in an order unrelated to scheduling (and to buckets), as reservations settle.
  const order = handles.map((handle, i) => ({ handle, key: random[(i * 7919) % timers] ?? 0 })).sort((a, b) => a.key - b.key);
  start = process.hrtime.bigint();
  for (const { handle } of order) wheel.cancel(handle);
  const cancels = perSecond(timers, start);

  for (let i = 0; i < timers; i++) wheel.schedule((random[i] ?? 0) % SPREAD_MS, onFire);
  start = process.hrtime.bigint();
  for (let time = START; fired < timers; time += TICK_MS) {
    clock.time = time;
    wheel.tick(time);
  }
  const expiries = perSecond(timers, start);

  start = process.hrtime.bigint();
  for (let i = 0; i < timers; i++) {
    clock.time = START + i;
    wheel.cancel(wheel.schedule(RECLAIM_MS, onFire));
  }
  const cycles = perSecond(timers, start);
  return { inserts, cancels, expiries, cycles };
}

export function run(options: TimerWheelBenchOptions = {}): TimerWheelBenchFigures {
  const durationMs = options.durationMs ?? (options.quick ? 1000 : 3000);
  const timers = options.quick ? 50_000 : 200_000;
  const random = sequence(timers, 0x9e3779b9);
  const loadAverage1m = loadavg()[0] ?? 0;
  const best: Round = { inserts: 0, cancels: 0, expiries: 0, cycles: 0 };
  const until = Date.now() + durationMs;
  // At least three rounds: the first ones run while V8 is still optimising.
  for (let i = 0; i < 3 || Date.now() < until; i++) {
    const r = round(timers, random);
    best.inserts = Math.max(best.inserts, r.inserts);
    best.cancels = Math.max(best.cancels, r.cancels);
    best.expiries = Math.max(best.expiries, r.expiries);
    best.cycles = Math.max(best.cycles, r.cycles);
  }
  return {
    insertsPerSecond: best.inserts,
    cancelsPerSecond: best.cancels,
    expiriesPerSecond: best.expiries,
    reservationCyclesPerSecond: best.cycles,
    timers,
    loadAverage1m,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(run({ quick: process.argv.includes('--quick') }), null, 2));
}
