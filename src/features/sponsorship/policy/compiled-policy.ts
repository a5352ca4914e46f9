/**
 * A key's policy in the form the sponsorship reads per request: dates as ms, contracts by address,
 * defaults filled in. Compiled once per configured policy (a reload brings new policy objects).
 */
import { normalAddress, type KeyPolicyInput } from '../../../core/config/key-policy.js';

/** A contract's rule: the entry points that may be called (null: any), and whether maintenance updates may. */
interface ContractAllowance {
  readonly entryPoints: ReadonlySet<string> | null;
  readonly maintenance: boolean;
}

export interface KeyPolicy {
  /** Absent: every kind of effect is allowed. Present: only those set true, and only the listed contracts. */
  readonly allow?: {
    readonly nightTransfers: boolean;
    readonly shielded: boolean;
    readonly deploys: boolean;
    readonly dustRegistrations: boolean;
    /** By lower-case 64-hex address. */
    readonly contracts: ReadonlyMap<string, ContractAllowance>;
  };
  readonly perUser?: {
    readonly maxSponsorships?: number;
    readonly maxDust?: bigint;
    readonly windowMs: number;
    readonly userFrom: 'transaction' | 'client-id';
  };
  /** ms since the epoch. */
  readonly validFrom?: number;
  readonly validUntil?: number;
  readonly webhook?: { readonly url: string; readonly timeoutMs: number; readonly onTimeout: 'reject' | 'sponsor'; readonly secret: string };
}

const DEFAULT_WEBHOOK_TIMEOUT_MS = 2_000;

const compiled = new WeakMap<KeyPolicyInput, KeyPolicy>();

/** The compiled form of a key's configured policy; undefined when it has none. */
export function policyOf(key: { readonly policy?: KeyPolicyInput | undefined }): KeyPolicy | undefined {
  const input = key.policy;
  if (input === undefined) return undefined;
  let p = compiled.get(input);
  if (!p) {
    p = compileKeyPolicy(input);
    compiled.set(input, p);
  }
  return p;
}

/** The form the sponsorship reads per request: dates as ms, contracts by address, defaults filled in. */
export function compileKeyPolicy(p: KeyPolicyInput): KeyPolicy {
  const allow = p.allow;
  return {
    ...(allow
      ? {
          allow: {
            nightTransfers: allow.nightTransfers === true,
            shielded: allow.shielded === true,
            deploys: allow.deploys === true,
            dustRegistrations: allow.dustRegistrations === true,
            contracts: new Map(
              (allow.contracts ?? []).map((c) => [
                normalAddress(c.address),
                { entryPoints: c.entryPoints ? new Set(c.entryPoints) : null, maintenance: c.maintenance === true },
              ]),
            ),
          },
        }
      : {}),
    ...(p.perUser
      ? {
          perUser: {
            ...(p.perUser.maxSponsorships !== undefined ? { maxSponsorships: p.perUser.maxSponsorships } : {}),
            ...(p.perUser.maxDust !== undefined ? { maxDust: BigInt(p.perUser.maxDust) } : {}),
            windowMs: p.perUser.windowMs,
            userFrom: p.perUser.userFrom ?? 'transaction',
          },
        }
      : {}),
    ...(p.validFrom !== undefined ? { validFrom: Date.parse(p.validFrom) } : {}),
    ...(p.validUntil !== undefined ? { validUntil: Date.parse(p.validUntil) } : {}),
    ...(p.webhook
      ? {
          webhook: {
            url: p.webhook.url,
            timeoutMs: p.webhook.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
            onTimeout: p.webhook.onTimeout,
            secret: p.webhook.secret,
          },
        }
      : {}),
  };
}
