/** bench/RESULTS.md: one run's targets, ratios against its baselines, every load run and figure. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR } from './paths.js';
import { refusalWarning, refusedScenarios } from './refusals.js';
import { describeScope, runScope } from './run-scope.js';
import { PIPELINED, WRK, isPipelined, isWrk, ratios } from './targets.js';
import type { BenchResults, Measurement } from './types.js';

const PROFILING_LOG = join(BENCH_DIR, 'profiling.md');

const n = (v: number, d = 2): string => v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const int = (v: number): string => Math.round(v).toLocaleString('en-US');
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const BASELINE_NAMES: Record<string, string> = {
  'raw-uws': 'raw uWS',
  'raw-uws-address': 'raw uWS + client address',
  fastify: 'Fastify',
  'node-http': 'node:http',
};

function statuses(m: Measurement): string {
  return (
    Object.entries(m.load?.status ?? {})
      .map(([c, k]) => `${c}×${k}`)
      .join(' ') || '–'
  );
}

/** What the pipelined rows are, when the run has them. */
function pipelinedNote(r: BenchResults): string {
  const m = r.measurements.find((x) => isPipelined(x) && x.load?.pipelining !== undefined);
  if (!m?.load) return '';
  return (
    ` Rows marked \`${m.variant.slice(m.variant.indexOf(PIPELINED))}` +
    `\` repeat the comparison at ${m.load.connections}` +
    ` connections with ${m.load.pipelining} requests in flight on each (HTTP/1.1 pipelining), ` +
    `which costs autocannon less per request, so that the load generator ` +
    `caps the servers less; they are shown, not judged (the targets are about clients that do not pipeline). Whether a server ` +
    `ran at its own limit shows in its main-thread CPU per request × requests per second.`
  );
}

/** What the wrk rows are, when the run has them. */
function wrkNote(r: BenchResults): string {
  const m = r.measurements.find((x) => isWrk(x) && x.load);
  if (!m?.load) return '';
  return (
    ` Rows marked \`${WRK}\` repeat the comparison at ${m.load.connections}` +
    ` connections with wrk as the load generator (a C program in its own process) instead of autocannon, which needs about a ` +
    `core of its own for the rate the uWS servers serve and so caps them on this machine; the targets are judged on these ` +
    `rounds too, separately ("${WRK}" in their names). In these rounds one more baseline runs: raw uWS + client address, the raw handler plus the ` +
    `\`getRemoteAddress()\` call nightgate makes on every request (per-IP rate limit, closed-socket check), which this uWS ` +
    `build answers with a \`getpeername\` system call and a new ArrayBuffer each time.`
  );
}

