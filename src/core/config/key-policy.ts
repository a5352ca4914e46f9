/**
 * A key's sponsorship policy (`auth.keys[].policy`) as the config file writes it: its schema, the
 * checks the schema cannot make, and what may be shown of it. The sponsorship feature compiles it
 * into the form it reads per request (src/features/sponsorship/policy/compiled-policy.ts). No
 * policy: the key sponsors any transaction within its rate limit, budget and fee cap.
 */
import { Type, type Static } from '@sinclair/typebox';
import { redactUrl } from '../log/url-redaction.js';
import { PositiveInt, Speck } from './setting.js';

const Hex = (bytes: number, description: string) => Type.String({ pattern: `^(0x)?[0-9a-fA-F]{${bytes * 2}}$`, description });

const ContractRule = Type.Object(
  {
    address: Hex(32, 'Contract address, 64 hex digits (as the indexer and Midnight.js show it)'),
    entryPoints: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, description: 'Circuits that may be called; absent: any' }),
    ),
    maintenance: Type.Optional(Type.Boolean({ description: 'Maintenance updates of the contract (its verifier keys or authority) too; default false' })),
  },
  { additionalProperties: false },
);

export const KeyPolicySchema = Type.Object(
  {
    allow: Type.Optional(
      Type.Object(
        {
          nightTransfers: Type.Optional(Type.Boolean({ description: 'Unshielded offers: NIGHT or any unshielded token moving between users' })),
          shielded: Type.Optional(Type.Boolean({ description: 'Zswap (shielded) offers' })),
          deploys: Type.Optional(Type.Boolean({ description: 'Contract deployments' })),
          dustRegistrations: Type.Optional(Type.Boolean({ description: 'DUST registrations (NIGHT registered to generate DUST)' })),
          contracts: Type.Optional(Type.Array(ContractRule, { maxItems: 10_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    perUser: Type.Optional(
      Type.Object(
        {
          maxSponsorships: Type.Optional(PositiveInt),
          maxDust: Type.Optional(Speck),
          windowMs: PositiveInt,
          userFrom: Type.Optional(Type.Union([Type.Literal('transaction'), Type.Literal('client-id')])),
        },
        { additionalProperties: false },
      ),
    ),
    validFrom: Type.Optional(Type.String({ minLength: 10, maxLength: 40, description: 'ISO date-time: no sponsorship before' })),
    validUntil: Type.Optional(Type.String({ minLength: 10, maxLength: 40, description: 'ISO date-time: no sponsorship from then on' })),
    webhook: Type.Optional(
      Type.Object(
        {
          url: Type.String({ pattern: '^https?://', maxLength: 2048 }),
          timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
          onTimeout: Type.Union([Type.Literal('reject'), Type.Literal('sponsor')]),
          secret: Type.String({ minLength: 16, maxLength: 512 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type KeyPolicyInput = Static<typeof KeyPolicySchema>;

/** A contract address as the policy compares it: 64 lower-case hex digits. */
export function normalAddress(address: string): string {
  return address.toLowerCase().replace(/^0x/, '');
}

/** The policy as written, its webhook's secret replaced and its URL's credentials redacted: what may be logged or shown (config dump, GET /usage). */
export function shownPolicy(p: KeyPolicyInput): KeyPolicyInput {
  return p.webhook ? { ...p, webhook: { ...p.webhook, url: redactUrl(p.webhook.url), secret: '<redacted>' } } : p;
}

/** Why `p` cannot be used (a message naming the field), or undefined. The schema has checked its shape. */
export function keyPolicyProblem(p: KeyPolicyInput): string | undefined {
  for (const field of ['validFrom', 'validUntil'] as const) {
    const v = p[field];
    if (v !== undefined && Number.isNaN(Date.parse(v))) return `policy.${field} "${v}" is not an ISO date-time`;
  }
  if (p.validFrom !== undefined && p.validUntil !== undefined && Date.parse(p.validFrom) >= Date.parse(p.validUntil))
    return 'policy.validFrom must be before policy.validUntil';
  if (p.perUser && p.perUser.maxSponsorships === undefined && p.perUser.maxDust === undefined) return 'policy.perUser needs maxSponsorships or maxDust';
  // Users counted by the transaction are the owners of its unshielded inputs: a transaction with
  // none names no user, and one with some moves unshielded tokens, which this `allow` refuses.
  if (p.perUser && (p.perUser.userFrom ?? 'transaction') === 'transaction' && p.allow && p.allow.nightTransfers !== true) {
    return (
      'policy.perUser counts users by the owners of unshielded inputs, which policy.allow refuses (nightTransfers is not true): ' +
      'every transaction would be refused; allow nightTransfers or set perUser.userFrom to "client-id"'
    );
  }
  const seen = new Set<string>();
  for (const c of p.allow?.contracts ?? []) {
    const a = normalAddress(c.address);
    if (seen.has(a)) return `policy.allow.contracts lists ${a} twice`;
    seen.add(a);
  }
  if (p.webhook && !URL.canParse(p.webhook.url)) return `policy.webhook.url is not a URL`;
  return undefined;
}
