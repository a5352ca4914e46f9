/**
 * The reservation deadline of each sponsorship task, later than every one handed out before: no
 * two tasks share one, so a task's deadline names the reservations it made. One its worker thread
 * ended without recording (between reserving and recording the slot) is found by that deadline
 * alone (`DustAllocatorTable.releaseWithDeadline`) and released.
 */
import type { Logger } from 'pino';
import { reclaimAt } from './reservations.js';
import type { SponsoredNetwork } from '../common/sponsored-network.js';
import type { TimerWheel } from './timer-wheel.js';

/** How long after a cut-short task its reservations are looked for again: its thread has surely ended by then. */
const UNRECORDED_RECHECK_MS = 2_000;

export class TaskDeadlines {
  /** The last deadline handed to a task. */
  private last = 0;

  constructor(
    private readonly reservationTtlMs: number,
    private readonly wheel: TimerWheel,
    private readonly logger: Logger,
  ) {}

  /** A reservation deadline no earlier than `now + reservationTtlMs` and later than every one handed out before. */
  next(now: number): number {
    this.last = Math.max(reclaimAt(now, this.reservationTtlMs), this.last + 1);
    return this.last;
  }

  /**
   * For a task that ended without an answer: a thread ended between reserving and recording the
   * slot leaves a reservation nobody knows, under the task's deadline. A task whose client left
   * (`aborted`) may have been stopped while its thread was still running: look again once that
   * thread is surely gone.
   */
  releaseUnrecorded(net: SponsoredNetwork, deadline: number, aborted: boolean): void {
    this.release(net, deadline);
    if (aborted) this.wheel.schedule(UNRECORDED_RECHECK_MS, () => this.release(net, deadline));
  }

  private release(net: SponsoredNetwork, deadline: number): void {
    const released = net.table.releaseWithDeadline(deadline);
    if (released > 0)
      this.logger.warn({ network: net.name, released, deadline }, 'released a DUST reservation its task never recorded (its worker thread ended in between)');
  }
}
