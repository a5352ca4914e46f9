/** The keys of bench/policy-check.ts's cells: the policy each holds, the no-op webhook it asks, and the questions its checks put to the gate. */
import { COUNTER_ENTRY_POINT } from '@nightgate/devnet/counter-contract';
import type { KeyPolicyInput } from '../../src/core/config/key-policy.js';
import type { AuthenticatedKey } from '../../src/core/guards/auth.js';
import type { PolicyQuestion } from '../../src/features/sponsorship/policy/gate.js';
import type { PolicyWebhookClient } from '../../src/features/sponsorship/policy/ports.js';
import type { Era } from '../../src/infra/ledger/index.js';
import { USERS, type Kind } from './policy-transactions.js';

/** Sponsorships per user before the counters' window moves on (under maxSponsorships). */
const PER_USER_PER_WINDOW = 10;
/** The window of the policy's `perUser` caps. */
export const WINDOW_MS = 86_400_000;
const LISTED_CONTRACTS = 100;

/** The webhook of the `+ webhook` cells: answers at once, so its HTTP time is left out. */
export const noWebhook: PolicyWebhookClient = {
  ask: () => Promise.resolve({ kind: 'sponsor' }),
  close: () => Promise.resolve(),
};

/** The policy of a cell's key: 100 listed contracts (`contract` among them), NIGHT transfers, per-user caps, and the webhook if asked. */
export function policyInput(contract: string, fee: bigint, webhook: boolean): KeyPolicyInput {
  const contracts: NonNullable<NonNullable<KeyPolicyInput['allow']>['contracts']> = [];
  for (let i = 0; i < LISTED_CONTRACTS - 1; i++) contracts.push({ address: (i + 1).toString(16).padStart(64, '0'), entryPoints: ['buy', 'refund'] });
  contracts.splice(LISTED_CONTRACTS >> 1, 0, { address: contract, entryPoints: [COUNTER_ENTRY_POINT] });
  return {
    allow: { nightTransfers: true, contracts },
    perUser: { maxSponsorships: 20, maxDust: (fee * 2n * BigInt(PER_USER_PER_WINDOW)).toString(), windowMs: WINDOW_MS },
    ...(webhook ? { webhook: { url: 'http://127.0.0.1:9/sponsor', onTimeout: 'reject' as const, secret: 'policy-check-bench-secret' } } : {}),
  };
}

/** One cell's key and the time its checks run at: a window holds 10 sponsorships of each of its users. */
export class Cell {
  private checks = 0;
  readonly key: AuthenticatedKey;

  constructor(
    readonly era: Era,
    readonly kind: Kind,
    part: string,
    policy: KeyPolicyInput,
    readonly fee: bigint,
  ) {
    this.key = { id: `bench-${era}-${kind}-${part}`, source: 'config', policy };
  }

  /** The next check's question. */
  question(): PolicyQuestion {
    const window = Math.floor(this.checks++ / (USERS * PER_USER_PER_WINDOW));
    return { key: this.key, network: 'undeployed', era: this.era, kind: 'prove-and-balance', clientId: undefined, now: 1_800_000_000_000 + window * WINDOW_MS };
  }
}
