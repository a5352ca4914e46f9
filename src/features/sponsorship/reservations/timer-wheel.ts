/**
 * A hashed timer wheel for many long, coarse timers (DUST reservation reclaim: thousands of
 * 5-minute timers, almost all cancelled early). Like undici's low-resolution timers
 * (lib/util/timers.js), one periodic tick serves every timer instead of one native timer each;
 * unlike them, time comes from an injected clock and `tick(now)`, so tests drive it exactly.
 *
 * Time is cut into ticks of `tickMs`; a timer sits in the bucket of the tick its deadline falls
 * in (tick index modulo the bucket count). Insert and cancel are O(1) (intrusive doubly linked
 * lists); a tick visits only the buckets of the ticks that elapsed. A bucket holds timers of
 * every revolution: each timer keeps its absolute deadline, and only those due fire.
 *
 * Contract of `tick(now)`: it fires every pending timer whose deadline is ≤ now, and no other.
 * Driven every `tickMs` (see `startTimerWheel`), a timer therefore fires at most one tick after
 * its deadline, and never before it.
 */
import type { Clock } from '../../../core/clock.js';

export type { Clock };

interface TimerWheelOptions {
  clock: Clock;
  /** Resolution in ms (default 1000). */
  tickMs?: number;
  /** Bucket count, a power of two (default 512: one revolution is 8.5 minutes at 1 s ticks). */
  slots?: number;
}

/** What `schedule` returns: pass it to `cancel`. */
export interface TimerHandle {
  /** Absolute deadline, in the clock's milliseconds. */
  readonly deadline: number;
  /** True until the timer fires or is cancelled. */
  readonly pending: boolean;
}

export interface TimerWheelDriver {
  /** Stops the interval. The wheel keeps its timers; ticking may be resumed with a new driver. */
  stop(): void;
}

const DEFAULT_TICK_MS = 1000;
const DEFAULT_WHEEL_SLOTS = 512;

const IN_BUCKET = 0;
/** Taken out of its bucket by the current tick, about to fire. */
const DUE = 1;
const DONE = 2;
type TimerState = typeof IN_BUCKET | typeof DUE | typeof DONE;

class Timer implements TimerHandle {
  readonly deadline: number;
  /** Tick whose bucket holds the timer. */
  readonly dueTick: number;
  /** Scheduling order, to fire timers of one tick first in, first out. */
  readonly sequence: number;
  readonly wheel: TimerWheel;
  readonly callback: (arg: unknown) => void;
  readonly arg: unknown;
  state: TimerState = IN_BUCKET;
  previous: Timer | null = null;
  next: Timer | null = null;

  constructor(wheel: TimerWheel, deadline: number, dueTick: number, sequence: number, callback: (arg: unknown) => void, arg: unknown) {
    this.wheel = wheel;
    this.deadline = deadline;
    this.dueTick = dueTick;
    this.sequence = sequence;
    this.callback = callback;
    this.arg = arg;
  }

  get pending(): boolean {
    return this.state !== DONE;
  }
}

export class TimerWheel {
  readonly tickMs: number;
  readonly slots: number;
  private readonly clock: Clock;
  private readonly mask: number;
  private readonly heads: (Timer | null)[];
  private readonly tails: (Timer | null)[];
  /**
   * First tick not yet fully processed. Every timer in a bucket has dueTick ≥ this; the tick
   * `now` falls in is never marked done, because timers later in that same tick are still due.
   */
  private nextTick: number;
  private sequence = 0;
  private count = 0;
  private ticking = false;
  /** Timers taken out of their buckets by the current tick, in firing order; reused. */
  private readonly due: Timer[] = [];

  constructor(options: TimerWheelOptions) {
    const tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    const slots = options.slots ?? DEFAULT_WHEEL_SLOTS;
    if (!Number.isFinite(tickMs) || tickMs <= 0) throw new RangeError(`tickMs must be a positive number, got ${tickMs}`);
    if (!Number.isInteger(slots) || slots < 1 || slots > 2 ** 30 || (slots & (slots - 1)) !== 0) {
      throw new RangeError(`slots must be a power of two from 1 to 2^30, got ${slots}`);
    }
    this.clock = options.clock;
    this.tickMs = tickMs;
    this.slots = slots;
    this.mask = slots - 1;
    this.heads = new Array<Timer | null>(slots).fill(null);
    this.tails = new Array<Timer | null>(slots).fill(null);
    this.nextTick = this.tickOf(this.clock.now());
  }

  /** Pending timers. */
  get size(): number {
    return this.count;
  }

  /** The wheel's clock, for callers that compute deadlines on the same time base. */
  now(): number {
    return this.clock.now();
  }