function cachedTable(r: BenchResults): string[] {
  const rs = ratios(r.measurements);
  const levels = [
    ...new Set(
      r.measurements
        .filter((m) => m.scenario.startsWith('cached-') || m.scenario === 'baselines')
        .map((m) => m.load?.connections)
        .filter((c): c is number => c !== undefined),
    ),
  ].sort((a, b) => a - b);
  if (levels.length === 0) return [];
  // The ratio columns: every baseline the run measured, in the order of BASELINE_NAMES.
  const measured = new Set(r.measurements.filter((m) => m.scenario === 'baselines' && m.load).map((m) => m.target));
  const baselines = [...Object.keys(BASELINE_NAMES).filter((b) => measured.has(b)), ...[...measured].filter((b) => !(b in BASELINE_NAMES))];
  const lines = [
    '## Cached statistics routes against the baselines',
    '',
    "Ratios are the summary route's throughput over each baseline's at the same connection count; in brackets, the same ratio " +
      "in CPU time of the server's main (HTTP) thread per request (baseline µs ÷ ours; nightgate's devnet and worker threads " +
      'not counted), which load from other processes distorts least. Every baseline serves the same body and headers. ' +
      "Background is the CPU that nightgate's threads other than the HTTP one used during the run, in % of one core: chiefly " +
      "its devnets' block production and the DUST sync following them (during its own runs also its garbage collector's helper " +
      'threads, ≈ 2 % of a core at 100 connections); nightgate stays up, idle, while the baselines run, so every server shares ' +
      'it. It moves with how many blocks fall inside a run.' +
      pipelinedNote(r) +
      wrkNote(r),
    '',
    `| connections | server | route | req/s | p50 ms | p99 ms | main-thread CPU µs/req | ` +
      `background % core | ${baselines.map((b) => `× ${BASELINE_NAMES[b] ?? b}`).join(' | ')}` +
      ` |`,
    `|---:|---|---|---:|---:|---:|---:|---:|${baselines.map(() => '---:|').join('')}`,
  ];
  for (const c of levels) {
    const rows = r.measurements.filter((m) => m.load?.connections === c && (m.scenario.startsWith('cached-') || m.scenario === 'baselines'));
    // autocannon's rounds, then the pipelined round, then wrk's; fastest first within each.
    const group = (m: Measurement): number => (isWrk(m) ? 2 : isPipelined(m) ? 1 : 0);
    rows.sort((a, b) => group(a) - group(b) || (b.load?.rps ?? 0) - (a.load?.rps ?? 0));
    for (const m of rows) {
      const l = m.load;
      if (!l) continue;
      const ours = m.scenario === 'cached-summary';
      const ratio = (b: string): string => {
        if (!ours) return '';
        const x = rs.find((y) => y.ours === m.target && y.variant === m.variant && y.baseline === b);
        if (x?.ratio === undefined) return '–';
        return `${n(x.ratio)}${x.cpuRatio === undefined ? '' : ` (${n(x.cpuRatio)})`}${x.why ? ` (${x.why})` : ''}`;
      };
      // What the variant adds to the connection count: a round (`round 2`), the pipelined round.
      const level = `c=${c}`;
      const qualifier = m.variant.startsWith(level) ? m.variant.slice(level.length).trim() : m.variant;
      const server =
        `${m.scenario === 'baselines' ? (BASELINE_NAMES[m.target] ?? m.target) : m.target === 'nightgate-defaults' ? 'nightgate, defaults' : 'nightgate'}` +
        `${qualifier ? ` (${qualifier}` + `)` : ''}`;
      const route = m.scenario === 'cached-mix' ? 'all cached routes' : m.scenario === 'cached-latest-block' ? 'latest-block' : 'summary';
      const cpu = l.serverCpuUsPerRequest === undefined ? '–' : n(l.serverCpuUsPerRequest);
      const background = l.backgroundCorePct === undefined ? '–' : n(l.backgroundCorePct, 1);
      lines.push(
        `| ${c} | ${server} | ${route} | ${int(l.rps)} | ${n(l.latencyMs.p50)}` +
          ` | ${n(l.latencyMs.p99)}` +
          ` | ${cpu}` +
          ` | ${background}` +
          ` | ${baselines.map(ratio).join(' | ')}` +
          ` |`,
      );
    }
  }
  return [...lines, ''];
}

/** Before any figure: the scenarios whose answers were mostly refused, which measure the target's limits instead. */
function refusalLines(r: BenchResults): string[] {
  return refusedScenarios(r.measurements).flatMap((x) => [`> **Warning**: ${refusalWarning(x)}`, '']);
}

