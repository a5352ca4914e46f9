import t from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR } from '../../../bench/lib/paths.js';
import { REFUSED_SHARE, SCENARIO_LIMITS, refusalWarning, refusedScenarios, whatRefused } from '../../../bench/lib/refusals.js';
import { renderMarkdown } from '../../../bench/lib/report-markdown.js';
import type { BenchResults, LoadFigures, Measurement } from '../../../bench/lib/types.js';
import { WRK_NOT_OK, WRK_OK } from '../../../bench/lib/wrk.js';
import { benchResults } from '../../fixtures/bench/bench-results.js';

const load = (status: Record<string, number>): LoadFigures => {
  const responses = Object.values(status).reduce((a, b) => a + b, 0);
  return {
    connections: 10,
    durationS: 10,
    responses,
    rps: responses / 10,
    latencyMs: { p50: 1, p90: 1, p99: 2, max: 3, mean: 1 },
    status,
    errors: 0,
    timeouts: 0,
  };
};
const run = (scenario: string, status: Record<string, number>, target = 'nightgate', variant = 'c=10'): Measurement => ({
  scenario,
  variant,
  target,
  load: load(status),
});

/** A full run against a deployment (`--url`). */
const results = (measurements: Measurement[]): BenchResults => benchResults({ targetKind: 'remote', url: 'https://gw.example' }, measurements);

t.test('a scenario whose answers were mostly 429 on public routes names the per-IP limit', async (t) => {
  const refused = refusedScenarios([
    run('cached-summary', { 200: 30, 429: 970 }, 'nightgate', 'c=1'),
    run('cached-summary', { 200: 100, 429: 900 }, 'nightgate', 'c=100'),
  ]);
  t.same(refused, [{ scenario: 'cached-summary', answers: 2000, refused: 1870, statuses: [['429', 1870]] }], 'the runs of one scenario add up');
  t.equal(
    refusalWarning(refused[0]!),
    'cached-summary: 93.5 % of 2,000 answers were refused (429 × 1,870), so its figures measure the refusals, not the route. ' +
      "429: the per-IP limit of the public routes: raise the target's `rateLimit.publicLimit` (`NIGHTGATE_PUBLIC_RATE_LIMIT`, " +
      'requests per `rateLimit.windowMs` per client IP).',
  );
});

t.test('429 on keyed routes names the per-key limit; 503 names what refuses there', async (t) => {
  t.equal(
    whatRefused('prove-cache-hit', '429'),
    "429: the per-key limit: raise the target's `rateLimit.limit` (`NIGHTGATE_RATE_LIMIT`, requests per `rateLimit.windowMs` " +
      "per API key) or the key's own `rateLimit` in `auth.keys`",
  );
  t.equal(
    whatRefused('prove-cache-hit', '503'),
    '503: QUEUE_FULL: every prover worker is busy and `prover.queueSize` (`NIGHTGATE_PROVER_QUEUE_SIZE`) tasks wait (or raise `prover.threads`)',
  );
  t.match(
    whatRefused('prove-and-balance', '429'),
    /`rateLimit\.limit`.*; or RESERVATION_LIMIT: the key holds `dust\.maxReservationsPerKey` DUST UTXOs; DUST_BUDGET_EXCEEDED: the key spent `dust\.budget`$/,
  );
  t.match(whatRefused('prove-and-balance', '503'), /^503: NO_DUST_AVAILABLE: .*`dust\.maxInFlight` \(`NIGHTGATE_DUST_MAX_IN_FLIGHT`\)/);
  t.match(whatRefused('lookup-search', '503'), /`stats\.maxAddressStreams`/);
  t.match(whatRefused('lookup-block', '503'), /^503: NOT_READY: /);
  t.match(whatRefused('a-new-scenario', '429'), /`rateLimit\.publicLimit`.*; or .*`rateLimit\.limit`/, 'an unknown scenario names both limits');
  t.equal(whatRefused('lookup-block', WRK_NOT_OK), `${WRK_NOT_OK}: wrk does not tell which status; run the scenario without wrk to see it`);

  const [mixed] = refusedScenarios([run('prove-cache-hit', { 200: 10, 429: 30, 503: 60 })]);
  t.equal(
    refusalWarning(mixed!),
    'prove-cache-hit: 90.0 % of 100 answers were refused (503 × 60, 429 × 30), so its figures measure the refusals, not the route. ' +
      `${whatRefused('prove-cache-hit', '503')}. ${whatRefused('prove-cache-hit', '429')}.`,
    'every refusing status, the most frequent first',
  );
});

t.test('no warning at half refused or less, for other servers, or for answers wrk counted as 2xx/3xx', async (t) => {
  t.equal(REFUSED_SHARE, 0.5);
  t.same(refusedScenarios([run('cached-mix', { 200: 50, 429: 50 })]), []);
  t.same(refusedScenarios([run('baselines', { 503: 100 }, 'raw-uws')]), [], 'a baseline is not the target');
  t.same(refusedScenarios([run('cached-summary', { [WRK_OK]: 100 })]), []);
  t.same(refusedScenarios([{ scenario: 'lookup-block', variant: 'cold', target: 'nightgate', skipped: 'no keys' }]), []);
  t.same(
    refusedScenarios([run('cached-summary', { [WRK_NOT_OK]: 99, [WRK_OK]: 1 }, 'nightgate-defaults')]).map((r) => r.scenario),
    ['cached-summary'],
  );
});

t.test('the report warns before its run line and its targets', async (t) => {
  const md = renderMarkdown(results([run('cached-summary', { 200: 3, 429: 97 })]), 'results/x.json');
  const lines = md.split('\n');
  const warning = lines.findIndex((l) => l.startsWith('> **Warning**: cached-summary: 97.0 % of 100 answers were refused (429 × 97)'));
  t.ok(warning > 0, 'the warning is there');
  t.ok(warning < lines.findIndex((l) => l.startsWith('- **run**:')), 'before the run line');
  t.ok(warning < lines.findIndex((l) => l.startsWith('## Targets')), 'before the targets');
  t.notMatch(renderMarkdown(results([run('cached-summary', { 200: 100 })]), 'results/x.json'), /Warning/);
});

t.test('every scenario that loads a nightgate route says which limits it passes', async (t) => {
  // These load no nightgate route: the baselines serve their own, idle-process measures an idle server.
  const noRoute = new Set(['baselines', 'idle-process']);
  const ids = readdirSync(join(BENCH_DIR, 'scenarios'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3));
  t.same(
    ids.filter((id) => !noRoute.has(id) && !(id in SCENARIO_LIMITS)),
    [],
  );
  t.same(
    Object.keys(SCENARIO_LIMITS).filter((id) => !ids.includes(id)),
    [],
    'no entry for a scenario that is gone',
  );
});