  /** Calls `callback(arg)` from the first `tick(now)` with now ≥ clock.now() + delayMs. */
  schedule<A>(delayMs: number, callback: (arg: A) => void, arg: A): TimerHandle;
  schedule(delayMs: number, callback: () => void): TimerHandle;
  schedule(delayMs: number, callback: (arg: unknown) => void, arg?: unknown): TimerHandle {
    if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`delayMs must be a non-negative number, got ${delayMs}`);
    return this.scheduleAt(this.clock.now() + delayMs, callback, arg);
  }

  /** Calls `callback(arg)` from the first `tick(now)` with now ≥ deadline (clock milliseconds). */
  scheduleAt<A>(deadline: number, callback: (arg: A) => void, arg: A): TimerHandle;
  scheduleAt(deadline: number, callback: () => void): TimerHandle;
  scheduleAt(deadline: number, callback: (arg: unknown) => void, arg?: unknown): TimerHandle {
    if (!Number.isFinite(deadline)) throw new RangeError(`deadline must be a finite number, got ${deadline}`);
    // A deadline in an already processed tick goes to the current tick's bucket, which the
    // next tick visits; it fires then (its deadline is ≤ now by that time).
    const dueTick = Math.max(this.tickOf(deadline), this.nextTick);
    const timer = new Timer(this, deadline, dueTick, this.sequence++, callback, arg);
    const bucket = dueTick & this.mask;
    const tail = this.tails[bucket] ?? null;
    timer.previous = tail;
    if (tail === null) this.heads[bucket] = timer;
    else tail.next = timer;
    this.tails[bucket] = timer;
    this.count++;
    return timer;
  }

  /** Returns true if the timer was pending and will now never fire. */
  cancel(handle: TimerHandle): boolean {
    if (!(handle instanceof Timer) || handle.wheel !== this) return false;
    if (handle.state === IN_BUCKET) this.unlink(handle);
    else if (handle.state === DONE) return false;
    // A DUE timer stays in `due`; the firing loop skips it once it is DONE.
    handle.state = DONE;
    this.count--;
    return true;
  }

  /**
   * Fires, in deadline-tick order and first in, first out within a tick, every timer whose
   * deadline is ≤ now. Timers scheduled by a callback fire at a later tick, even if already due.
   * A throwing callback does not stop the others: the first error is rethrown after all fired.
   * Returns how many fired.
   */
  tick(now: number = this.clock.now()): number {
    if (this.ticking) throw new Error('TimerWheel.tick called from a timer callback');
    const nowTick = this.tickOf(now);
    const lastTick = Math.max(nowTick, this.nextTick);
    const due = this.due;
    this.ticking = true;
    try {
      if (lastTick - this.nextTick >= this.slots) {
        // A stall of a whole revolution or more: visit each bucket once, then restore order.
        for (let bucket = 0; bucket < this.slots; bucket++) this.collect(bucket, now);
        due.sort(byDueTickThenSequence);
      } else {
        for (let tick = this.nextTick; tick <= lastTick; tick++) this.collect(tick & this.mask, now);
      }
      this.nextTick = lastTick;
      let fired = 0;
      let failed = false;
      let failure: unknown;
      for (const timer of due) {
        if (timer.state !== DUE) continue;
        timer.state = DONE;
        this.count--;
        fired++;
        try {
          timer.callback(timer.arg);
        } catch (error) {
          if (!failed) failure = error;
          failed = true;
        }
      }
      if (failed) throw failure;
      return fired;
    } finally {
      due.length = 0;
      this.ticking = false;
    }
  }

  private tickOf(time: number): number {
    return Math.floor(time / this.tickMs);
  }

  /** Moves the bucket's timers whose deadline is ≤ now to `due`, keeping bucket order. */
  private collect(bucket: number, now: number): void {
    let timer = this.heads[bucket] ?? null;
    while (timer !== null) {
      const next = timer.next;
      if (timer.deadline <= now) {
        this.unlink(timer);
        timer.state = DUE;
        this.due.push(timer);
      }
      timer = next;
    }
  }

  private unlink(timer: Timer): void {
    const bucket = timer.dueTick & this.mask;
    if (timer.previous === null) this.heads[bucket] = timer.next;
    else timer.previous.next = timer.next;
    if (timer.next === null) this.tails[bucket] = timer.previous;
    else timer.next.previous = timer.previous;
    timer.previous = null;
    timer.next = null;
  }
}

function byDueTickThenSequence(a: Timer, b: Timer): number {
  return a.dueTick - b.dueTick || a.sequence - b.sequence;
}

/**
 * Production driver: one interval that ticks the wheel with its own clock every `intervalMs`
 * (default: the wheel's tick). The interval is unref'd, so pending reclaims never keep the
 * process alive, and `stop()` clears it (graceful shutdown).
 */
export function startTimerWheel(wheel: TimerWheel, intervalMs: number = wheel.tickMs): TimerWheelDriver {
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`intervalMs must be a positive number, got ${intervalMs}`);
  const interval = setInterval(() => wheel.tick(), intervalMs);
  interval.unref();
  return {
    stop() {
      clearInterval(interval);
    },
  };
}
