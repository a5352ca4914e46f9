/**
 * A sponsorship's end, on the main thread: an answered one is charged to its key (budget, policy)
 * and tracked until it lands or its fee intent expires; any one gives back what it still holds
 * (sponsorship.ts runs admit, run, settle and end in turn).
 */
import type { NetworkName } from '../../core/config/index.js';
import type { SponsorBacklog } from './admission/backlog.js';
import type { BudgetCharge } from './admission/budget.js';
import type { KeyHealth } from './admission/key-health.js';
import type { KeyShares } from './admission/key-shares.js';
import type { InFlightReservations } from './allocator/in-flight.js';
import { sponsorAnswerJson, type BalanceResult } from './common/balance-task.js';
import { POOL_KEY_ID } from './common/pool-constants.js';
import { journalAnswer } from './reservation-restore.js';
import type { InputHolds } from './reservations/input-holds.js';
import type { ReservationReclaimer } from './reservations/reservations.js';
import type { TaskDeadlines } from './reservations/task-deadlines.js';
import type { Attempt, SponsorshipOptions } from './service-types.js';

/** The service's parts a sponsorship's end reaches. */
interface SettlementParts {
  readonly opts: SponsorshipOptions;
  readonly inputHolds: InputHolds;
  readonly backlogs: ReadonlyMap<NetworkName, SponsorBacklog>;
  readonly reclaimers: ReadonlyMap<NetworkName, ReservationReclaimer>;
  readonly health: KeyHealth;
  readonly shares: KeyShares;
  readonly inFlight: InFlightReservations;
  readonly deadlines: TaskDeadlines;
}

export class Settlement {
  /** Answers charged and tracked. */
  sponsored = 0;

  constructor(private readonly parts: SettlementParts) {}

  /**
   * The key's budget and its policy charged while the reservation lives, refunded if it is
   * reclaimed unspent (the transaction never landed): a key pays for what lands or is pending.
   * Then the reservation is tracked until it lands or its fee intent expires, and answered.
   */
  async settle(a: Attempt, res: BalanceResult): Promise<string> {
    const { net, key, now } = a;
    const policy = this.parts.opts.policy;
    const taskPolicy = a.admission.policy;
    const reservation = { slot: res.slot, generation: res.generation };
    let charge: BudgetCharge;
    const fee = BigInt(res.fee);
    try {
      charge = await policy.admit(key, fee, now);
    } catch (err) {
      net.table.release(reservation);
      throw err;
    }
    try {
      await taskPolicy?.commit(fee, now);
    } catch (err) {
      net.table.release(reservation);
      await policy.refund(charge).catch(() => undefined);
      throw err;
    }
    const users = taskPolicy?.users ?? [];
    const inputsClaim = a.claim;
    const refund = (): void => {
      if (inputsClaim) this.parts.inputHolds.release(inputsClaim, reservation);
      void policy.refund(charge).catch(() => undefined);
      void taskPolicy?.refund(fee).catch(() => undefined);
      if (key.id !== POOL_KEY_ID) this.parts.opts.usage?.expired(key.id, net.name, users, fee, now);
    };
    // Released at the fee intent's TTL if it has not landed by then (it never can after), and
    // the key's record told which way it went.
    const backlog = this.parts.backlogs.get(net.name)!;
    const expiry = {
      expiresAt: res.expiresAt,
      onOutcome: (o: 'landed' | 'expired') => {
        backlog.outcome(o);
        if (inputsClaim) this.parts.inputHolds.release(inputsClaim, reservation);
        if (key.id !== POOL_KEY_ID) this.parts.health.record(net.name, key.id, o);
      },
    };
    // Its inputs stay held while the reservation lives: at most until the reclaimer looks at it
    // past its fee intent's TTL, and never past its reclaim deadline.
    if (inputsClaim)
      this.parts.inputHolds.answered(
        inputsClaim,
        reservation,
        Math.min(res.expiresAt + (this.parts.opts.expiryMarginMs ?? 10_000), now + this.parts.opts.reservationTtlMs),
      );
    if (this.parts.reclaimers.get(net.name)!.track(reservation, now, refund, expiry) && this.parts.opts.journal)
      journalAnswer(this.parts.opts.journal, net, reservation, a.deadline);
    a.hold.answered.push({ ...reservation, member: a.member });
    a.answered = true;
    this.sponsored++;
    if (key.id !== POOL_KEY_ID) this.parts.opts.usage?.sponsored(key.id, net.name, users, fee, now);
    return sponsorAnswerJson(net.name, res);
  }

  /** What the request still holds as it ends; without an answer, all of it goes back at once. */
  async end(a: Attempt): Promise<void> {
    const { net, key } = a;
    this.parts.shares.unhold(net, key, a.hold);
    if (!a.answered) this.parts.shares.releaseShared(net, key, a.member);
    if (!a.answered && a.claim) this.parts.inputHolds.release(a.claim);
    await a.admission.policy?.end(a.answered).catch(() => undefined);
    a.proving?.close();
    const held = this.parts.inFlight.finish(a.entry);
    if (!a.answered && held) {
      net.table.release(held);
      this.parts.opts.logger.debug({ network: net.name, slot: held.slot }, 'released the DUST reservation of a failed sponsorship');
    }
    if (!a.answered) this.parts.deadlines.releaseUnrecorded(net, a.deadline, a.signal.aborted);
  }
}
