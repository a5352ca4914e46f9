/**
 * The scenarios of `npm run bench` in their order, each announced on a progress line and its
 * failure recorded as a skipped row; then the peak RSS under load and the micro-benchmarks.
 */
import type { BenchArgs } from './args.js';
import { MICRO_BENCHES, runMicro } from './micro.js';
import { refusalWarning, refusedScenarios } from './refusals.js';
import type { RunSettings } from './run-settings.js';
import type { LocalServers } from './run-target.js';
import { headline, type Scenario, type ScenarioContext } from './scenario.js';
import { PIPELINED, ROUND, TARGETS, WRK, isPipelined } from './targets.js';
import type { Measurement } from './types.js';
import { wrkVersion } from './wrk.js';

/** One scenario, or scenarios run one connection level at a time, each level for all of them in turn. */
export type Step = Scenario | { interleaved: readonly Scenario[] };

export interface StepsRun {
  args: BenchArgs;
  settings: RunSettings;
  ctx: ScenarioContext;
  servers: LocalServers;
  /** Where every scenario's rows go, in the order they ran. */
  measurements: Measurement[];
  /** Run notes for the results. */
  notes: string[];
}

function finishLine(ms: readonly Measurement[]): string {
  const loads = ms.filter((m) => m.load);
  const best = loads.sort((a, b) => (b.load?.connections ?? 0) - (a.load?.connections ?? 0))[0] ?? ms.find((m) => m.figures) ?? ms[0];
  return best ? `${best.variant} [${best.target}] ${headline(best)}` : 'nothing measured';
}

async function runScenario(run: StepsRun, s: Scenario, c: ScenarioContext, label: string): Promise<void> {
  const {
    ctx: { target, log },
    servers,
    measurements,
  } = run;
  if (s.ownServer) await servers.stop(target);
  log(`▶ ${label}: ${s.title}`);
  const t0 = performance.now();
  try {
    const ms = await s.run(c);
    measurements.push(...ms);
    for (const r of refusedScenarios(ms)) log(`! ${refusalWarning(r)}`);
    log(`✓ ${label} (${((performance.now() - t0) / 1000).toFixed(1)} s): ${finishLine(ms)}`);
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0] ?? String(err);
    measurements.push({ scenario: s.id, variant: '–', target: '–', skipped: `failed: ${reason}` });
    log(`✗ ${label}: ${reason}`);
  }
}

/** Runs one scenario; `variantOf`, for the repeated rounds, renames the rows it added. */
async function runOne(run: StepsRun, s: Scenario, c: ScenarioContext, label: string, variantOf?: (m: Measurement) => string): Promise<void> {
  const from = run.measurements.length;
  await runScenario(run, s, c, label);
  if (variantOf) for (const m of run.measurements.slice(from)) m.variant = variantOf(m);
}

/** The interleaved scenarios at every connection level, then the targets' level in its repeated rounds. */
async function runInterleaved(run: StepsRun, chosen: readonly Scenario[]): Promise<void> {
  const { args, settings, ctx, measurements, notes } = run;
  for (const level of args.wrkOnly ? [] : settings.connectionLevels) {
    const atLevel = { ...ctx, settings: { ...settings, connectionLevels: [level] } };
    for (const s of chosen) await runOne(run, s, atLevel, `${s.id} c=${level}`);
  }
  // The targets' level again, interleaved, for a median: single runs on this shared 2-core
  // machine moved the ratios by a third from one run to the next.
  const level = TARGETS.cachedP99Connections;
  if (!settings.connectionLevels.includes(level)) return;
  const atLevel = { ...ctx, settings: { ...settings, connectionLevels: [level] } };
  for (let round = 2; round <= (args.wrkOnly ? 0 : settings.targetRounds); round++) {
    for (const s of chosen) await runOne(run, s, atLevel, `${s.id} c=${level} round ${round}`, (m) => `${m.variant} ${ROUND} ${round}`);
  }
  // Once more with pipelining, shown beside the targets, not judged: autocannon then spends
  // less per request, so the load generator caps the servers less (without it every server
  // here runs at about the rate one autocannon process drives on these two cores). At
  // depth 10 Fastify and node:http saturate their core; the uWS servers still do not.
  const depth = args.wrkOnly ? 0 : settings.pipelinedRoundDepth;
  if (depth > 1) {
    const piped = { ...ctx, settings: { ...settings, connectionLevels: [level], pipelining: depth } };
    for (const s of chosen) await runOne(run, s, piped, `${s.id} c=${level} ${PIPELINED} ${depth}`, (m) => `${m.variant} ${PIPELINED} ${depth}`);
  }
  // And with wrk as the load generator, judged on its own medians: wrk (C, epoll) spends far
  // less per request than autocannon, so the servers, not the generator, set the rate
  // (raw uWS: 22–25 k req/s under autocannon, 65–90 k under wrk on this machine).
  if (settings.wrkRounds <= 0) return;
  const wrk = wrkVersion();
  if (!wrk) {
    const why = 'wrk is not installed (Debian: apt-get install wrk), so the rounds without autocannon as the limit did not run';
    measurements.push({ scenario: 'cached-summary', variant: `c=${level} ${WRK}`, target: 'nightgate', skipped: why });
    ctx.log(`- c=${level} ${WRK}: ${why}`);
    return;
  }
  notes.push(`the \`${WRK}\` rounds: ${wrk}, one thread, ${settings.shortDurationS} s each after ${settings.warmupS} s of warm-up`);
  const viaWrk = { ...ctx, settings: { ...settings, connectionLevels: [level], durationS: settings.shortDurationS, generator: 'wrk' as const } };
  for (let round = 1; round <= settings.wrkRounds; round++) {
    // A run that failed is named for its round too, so the wrk targets can say why.
    // Every other round the other order, so what the order does falls on both sides.
    for (const s of round % 2 === 0 ? [...chosen].reverse() : chosen)
      await runOne(
        run,
        s,
        viaWrk,
        `${s.id} c=${level} ${WRK} round ${round}`,
        (m) => `${m.skipped ? `c=${level}` : m.variant} ${WRK}${round > 1 ? ` ${ROUND} ${round}` : ''}`,
      );
  }
}

