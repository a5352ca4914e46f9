/**
 * GET /usage: what an API key's DUST paid for (the usage ledger, usage.ts) and, when the server
 * counts them, its requests (core/http/key-requests.ts). A key reads its own usage; an `admin` key
 * reads every key's, or one key's with `?key=`.
 */
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../../../core/errors.js';
import type { KeyRequests } from '../../../core/http/key-requests.js';
import type { KeyDescription } from '../../../core/guards/auth.js';
import { json, type RequestContext, type RouteDef } from '../../../core/http/route.js';
import { DAY_MS, dayOfName } from './usage-file.js';
import type { GroupBy, UsageLedger } from './usage.js';

/** The window when none is given: the last 30 days. */
const DEFAULT_DAYS = 30;
/** The longest window asked at once. */
const MAX_DAYS = 400;

interface UsageRouteDeps {
  ledger: UsageLedger;
  /** What each key may sponsor, as configured now (KeyStore.describe). */
  describe?: ((keyId: string) => KeyDescription | undefined) | undefined;
  /** Keyed requests per key since start (the pipeline's tally); absent: `requests` is left out. */
  keyRequests?: KeyRequests | undefined;
}

const Count = Type.Integer({ minimum: 0 });
const tallyProps = {
  sponsorships: Type.Integer({ minimum: 0, description: 'Sponsorships answered (a repeat answered from the dedupe is not counted again)' }),
  dust: Type.String({ pattern: '^[0-9]+$', description: 'DUST the answered sponsorships cost, SPECK (decimal); the fee of an expired one is not counted' }),
  expired: Type.Integer({ minimum: 0, description: 'Answered sponsorships reclaimed unspent (never landed), counted in the day they were answered' }),
  refusals: Type.Record(Type.String(), Count, { description: 'Refused sponsorships by reason: the policy rule (e.g. `allow.contracts`), else the error code' }),
};

const KeyUsageSchema = Type.Object({
  keyId: Type.String(),
  ...tallyProps,
  dustUnit: Type.Literal('SPECK'),
  networks: Type.Record(Type.String(), Type.Object(tallyProps), { description: 'The same figures per network' }),
  days: Type.Optional(
    Type.Array(Type.Object({ day: Type.String({ format: 'date', description: 'UTC day' }), ...tallyProps }), {
      description: 'groupBy=day: the days with any usage, oldest first',
    }),
  ),
  users: Type.Optional(
    Type.Array(Type.Object({ user: Type.String(), sponsorships: Count, dust: Type.String({ pattern: '^[0-9]+$' }) }), {
      description:
        "groupBy=user: the 100 users with the most sponsorships (as the key's policy counts users); a sponsorship with several " +
        'users counts for each; users beyond 10 000 a key and day are counted as `(other)`; users are kept for the last 31 days, ' +
        'older days count in the totals only',
    }),
  ),
  config: Type.Optional(
    Type.Object(
      {
        source: Type.String({ description: '`config` (auth.keys), `env` (NIGHTGATE_API_KEYS), `generated` (the development key)' }),
        revoked: Type.Boolean(),
        admin: Type.Boolean(),
        rateLimit: Type.Optional(Type.Object({ limit: Type.Integer(), windowMs: Type.Integer() })),
        dustBudget: Type.Optional(Type.String()),
        maxFee: Type.Optional(Type.String()),
        policy: Type.Optional(
          Type.Unknown({
            description:
              "The key's policy as configured (docs/policies.md), its webhook `secret` shown as `<redacted>` and the credentials and query of its URL redacted",
          }),
        ),
      },
      { description: 'What the key may sponsor, as configured now; absent for a key no longer configured' },
    ),
  ),
  requests: Type.Optional(
    Type.Object(
      {
        total: Count,
        refused: Type.Record(Type.String(), Count, { description: 'Answers with status ≥ 400 by error code' }),
      },
      { description: "This key's requests answered since the server started (any route; not limited to from/to)" },
    ),
  ),
});

const UsageSchema = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  groupBy: Type.Union([Type.Literal('day'), Type.Literal('user')]),
  keys: Type.Array(KeyUsageSchema, { description: 'The asking key only; every key with usage or requests for an admin key (or the one asked with `key`)' }),
});

const QUERY = Type.Object({
  from: Type.Optional(
    Type.String({
      description:
        'Start: an ISO 8601 date (`2025-06-01`, the start of that UTC day) or date-time with a zone (`2025-06-01T12:00:00Z`). Default: 30 days before `to`',
    }),
  ),
  to: Type.Optional(
    Type.String({
      description: 'End (exclusive): a date-time with a zone, or a date (its whole UTC day included). Default: now. At most 400 days after `from`',
    }),
  ),
  groupBy: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('user')], { description: '`day` (default): per-day figures; `user`: the top users' })),
  key: Type.Optional(Type.String({ maxLength: 128, description: 'Admin keys: one key id. Another key asking for any key but its own gets 403' })),
});

