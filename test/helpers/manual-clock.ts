/** The clock the tests inject (src/core/clock.ts's `Clock`): it moves only when told to, so no test sleeps. */
import type { Clock } from '../../src/core/clock.js';

export class ManualClock implements Clock {
  constructor(private t = 0) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    this.t = t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
