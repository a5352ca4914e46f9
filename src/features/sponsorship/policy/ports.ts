/**
 * What the policy gate (gate.ts) asks of the parts around it: the key owner's webhook
 * (webhook.ts) and the usage ledger that /usage reads (usage.ts).
 */
import type { KeyPolicy } from './compiled-policy.js';
import type { ContractCallEffect } from '../common/effects.js';

/** The JSON body nightgate POSTs to a policy webhook. */
export interface WebhookSummary {
  /** Unique per question: a receiver may use it to refuse a replayed request. */
  readonly id: string;
  readonly keyId: string;
  readonly network: string;
  /** The ledger era the transaction is of (8 or 9). */
  readonly era: number;
  readonly kind: 'prove-and-balance' | 'balance-only';
  /** The end user as the policy counts it (perUser.userFrom), or the first input owner; null when none. */
  readonly user: string | null;
  /** Distinct owners of the transaction's unshielded inputs (64 hex). */
  readonly owners: readonly string[];
  readonly effects: {
    readonly nightTransfers: boolean;
    readonly shielded: boolean;
    readonly deploys: readonly string[];
    readonly maintenance: readonly string[];
    readonly dustRegistrations: number;
  };
  readonly calls: readonly ContractCallEffect[];
  /** The user's part's fee at the tip's prices, SPECK (decimal); the sponsor's own fee part comes on top. */
  readonly fee: string | null;
  readonly feeUnit: 'SPECK';
}

export type WebhookVerdict =
  | { readonly kind: 'sponsor' }
  /** A 2xx answer without `"sponsor": true`; `reason` is the answer's `reason` string, if any (trimmed). */
  | { readonly kind: 'deny'; readonly reason?: string }
  /** No usable answer in time: timeout, connection refused, a non-2xx status, a body that is not JSON. */
  | { readonly kind: 'unavailable'; readonly reason: string };

export interface PolicyWebhookClient {
  ask(webhook: NonNullable<KeyPolicy['webhook']>, summary: WebhookSummary, signal?: AbortSignal): Promise<WebhookVerdict>;
  close(): Promise<void>;
}

/** Sponsorships and refusals per key, for GET /usage and the key's Prometheus counters. */
export interface UsageRecorder {
  /** An answered sponsorship (not a repeat answered from the dedupe). */
  sponsored(keyId: string, network: string, users: readonly string[], fee: bigint, at: number): void;
  /** An answered sponsorship whose reservation was reclaimed unspent: it never landed, its fee was not spent. */
  expired(keyId: string, network: string, users: readonly string[], fee: bigint, answeredAt: number): void;
  /** A sponsorship refused: `reason` is the policy rule (e.g. `allow.contracts`), else the error code. */
  refused(keyId: string, network: string, reason: string, at: number): void;
}