const DATE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

function invalid(message: string): GatewayError {
  return new GatewayError('INVALID_PARAMETER', message);
}

/** `from`/`to` as ms; a bare date is the start of its UTC day, or for `to` the end of it. */
function instant(name: 'from' | 'to', v: string): number {
  const day = dayOfName(v);
  if (day !== undefined) return (name === 'to' ? day + 1 : day) * DAY_MS;
  if (DATE_TIME.test(v)) {
    const ms = Date.parse(v);
    if (Number.isFinite(ms)) return ms;
  }
  throw invalid(`${name}: expected an ISO 8601 date (2025-06-01) or a date-time with a zone (2025-06-01T12:00:00Z), got ${JSON.stringify(v.slice(0, 64))}`);
}

/** The window and grouping a request asks for, checked; 400 INVALID_PARAMETER naming the parameter otherwise. */
function usageParams(q: URLSearchParams, now: number): { from: number; to: number; groupBy: GroupBy; key: string | undefined } {
  const g = q.get('groupBy') ?? 'day';
  if (g !== 'day' && g !== 'user') throw invalid(`groupBy: expected day or user, got ${JSON.stringify(g.slice(0, 64))}`);
  const key = q.get('key') ?? undefined;
  if (key !== undefined && (key === '' || key.length > 128)) throw invalid('key: expected a key id of 1 to 128 characters');
  const rawTo = q.get('to');
  const rawFrom = q.get('from');
  const to = rawTo === null ? now : instant('to', rawTo);
  const from = rawFrom === null ? to - DEFAULT_DAYS * DAY_MS : instant('from', rawFrom);
  if (from >= to) throw invalid('from: must be before to');
  if (to - from > MAX_DAYS * DAY_MS) throw invalid(`from: the window from..to spans more than ${MAX_DAYS} days`);
  return { from, to, groupBy: g, key };
}

export function usageRoutes(deps: UsageRouteDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      url: '/usage',
      auth: 'key',
      rateLimit: 'key',
      schema: {
        summary: 'Sponsorships, DUST spent, refusals and requests per API key',
        description:
          "What this key's DUST paid for, counted per UTC day (a day is counted when it overlaps from..to): sponsorships answered, " +
          'DUST they cost, those that expired unspent (their fee taken back), refusals by policy rule or error code; per day, or ' +
          'the top users. ' +
          'A key marked `admin` reads every key (or one, with `key`). Kept across restarts when `dust.stateDir` is set; 400 days ' +
          'are kept. `Cache-Control: no-store`.',
        tags: ['sponsorship'],
        querystring: QUERY,
        response: {
          200: { description: 'Usage per key', schema: UsageSchema, headers: { 'Cache-Control': 'no-store' } },
          400: {
            description:
              'INVALID_PARAMETER: from, to, groupBy or key malformed, from not before to, or a window over 400 days; the message names the parameter',
          },
          401: { description: 'Missing or invalid API key' },
          403: { description: 'FORBIDDEN: a key that is not `admin` asked for another key' },
          429: { description: 'Rate limit (RATE_LIMITED)' },
        },
      },
      handler: (ctx: RequestContext) => {
        const key = ctx.key!;
        const p = usageParams(ctx.searchParams, ctx.receivedAt);
        if (p.key !== undefined && p.key !== key.id && key.admin !== true)
          throw new GatewayError('FORBIDDEN', "this key may read its own usage only (an admin key reads every key's)");
        let ids: string[];
        if (p.key !== undefined) ids = [p.key];
        else if (key.admin === true) ids = [...new Set([key.id, ...deps.ledger.keyIds(p.from, p.to), ...(deps.keyRequests?.keyIds() ?? [])])].sort();
        else ids = [key.id];
        const answer = deps.ledger.query({ keys: ids, from: p.from, to: p.to, groupBy: p.groupBy });
        const tally = deps.keyRequests;
        const keys = answer.keys.map((k) => {
          const config = deps.describe?.(k.keyId);
          return { ...k, ...(config ? { config } : {}), ...(tally ? { requests: tally.of(k.keyId) ?? { total: 0, refused: {} } } : {}) };
        });
        return json({ ...answer, keys }, 200, { 'Cache-Control': 'no-store' });
      },
    },
  ];
}