/** `chart`: path of the SVG relative to the report, when the run has one. */
export function renderMarkdown(r: BenchResults, jsonFile: string, chart?: string): string {
  const { run } = r;
  const m = run.machine;
  const loads = r.measurements.filter((x) => x.load);
  const figures = r.measurements.filter((x) => x.figures);
  const skipped = r.measurements.filter((x) => x.skipped);
  const lines = [
    '# nightgate benchmark results',
    '',
    '<!-- Written by `npm run bench` (bench/run.ts); regenerated on every run. -->',
    '',
    ...refusalLines(r),
    `- **run**: ${run.startedAt} → ${run.finishedAt}, ${describeScope(runScope(r))}` +
      `, ${run.targetKind === 'local' ? 'local server started by the bench' : `deployment at ${run.url ?? '?'}`}`,
    `- **commit**: \`${run.commit}\`${run.dirty ? ' (uncommitted changes present)' : ''}`,
    `- **machine**: ${m.cpuModel}, ${m.cores} cores, ${int(m.memoryMiB)} MiB, Linux ${m.kernel}, Node ${m.node}, uWS from ${m.uws}`,
    `- **raw figures**: \`${jsonFile}\``,
    '',
    '**How it was measured.** Load comes from autocannon 9 running inside the bench runner process (and, for the rounds ' +
      'marked `wrk`, from a wrk process); every server under test (nightgate, each baseline, the stand-in prover) runs in its ' +
      'own process on 127.0.0.1. ' +
      `On this ${m.cores}-core machine the load generator and the server compete for the same cores, so absolute figures are lower than on a ` +
      `machine with a separate load generator; the ratios compare servers under identical conditions in the same run. ` +
      'Latency percentiles are recorded per response at 1 µs resolution (with `--rate`, without coordinated-omission ' +
      'correction). Every run but the one-transaction-each sponsorship runs is preceded by an unmeasured warm-up. ' +
      'RSS is VmRSS of the server process from /proc. The event-loop delay is measured inside the server process: the bench ' +
      'starts nightgate through bench/probes/loop-delay.ts, which installs `perf_hooks.monitorEventLoopDelay` and then runs the ' +
      'real entry (src/cli serve), and reads it over IPC after an idle window in which the devnets produce blocks.',
    '',
    ...run.notes.map((x) => `- ${x}`),
    ...(run.notes.length ? [''] : []),
    '**Server settings** (beyond the defaults): ' +
      (Object.entries(run.server)
        .map(([k, v]) => `\`${k}=${v}\``)
        .join(', ') || 'none'),
    '',
    '## Targets (bench/lib/targets.ts)',
    '',
    '| target | threshold | measured | verdict | note |',
    '|---|---|---|---|---|',
    ...r.targets.map(
      (t) =>
        `| ${cell(t.name)} | ${cell(t.threshold)} | ${cell(t.measured)}` +
        ` | ${t.verdict === 'pass' ? '✅ pass' : t.verdict === 'fail' ? '❌ fail' : 'n/a'}` +
        ` | ${cell(t.note ?? '')}` +
        ` |`,
    ),
    '',
    ...cachedTable(r),
    ...(chart ? [`![throughput and p99 latency against the baselines](${chart})`, ''] : []),
    '## Every load run',
    '',
    '| scenario | variant | server | conns | responses | req/s | p50 ms | p99 ms | max ms | statuses | peak RSS MiB | notes |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|',
    ...loads.map((x) => {
      const l = x.load as NonNullable<Measurement['load']>;
      return (
        `| ${x.scenario} | ${x.variant} | ${x.target} | ${l.connections}` +
        ` | ${int(l.responses)}` +
        ` | ${int(l.rps)}` +
        ` | ${n(l.latencyMs.p50)}` +
        ` | ${n(l.latencyMs.p99)}` +
        ` | ${n(l.latencyMs.max)}` +
        ` | ${statuses(x)}` +
        `${l.errors ? `, ${l.errors}` + ` errors` : ''}` +
        ` | ${l.rssMaxMiB !== undefined ? int(l.rssMaxMiB) : ''}` +
        ` | ${cell((x.notes ?? []).join('; '))}` +
        ` |`
      );
    }),
    '',
  ];
  if (figures.length) {
    lines.push('## Other figures', '', '| scenario | figure | value |', '|---|---|---:|');
    for (const x of figures) {
      for (const [k, v] of Object.entries(x.figures ?? {})) lines.push(`| ${x.scenario} | ${k} | ${typeof v === 'number' ? n(v) : String(v)} |`);
      for (const note of x.notes ?? []) lines.push(`| ${x.scenario} | note | ${cell(note)} |`);
    }
    lines.push('');
  }
  if (skipped.length) {
    lines.push('## Not measured in this run', '');
    for (const x of skipped) lines.push(`- **${x.scenario}** (${x.variant}): ${x.skipped}`);
    lines.push('');
  }
  lines.push('Compare two runs: `npx tsx bench/compare.ts [OLD.json NEW.json]` (default: the two newest in bench/results).', '');
  // The profiling log is written by hand (what was missed, what the profile showed, what changed,
  // before → after) and carried into every regenerated report.
  if (existsSync(PROFILING_LOG)) lines.push(readFileSync(PROFILING_LOG, 'utf8').trimEnd(), '');
  return lines.join('\n');
}