/** Every step the command line chose; against a deployment, the local-only ones as skipped rows. */
export async function runSteps(run: StepsRun, steps: readonly Step[]): Promise<void> {
  const { args, ctx } = run;
  for (const step of steps) {
    const chosen = ('interleaved' in step ? step.interleaved : [step]).filter((s) => {
      if (args.only && !args.only.has(s.id)) return false;
      if (ctx.target.kind === 'remote' && s.localOnly) {
        run.measurements.push({ scenario: s.id, variant: '–', target: '–', skipped: 'needs processes on this machine (not run against --url)' });
        ctx.log(`- ${s.id}: skipped against --url`);
        return false;
      }
      return true;
    });
    if ('interleaved' in step && chosen.length > 1) await runInterleaved(run, chosen);
    else for (const s of chosen) await runOne(run, s, ctx, s.id);
  }
}

/**
 * The highest RSS the main server reached during any load run (its pid is sampled every 200 ms),
 * the pipelined round (ten times the requests in flight) aside.
 */
export function peakRssUnderLoad(ms: readonly Measurement[]): Measurement | undefined {
  let peak: Measurement | undefined;
  for (const m of ms) {
    const rss = m.load?.rssMaxMiB;
    if (m.target !== 'nightgate' || m.scenario === 'upstream-prove' || isPipelined(m) || rss === undefined) continue;
    if (!peak || rss > (peak.load?.rssMaxMiB ?? 0)) peak = m;
  }
  return (
    peak && {
      scenario: 'process-under-load',
      variant: 'peak',
      target: 'process',
      figures: { peakRssMiB: peak.load?.rssMaxMiB ?? null, during: `${peak.scenario} ${peak.variant}` },
    }
  );
}

/** The micro-benchmarks, on this machine only: against a deployment, skipped rows. */
export async function runMicros(run: StepsRun): Promise<void> {
  const {
    args,
    settings,
    ctx: { target, processes, log },
    measurements,
  } = run;
  if (target.kind === 'local') {
    // Single-thread figures need a quiet machine: scenarios may leave servers of their own
    // (devnets producing blocks) running until the end: 3.18 M allocator pairs/s in a full run
    // against 5.27 M/s when the allocator ran alone.
    await processes.stopAll();
    for (const id of MICRO_BENCHES) {
      if (args.only && !args.only.has(`micro-${id}`)) continue;
      log(`▶ micro-${id}`);
      const m = await runMicro(id, { quick: args.quick, durationMs: settings.microMs });
      measurements.push(m);
      log(`${m.skipped ? '-' : '✓'} micro-${id}: ${headline(m)}`);
    }
  } else {
    for (const id of MICRO_BENCHES) {
      if (!args.only || args.only.has(`micro-${id}`))
        measurements.push({ scenario: `micro-${id}`, variant: '–', target: '–', skipped: 'measures this machine, not the target (not run against --url)' });
    }
  }
}
