/**
 * The policy gate: whether a key's policy (docs/policies.md) pays for one transaction, decided on
 * the main thread before anything is reserved, in this order, the first refusal answered:
 *  1. `validFrom` / `validUntil`, and the user the policy counts by header (`precheck`, before the
 *     task starts: nothing is deserialized for a key out of its dates);
 *  2. `allow`: every effect of an allowed kind, every contract call listed (rules.ts);
 *  3. `perUser`: one place held in each user's count (user-counters.ts); at a cap → 429 USER_LIMIT;
 *  4. `webhook`: the key owner's service says `{"sponsor": true}` (webhook.ts).
 * Steps 2–4 run once an `admission` task has read the transaction's effects, on the main thread
 * with no worker thread held (the webhook may take its whole timeout), before the `balance` task
 * reserves anything (sponsorship.ts). The places held are the ticket's: committed with the
 * answer's fee, released if no answer is given, refunded if the answer's reservation is reclaimed
 * unspent.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { policyOf, type KeyPolicy } from './compiled-policy.js';
import { GatewayError } from '../../../core/errors.js';
import type { AuthenticatedKey } from '../../../core/guards/auth.js';
import type { SponsorKind } from '../common/balance-task.js';
import type { TxEffects } from '../common/effects.js';
import type { PolicyWebhookClient, WebhookSummary } from './ports.js';
import { checkAllowed, checkValidity, type Refusal } from './rules.js';
import { secondsToWindowEnd } from '../common/fixed-window.js';
import type { UserCounterStore, UserHold } from './user-counters.js';

/** `X-Client-ID` as a user id: printable ASCII, no spaces, ≤ 128 characters. */
const CLIENT_ID = /^[\x21-\x7e]{1,128}$/;
const WEBHOOK_RETRY_AFTER_S = '5';

interface PolicyGateOptions {
  counters: UserCounterStore;
  webhook: PolicyWebhookClient;
  logger: Logger;
}

/** One sponsorship's question: who asks, for what, and the `X-Client-ID` it came with. */
export interface PolicyQuestion {
  readonly key: AuthenticatedKey;
  readonly network: string;
  readonly era: number;
  readonly kind: SponsorKind;
  readonly clientId: string | undefined;
  readonly now: number;
}

function denied(r: Refusal): GatewayError {
  return new GatewayError('POLICY_DENIED', r.message, {
    rule: r.rule,
    ...(r.retryAfterS === undefined ? {} : { headers: { 'Retry-After': String(r.retryAfterS) } }),
  });
}

/** What one admitted sponsorship holds of its users' counts. */
class PolicyTicket {
  private settled = false;

  constructor(
    private readonly counters: UserCounterStore,
    private readonly holds: readonly UserHold[],
    private readonly maxDust: bigint | undefined,
    /** The users the sponsorship counts for (empty: the policy counts none). */
    readonly users: readonly string[],
  ) {}

  /** The answer's fee, added to each user's DUST; throws USER_LIMIT (places released) when one would pass `maxDust`. */
  async commit(fee: bigint, now: number): Promise<void> {
    this.settled = true;
    const done: UserHold[] = [];
    let refusal: GatewayError | undefined;
    let failure: unknown;
    for (const hold of this.holds) {
      try {
        if (await this.counters.commit(hold, fee, this.maxDust)) {
          done.push(hold);
          continue;
        }
        refusal = new GatewayError('USER_LIMIT', `the fee of ${fee} SPECK would take user ${hold.user} past the DUST this key pays per user in the window`, {
          rule: 'perUser.maxDust',
          headers: { 'Retry-After': String(secondsToWindowEnd(now, hold.windowMs)) },
        });
      } catch (err) {
        failure = err;
      }
      // Undo the users already charged, and give back the places not yet reached (the store gave back this one's).
      for (const d of done) await this.counters.refund(d, fee);
      for (const rest of this.holds.slice(this.holds.indexOf(hold) + 1)) await this.counters.release(rest);
      throw refusal ?? failure;
    }
  }

  /** No answer was given: the places go back. */
  async release(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    for (const hold of this.holds) await this.counters.release(hold);
  }

  /** The answer's reservation was reclaimed unspent: its places and fee go back. */
  async refund(fee: bigint): Promise<void> {
    for (const hold of this.holds) await this.counters.refund(hold, fee);
  }
}

const NO_HOLDS = (counters: UserCounterStore, users: readonly string[]): PolicyTicket => new PolicyTicket(counters, [], undefined, users);

export class PolicyGate {
  constructor(private readonly opts: PolicyGateOptions) {}

  async close(): Promise<void> {
    await this.opts.webhook.close();
  }

  /** One sponsorship task's use of the gate (TaskPolicy). */
  forTask(q: PolicyQuestion, signal?: AbortSignal): TaskPolicy {
    return new TaskPolicy(this, q, signal);
  }

  /** Whether the worker must read the user's fee for the question: only a webhook is told it. */
  asksFee(key: AuthenticatedKey): boolean {
    return policyOf(key)?.webhook !== undefined;
  }

  /** Whether the worker must read the transaction's effects and ask (a policy with more than dates). */
  asks(key: AuthenticatedKey): boolean {
    const p = policyOf(key);
    return p !== undefined && (p.allow !== undefined || p.perUser !== undefined || p.webhook !== undefined);
  }

