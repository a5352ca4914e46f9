/**
 * The rules of a key's policy that need nothing but the policy, the clock and the transaction's
 * effects: its dates and what it allows. Pure functions, a few microseconds per transaction; the
 * per-user caps and the webhook (gate.ts) come after them.
 */
import type { KeyPolicy } from './compiled-policy.js';
import { secondsUntil } from '../common/fixed-window.js';
import type { TxEffects } from '../common/effects.js';

/** A refusal: the rule that refused (as `rule` in the error body) and why, for people. */
export interface Refusal {
  readonly rule: string;
  readonly message: string;
  /** When the same request could pass (validFrom): seconds for Retry-After. */
  readonly retryAfterS?: number;
}

/** The policy's dates: a key is sponsoring from `validFrom` until (not including) `validUntil`. */
export function checkValidity(policy: KeyPolicy, now: number): Refusal | undefined {
  if (policy.validFrom !== undefined && now < policy.validFrom) {
    return {
      rule: 'validFrom',
      message: `this key sponsors from ${new Date(policy.validFrom).toISOString()}`,
      retryAfterS: secondsUntil(policy.validFrom, now),
    };
  }
  if (policy.validUntil !== undefined && now >= policy.validUntil) {
    return { rule: 'validUntil', message: `this key sponsored until ${new Date(policy.validUntil).toISOString()}` };
  }
  return undefined;
}

const short = (address: string): string => `${address.slice(0, 12)}…`;

/**
 * Whether every effect of the transaction is of a kind the policy allows, and every contract it
 * calls (each call, each maintenance update) is listed with that entry point. No `allow`: all is.
 * The first refusing rule is answered, in a fixed order: contracts, then the kinds.
 */
export function checkAllowed(policy: KeyPolicy, effects: TxEffects): Refusal | undefined {
  const allow = policy.allow;
  if (!allow) return undefined;
  for (const call of effects.calls) {
    const contract = allow.contracts.get(call.address);
    if (!contract) return { rule: 'allow.contracts', message: `the transaction calls contract ${call.address}, which this key does not sponsor` };
    if (contract.entryPoints && !contract.entryPoints.has(call.entryPoint)) {
      return {
        rule: 'allow.contracts',
        message:
          `the transaction calls ${JSON.stringify(call.entryPoint.slice(0, 64))}` +
          ` of contract ${short(call.address)}` +
          `, an entry point this key does not sponsor`,
      };
    }
  }
  for (const address of effects.maintenance) {
    if (allow.contracts.get(address)?.maintenance !== true)
      return { rule: 'allow.contracts', message: `the transaction updates the maintenance of contract ${address}, which this key does not sponsor` };
  }
  if (effects.deploys.length > 0 && !allow.deploys)
    return { rule: 'allow.deploys', message: 'the transaction deploys a contract; this key does not sponsor deployments' };
  if (effects.unshielded && !allow.nightTransfers)
    return { rule: 'allow.nightTransfers', message: 'the transaction moves unshielded tokens; this key does not sponsor unshielded transfers' };
  if (effects.shielded && !allow.shielded)
    return { rule: 'allow.shielded', message: 'the transaction carries a shielded (Zswap) offer; this key does not sponsor shielded transfers' };
  if (effects.dustRegistrations > 0 && !allow.dustRegistrations)
    return { rule: 'allow.dustRegistrations', message: 'the transaction registers NIGHT for DUST; this key does not sponsor DUST registrations' };
  return undefined;
}
