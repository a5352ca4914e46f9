/**
 * `npm run bench` (compiled: `node dist/bench/run.js`; from source: `npx tsx bench/run.ts`).
 *
 * Starts the real server (`src/cli serve`) in its own process on a free loopback port — or, with
 * `--url`, load-tests a deployment — runs every scenario in bench/scenarios in order, then the
 * micro-benchmarks, and writes bench/results/<timestamp>-<commit>.json, bench/RESULTS.md and
 * bench/results/latest.svg. One progress line per scenario start and finish (and per load run).
 * Every process it starts is stopped by pid at the end, on error, and on SIGINT/SIGTERM.
 */
import { loadavg } from 'node:os';
import { ArgsError, USAGE, parseArgs, type BenchArgs } from './lib/args.js';
import { SharedFixtures } from './lib/fixtures.js';
import { commitInfo, machineInfo } from './lib/machine.js';
import { MICRO_BENCHES } from './lib/micro.js';
import { profileInto } from './lib/nightgate.js';
import { ProcessGroup } from './lib/processes.js';
import { logOutcome, writeReports } from './lib/run-report.js';
import { selectionOf, settingsFor } from './lib/run-settings.js';
import { peakRssUnderLoad, runMicros, runSteps, type Step } from './lib/run-steps.js';
import { openTarget } from './lib/run-target.js';
import { createContext, type Scenario } from './lib/scenario.js';
import { evaluateTargets } from './lib/targets.js';
import type { BenchResults, Measurement } from './lib/types.js';
import { scenario as balanceOnly } from './scenarios/balance-only.js';
import { scenario as baselines } from './scenarios/baselines.js';
import { scenario as cachedLatestBlock } from './scenarios/cached-latest-block.js';
import { scenario as cachedMix } from './scenarios/cached-mix.js';
import { scenario as cachedSummary } from './scenarios/cached-summary.js';
import { scenario as idleProcess } from './scenarios/idle-process.js';
import { scenario as lookupBlock } from './scenarios/lookup-block.js';
import { scenario as lookupSearch } from './scenarios/lookup-search.js';
import { scenario as lookupTransaction } from './scenarios/lookup-transaction.js';
import { scenario as proveAndBalance } from './scenarios/prove-and-balance.js';
import { scenario as proveCacheHit } from './scenarios/prove-cache-hit.js';
import { scenario as upstreamProve } from './scenarios/upstream-prove.js';
import { scenario as verifyCacheHit } from './scenarios/verify-cache-hit.js';

/**
 * Run order: the idle figures first (before any load has grown the heap); the summary route and
 * its baselines interleaved one connection level at a time, so each ratio compares runs taken
 * seconds apart; the scenarios with their own server last, after the main server has stopped, so
 * nothing else runs on the machine while they measure.
 */
const STEPS: readonly Step[] = [
  idleProcess,
  { interleaved: [cachedSummary, baselines] },
  cachedLatestBlock,
  cachedMix,
  lookupBlock,
  lookupTransaction,
  lookupSearch,
  proveCacheHit,
  verifyCacheHit,
  balanceOnly,
  proveAndBalance,
  upstreamProve,
];
const SCENARIOS: readonly Scenario[] = STEPS.flatMap((step) => ('interleaved' in step ? step.interleaved : [step]));

const BUSY_LOAD_AVERAGE = 0.5;

const log = (line: string): void => void process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof ArgsError) {
      process.stderr.write(`bench: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  const ids = [...SCENARIOS.map((s) => s.id), ...MICRO_BENCHES.map((id) => `micro-${id}`)];
  if (args.help) {
    log(`${USAGE}\n\nscenario ids: ${ids.join(', ')}`);
    return 0;
  }
  const unknown = [...(args.only ?? [])].filter((id) => !ids.includes(id));
  if (unknown.length) {
    process.stderr.write(`bench: --only: unknown scenario ${unknown.join(', ')}; known: ${ids.join(', ')}\n`);
    return 2;
  }

  if (args.cpuProfDir !== undefined) {
    if (args.url !== undefined) {
      process.stderr.write('bench: --cpu-prof profiles the local server; it cannot be used with --url\n');
      return 2;
    }
    profileInto(args.cpuProfDir);
  }
  const group = new ProcessGroup();
  let fixtures: SharedFixtures | undefined;
  const interrupt = (signal: NodeJS.Signals): void => {
    log(`\n! ${signal}: stopping every process the bench started`);
    // The inputs were read when the processes started: remove them now, in case a wrapper (npx, tsx) kills us first.
    fixtures?.cleanup();
    void group.stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('exit', () => {
    group.killAllNow();
    fixtures?.cleanup();
  });

  const settings = settingsFor(args);
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0] ?? 0;
  const { commit, dirty } = commitInfo();
  const machine = machineInfo();
  const selection = selectionOf(args);
  // What the run will cover; whether it was full is known only at its end (a scenario may fail).
  const plan = [...(args.quick ? ['quick'] : []), selection ?? (args.url ? 'every scenario but the local-only ones' : 'every scenario')].join(', ');
  log(`nightgate bench · ${plan} · commit ${commit}${dirty ? '+' : ''} · ${machine.cpuModel} ×${machine.cores} · Node ${machine.node}`);
  if (loadAtStart > BUSY_LOAD_AVERAGE) log(`! the machine is busy (1-minute load average ${loadAtStart.toFixed(1)}): figures will be skewed`);

  const measurements: Measurement[] = [];
  const runNotes: string[] = [];
  let serverSettings: Record<string, string> = {};
  try {
    const opened = await openTarget(group, args, runNotes, log);
    const { target, servers } = opened;
    serverSettings = opened.settings;
    fixtures = new SharedFixtures(target);
    const ctx = createContext({ target, settings, processes: group, fixtures, log });
    const run = { args, settings, ctx, servers, measurements, notes: runNotes };
    await runSteps(run, STEPS);
    await servers.stop(target);
    const underLoad = peakRssUnderLoad(measurements);
    if (underLoad) measurements.push(underLoad);
    await runMicros(run);
  } finally {
    await group.stopAll();
    fixtures?.cleanup();
  }

  const loadAtEnd = loadavg()[0] ?? 0;
  // Before the bench starts anything, more than half a core busy means other work shares the machine.
  if (loadAtStart > BUSY_LOAD_AVERAGE) {
    runNotes.push(
      `the machine was busy before the run (1-minute load average ${loadAtStart.toFixed(1)}` +
        ` on ${machine.cores}` +
        ` cores): other processes competed with the benchmark and every figure is skewed`,
    );
  }
  const results: BenchResults = {
    run: {
      startedAt,
      finishedAt: new Date().toISOString(),
      commit,
      dirty,
      machine,
      mode: args.quick ? 'quick' : 'full',
      ...(selection ? { selection } : {}),
      targetKind: args.url ? 'remote' : 'local',
      ...(args.url ? { url: args.url } : {}),
      loadAverage: { start: loadAtStart, end: loadAtEnd },
      server: serverSettings,
      notes: runNotes,
    },
    measurements,
    targets: evaluateTargets(measurements),
  };
  const complete = !args.url && !selection && !args.quick;
  logOutcome(results, writeReports(results, complete), log);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