  /** Before the task: the policy's dates, and the `X-Client-ID` a policy counting by it needs. */
  precheck(key: AuthenticatedKey, clientId: string | undefined, now: number): void {
    const p = policyOf(key);
    if (!p) return;
    const refusal = checkValidity(p, now);
    if (refusal) throw denied(refusal);
    if (p.perUser?.userFrom === 'client-id' && (clientId === undefined || !CLIENT_ID.test(clientId))) {
      throw new GatewayError('INVALID_PARAMETER', "this key's policy counts users by X-Client-ID: send it (1 to 128 printable characters, no spaces)");
    }
  }

  /** The users a policy counts: the client id, or the owners of the unshielded inputs. */
  private usersOf(p: KeyPolicy, q: PolicyQuestion, effects: TxEffects): string[] {
    if (p.perUser?.userFrom === 'client-id') return [`client:${q.clientId}`];
    return [...effects.owners];
  }

  /** Steps 2–4 for a transaction's effects; the ticket holds what step 3 took. */
  async admit(q: PolicyQuestion, effects: TxEffects, signal?: AbortSignal): Promise<PolicyTicket> {
    const p = policyOf(q.key);
    if (!p) return NO_HOLDS(this.opts.counters, []);
    const refusal = checkAllowed(p, effects);
    if (refusal) throw denied(refusal);
    const users = this.usersOf(p, q, effects);
    const ticket = await this.holdUsers(p, q, users);
    try {
      if (p.webhook) await this.askWebhook(p.webhook, q, effects, users, signal);
    } catch (err) {
      await ticket.release();
      throw err;
    }
    return ticket;
  }

  private async holdUsers(p: KeyPolicy, q: PolicyQuestion, users: readonly string[]): Promise<PolicyTicket> {
    const cap = p.perUser;
    if (!cap) return NO_HOLDS(this.opts.counters, users);
    if (users.length === 0) {
      throw denied({
        rule: 'perUser',
        message:
          'the transaction spends no unshielded input, so it names no user to count; this key sponsors only transactions with a ' +
          'user (or set perUser.userFrom to "client-id")',
      });
    }
    const holds: UserHold[] = [];
    try {
      for (const user of users) {
        const r = await this.opts.counters.hold(q.key.id, user, cap, q.now);
        if (!r.ok) {
          const what = r.rule === 'perUser.maxSponsorships' ? `${cap.maxSponsorships} sponsorships` : `${cap.maxDust} SPECK`;
          throw new GatewayError('USER_LIMIT', `user ${user} has had the ${what} this key pays per user in ${Math.round(cap.windowMs / 1000)} s`, {
            rule: r.rule,
            headers: { 'Retry-After': String(r.retryAfterS) },
          });
        }
        holds.push(r.hold);
      }
    } catch (err) {
      for (const h of holds) await this.opts.counters.release(h);
      throw err;
    }
    return new PolicyTicket(this.opts.counters, holds, cap.maxDust, users);
  }

  private async askWebhook(
    webhook: NonNullable<KeyPolicy['webhook']>,
    q: PolicyQuestion,
    effects: TxEffects,
    users: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const summary: WebhookSummary = {
      id: randomUUID(),
      keyId: q.key.id,
      network: q.network,
      era: q.era,
      kind: q.kind,
      user: users[0] ?? null,
      owners: effects.owners,
      effects: {
        nightTransfers: effects.unshielded,
        shielded: effects.shielded,
        deploys: effects.deploys,
        maintenance: effects.maintenance,
        dustRegistrations: effects.dustRegistrations,
      },
      calls: effects.calls,
      fee: effects.userFee ?? null,
      feeUnit: 'SPECK',
    };
    const verdict = await this.opts.webhook.ask(webhook, summary, signal);
    if (verdict.kind === 'sponsor') return;
    if (verdict.kind === 'deny') throw denied({ rule: 'webhook', message: `the key owner's webhook declined${verdict.reason ? `: ${verdict.reason}` : ''}` });
    if (webhook.onTimeout === 'sponsor') {
      this.opts.logger.warn(
        { keyId: q.key.id, network: q.network, reason: verdict.reason, request: summary.id },
        'policy webhook unavailable: sponsoring (onTimeout "sponsor")',
      );
      return;
    }
    throw new GatewayError('POLICY_WEBHOOK_UNAVAILABLE', `the key owner's webhook did not answer (${verdict.reason}); nothing was reserved`, {
      rule: 'webhook',
      headers: { 'Retry-After': WEBHOOK_RETRY_AFTER_S },
    });
  }
}

/**
 * One sponsorship's policy: judges its transaction's effects with the gate, and keeps the ticket
 * it took — committed with the answer, given back if the sponsorship ends without one, including
 * when it ended while the gate was still deciding (a slow webhook and an aborted request).
 */
export class TaskPolicy {
  private ticket: PolicyTicket | undefined;
  private ended = false;

  constructor(
    private readonly gate: PolicyGate,
    private readonly q: PolicyQuestion,
    private readonly signal: AbortSignal | undefined,
  ) {}

  readonly answer = async (effects: TxEffects): Promise<void> => {
    const admitted = await this.gate.admit(this.q, effects, this.signal);
    if (this.ended) return admitted.release();
    this.ticket = admitted;
  };

  /** The users the sponsorship counts for (for /usage). */
  get users(): readonly string[] {
    return this.ticket?.users ?? [];
  }

  commit(fee: bigint, now: number): Promise<void> {
    return this.ticket?.commit(fee, now) ?? Promise.resolve();
  }

  refund(fee: bigint): Promise<void> {
    return this.ticket?.refund(fee) ?? Promise.resolve();
  }

  /** The task is over: without an answer, the places go back. */
  async end(answered: boolean): Promise<void> {
    this.ended = true;
    if (!answered) await this.ticket?.release();
  }
}
