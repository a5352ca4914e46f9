/**
 * Scenarios whose answers were mostly refused. Against a deployment the bench's load meets the
 * target's own limits (per-IP and per-key rate limits, queues, the DUST pool), and a run whose
 * answers are mostly 429 or 503 measures how fast the target refuses, not the route: the report
 * says so before its figures, with the share and the setting of the target that refused.
 */
import type { Measurement } from './types.js';
import { WRK_NOT_OK, WRK_OK } from './wrk.js';

/** A scenario draws the warning when more than this share of its answers were not 2xx. */
export const REFUSED_SHARE = 0.5;

/** Which rate limit a scenario's routes pass (src/core/http/pipeline.ts: `rateLimit: 'ip'` or `'key'`), and what its 503 means. */
interface ScenarioLimits {
  routes: 'public' | 'keyed';
  on503: string;
  /** Further per-key refusals with 429 beyond the rate limit. */
  on429?: string;
}

const NOT_READY = 'NOT_READY: the target has no data from its indexer yet (no setting to raise: check its indexer)';
const PROVER_QUEUE = 'QUEUE_FULL: every prover worker is busy and `prover.queueSize` (`NIGHTGATE_PROVER_QUEUE_SIZE`) tasks wait (or raise `prover.threads`)';
const SPONSORSHIP_503 =
  'NO_DUST_AVAILABLE: no DUST UTXO of its wallets is free (the pool grows toward `dust.targetUtxos`; more wallets: `dust.walletSeeds`), ' +
  'or QUEUE_FULL: `dust.maxInFlight` (`NIGHTGATE_DUST_MAX_IN_FLIGHT`) sponsorships in flight or the prover queue full (`prover.queueSize`), or WALLET_SYNCING';
const SPONSORSHIP_429 = 'RESERVATION_LIMIT: the key holds `dust.maxReservationsPerKey` DUST UTXOs; DUST_BUDGET_EXCEEDED: the key spent `dust.budget`';

/** Every scenario that loads a nightgate route, by id (bench/scenarios/<id>.ts). */
export const SCENARIO_LIMITS: Readonly<Record<string, ScenarioLimits>> = {
  'cached-summary': { routes: 'public', on503: NOT_READY },
  'cached-latest-block': { routes: 'public', on503: NOT_READY },
  'cached-mix': { routes: 'public', on503: NOT_READY },
  'lookup-block': { routes: 'public', on503: NOT_READY },
  'lookup-transaction': { routes: 'public', on503: NOT_READY },
  'lookup-search': {
    routes: 'public',
    on503:
      `INDEXER_BUSY: every address stream to the indexer is in use (\`stats.maxAddressStreams\`, ` +
      `\`NIGHTGATE_STATS_MAX_ADDRESS_STREAMS\`), or ${NOT_READY}`,
  },
  'prove-cache-hit': { routes: 'keyed', on503: PROVER_QUEUE },
  'verify-cache-hit': { routes: 'keyed', on503: PROVER_QUEUE },
  'upstream-prove': {
    routes: 'keyed',
    on503: 'QUEUE_FULL: every connection to the proof server is busy and calls wait, or PROVER_BUSY: the proof server itself answered busy',
  },
  'balance-only': { routes: 'keyed', on503: SPONSORSHIP_503, on429: SPONSORSHIP_429 },
  'prove-and-balance': { routes: 'keyed', on503: SPONSORSHIP_503, on429: SPONSORSHIP_429 },
};

const PUBLIC_429 =
  "the per-IP limit of the public routes: raise the target's `rateLimit.publicLimit` (`NIGHTGATE_PUBLIC_RATE_LIMIT`, " +
  'requests per `rateLimit.windowMs` per client IP)';
const KEYED_429 =
  "the per-key limit: raise the target's `rateLimit.limit` (`NIGHTGATE_RATE_LIMIT`, requests per `rateLimit.windowMs` per " +
  "API key) or the key's own `rateLimit` in `auth.keys`";

export interface Refused {
  scenario: string;
  /** Answers of the scenario's runs against nightgate (connection errors and timeouts are no answers). */
  answers: number;
  refused: number;
  /** Refused answers by status, most first. */
  statuses: Array<[status: string, count: number]>;
}

const ok = (status: string): boolean => status === WRK_OK || /^2\d\d$/.test(status);

/** Scenarios, in the order they ran, whose load runs against nightgate got more than REFUSED_SHARE of their answers refused. */
export function refusedScenarios(ms: readonly Measurement[]): Refused[] {
  const by = new Map<string, { answers: number; statuses: Map<string, number> }>();
  for (const m of ms) {
    if (!m.load || !m.target.startsWith('nightgate')) continue;
    const s = by.get(m.scenario) ?? { answers: 0, statuses: new Map<string, number>() };
    for (const [status, n] of Object.entries(m.load.status)) {
      s.answers += n;
      if (!ok(status)) s.statuses.set(status, (s.statuses.get(status) ?? 0) + n);
    }
    by.set(m.scenario, s);
  }
  const out: Refused[] = [];
  for (const [scenario, s] of by) {
    const refused = [...s.statuses.values()].reduce((a, b) => a + b, 0);
    if (s.answers > 0 && refused / s.answers > REFUSED_SHARE)
      out.push({ scenario, answers: s.answers, refused, statuses: [...s.statuses].sort((a, b) => b[1] - a[1]) });
  }
  return out;
}

/** What refused with `status` in `scenario`, and which setting of the target to raise. */
export function whatRefused(scenario: string, status: string): string {
  const limits = SCENARIO_LIMITS[scenario];
  if (status === '429') {
    if (!limits) return `429: ${PUBLIC_429}; or ${KEYED_429}`;
    return `429: ${limits.routes === 'public' ? PUBLIC_429 : KEYED_429}${limits.on429 ? `; or ${limits.on429}` : ''}`;
  }
  if (status === '503') return `503: ${limits?.on503 ?? "the answers' `code` says which limit"}`;
  if (status === WRK_NOT_OK) return `${status}: wrk does not tell which status; run the scenario without wrk to see it`;
  if (status === '401') return '401: the routes need an API key the target accepts (`--key`)';
  return `${status}: not a limit of the target; the answers' \`code\` says why`;
}

const pct = (share: number): string => `${(share * 100).toFixed(1)} %`;
const int = (n: number): string => n.toLocaleString('en-US');

/** One line: `cached-summary: 97.0 % of 12,000 answers were refused (429 × 11,640): 429: the per-IP limit …`. */
export function refusalWarning(r: Refused): string {
  return (
    `${r.scenario}: ${pct(r.refused / r.answers)} of ${int(r.answers)} answers were refused (${r.statuses.map(([s, n]) => `${s} × ${int(n)}`).join(', ')}), ` +
    `so its figures measure the refusals, not the route. ${r.statuses.map(([s]) => whatRefused(r.scenario, s)).join('. ')}.`
  );
}
