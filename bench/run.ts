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
import { writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ArgsError, USAGE, parseArgs, type BenchArgs } from './lib/args.js';
import { SharedFixtures } from './lib/fixtures.js';
import { getJson } from './lib/http.js';
import { isEra } from '../src/infra/ledger/index.js';
import { LoopDelayClient } from './lib/loop-delay-client.js';
import { commitInfo, machineInfo } from './lib/machine.js';
import { MICRO_BENCHES, runMicro } from './lib/micro.js';
import { LOCAL_LOOKUP_CACHE_SIZE } from './lib/lookups.js';
import { baseEnv, benchKey, closedPort, profileInto, sponsorSeeds, startNightgate, withoutDevnet } from './lib/nightgate.js';
import { BENCH_DIR, RESULTS_DIR } from './lib/paths.js';
import { ProcessGroup, type Started } from './lib/processes.js';
import { refusalWarning, refusedScenarios } from './lib/refusals.js';
import { renderMarkdown } from './lib/report-markdown.js';
import { renderSvg } from './lib/report-svg.js';
import { writeFullReport } from './lib/results-section.js';
import { writeResults } from './lib/results-file.js';
import { describeScope, runScope } from './lib/run-scope.js';
import { createContext, headline, type DevnetNetwork, type Scenario, type ScenarioContext, type Settings, type Target } from './lib/scenario.js';
import { PIPELINED, ROUND, TARGETS, WRK, evaluateTargets, isPipelined } from './lib/targets.js';
import { wrkVersion } from './lib/wrk.js';
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
type Step = Scenario | { interleaved: readonly Scenario[] };
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

const SETTINGS = {
  quick: { durationS: 1, shortDurationS: 1, warmupS: 0.3, idleWindowS: 7, microMs: 1000, targetRounds: 1, pipelinedRoundDepth: 0, wrkRounds: 0 },
  full: { durationS: 8, shortDurationS: 5, warmupS: 1, idleWindowS: 20, microMs: 3000, targetRounds: 3, pipelinedRoundDepth: 10, wrkRounds: 3 },
} as const;
const CONNECTION_LEVELS = [1, 10, 100] as const;
const SINGLE_LEVEL_CONNECTIONS = 10;
const PROVER_THREADS = 2;
const BUSY_LOAD_AVERAGE = 0.5;

const log = (line: string): void => void process.stdout.write(`${line}\n`);

function settingsFor(args: BenchArgs): Settings & { microMs: number; pipelinedRoundDepth: number; wrkRounds: number } {
  const base = SETTINGS[args.quick ? 'quick' : 'full'];
  return {
    durationS: args.durationS ?? base.durationS,
    shortDurationS: args.durationS ?? base.shortDurationS,
    warmupS: base.warmupS,
    connectionLevels: args.connections ? [args.connections] : CONNECTION_LEVELS,
    connections: args.connections ?? SINGLE_LEVEL_CONNECTIONS,
    ...(args.rate ? { rate: args.rate } : {}),
    idleWindowS: base.idleWindowS,
    microMs: base.microMs,
    // Against a deployment every run is as long as the operator said: no repeats.
    targetRounds: args.url ? 1 : base.targetRounds,
    pipelinedRoundDepth: args.url ? 0 : base.pipelinedRoundDepth,
    wrkRounds: args.url ? 0 : args.rounds ?? base.wrkRounds,
  };
}

/**
 * Embedded devnet endpoints from GET /health (`components.devnet.networks`: shown with a key
 * only), each with the ledger era it runs (`components.ledger.networks`).
 */
async function devnetFromHealth(baseUrl: string, apiKey: string | undefined): Promise<Map<string, DevnetNetwork>> {
  const out = new Map<string, DevnetNetwork>();
  const { json } = await getJson(`${baseUrl}/health`, 10_000, apiKey ? { 'x-api-key': apiKey } : undefined).catch(() => ({ json: undefined }));
  const components = (json as { components?: { devnet?: { networks?: Record<string, Partial<DevnetNetwork>> }; ledger?: { networks?: Record<string, { era?: unknown }> } } } | undefined)?.components;
  const networks = components?.devnet?.networks ?? {};
  for (const [name, n] of Object.entries(networks)) {
    if (typeof n.graphqlUrl === 'string' && typeof n.graphqlWsUrl === 'string' && typeof n.networkId === 'string') {
      const era = components?.ledger?.networks?.[name]?.era;
      out.set(name, { name, networkId: n.networkId, graphqlUrl: n.graphqlUrl, graphqlWsUrl: n.graphqlWsUrl, ...(isEra(era) ? { era } : {}) });
    }
  }
  return out;
}

interface LocalServer {
  server: Started;
  settings: Record<string, string>;
  notes: string[];
}

/** The main server under test; without a working devnet, the same server on no devnet (said loudly). */
async function startLocal(group: ProcessGroup, args: BenchArgs, apiKey: string): Promise<LocalServer> {
  const env: Record<string, string> = {
    ...baseEnv(apiKey),
    NIGHTGATE_STATS_CACHE_SIZE: String(LOCAL_LOOKUP_CACHE_SIZE),
    NIGHTGATE_PROVER_THREADS: String(PROVER_THREADS),
    NIGHTGATE_DUST_WALLET_SEEDS: sponsorSeeds(args.sponsorWallets).join(','),
  };
  const shown = (e: Record<string, string>): Record<string, string> => ({ ...e, NIGHTGATE_API_KEYS: '<bench key>', NIGHTGATE_DUST_WALLET_SEEDS: `<${args.sponsorWallets} bench seeds>` });
  const noDevnet = async (): Promise<Record<string, string>> => {
    const port = await closedPort();
    return { ...env, ...withoutDevnet(port, `http://127.0.0.1:${port}`) };
  };
  if (!args.devnet) {
    const e = await noDevnet();
    return { server: await startNightgate(group, 'nightgate', e, { probe: true }), settings: shown(e), notes: ['--no-devnet: no embedded devnet; lookups and sponsorship are not measurable'] };
  }
  try {
    return { server: await startNightgate(group, 'nightgate', env, { probe: true }), settings: shown(env), notes: [] };
  } catch (err) {
    const reason = (err as Error).message.split('\n').slice(0, 4).join(' / ');
    log(`! nightgate did not start with its embedded devnet: ${reason}`);
    log('! falling back to a server without devnet (every network on a closed indexer port); results say so');
    const e = await noDevnet();
    return {
      server: await startNightgate(group, 'nightgate', e, { probe: true }),
      settings: shown(e),
      notes: [`FALLBACK: the server could not start with its embedded devnet (${reason}); it ran without devnet, so lookups, sponsorship and block-production figures are not measured`],
    };
  }
}

/**
 * A nightgate apart from the main server, reading its embedded devnets as its indexers (no devnet
 * or DUST sync of its own, so the machine carries one chain, not two): the shipped defaults (access
 * log on, per-IP limit on, raised so nothing is refused), or with `tuned` the bench's tuned
 * settings (access log off). Undefined, with a note, when there is no devnet to read.
 */
async function startApart(group: ProcessGroup, apiKey: string, devnet: ReadonlyMap<string, DevnetNetwork>, notes: string[], tuned = false): Promise<{ started: Started; settings: Record<string, string> } | undefined> {
  if (devnet.size === 0) {
    notes.push(`no devnet to read: the ${tuned ? 'tuned' : 'defaults'} configuration was not measured apart`);
    return undefined;
  }
  const { NIGHTGATE_LOG_REQUESTS: logRequests, ...env } = baseEnv(apiKey);
  if (tuned) Object.assign(env, { NIGHTGATE_LOG_REQUESTS: logRequests });
  const prover = `http://127.0.0.1:${await closedPort()}`;
  for (const n of devnet.values()) {
    const N = n.name.toUpperCase();
    Object.assign(env, { [`NIGHTGATE_${N}_INDEXER`]: n.graphqlUrl, [`NIGHTGATE_${N}_INDEXER_WS`]: n.graphqlWsUrl, [`NIGHTGATE_${N}_PROVER`]: 'upstream', [`NIGHTGATE_${N}_PROVER_URL`]: prover });
  }
  const started = await startNightgate(group, tuned ? 'nightgate-tuned' : 'nightgate-defaults', env, { probe: false });
  // Its follower reads the devnet over the network: wait (bounded) for its first summary.
  const url = `http://127.0.0.1:${started.port}/api/v1/preview/summary`;
  for (const t0 = Date.now(); Date.now() - t0 < 60_000;) {
    const { status } = await getJson(url, 5000).catch(() => ({ status: 0 }));
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const shown = { ...env, NIGHTGATE_API_KEYS: '<bench key>' };
  return { started, settings: shown };
}

/**
 * The highest RSS the main server reached during any load run (its pid is sampled every 200 ms),
 * the pipelined round (ten times the requests in flight) aside.
 */
function peakRssUnderLoad(ms: readonly Measurement[]): Measurement | undefined {
  let peak: Measurement | undefined;
  for (const m of ms) {
    const rss = m.load?.rssMaxMiB;
    if (m.target !== 'nightgate' || m.scenario === 'upstream-prove' || isPipelined(m) || rss === undefined) continue;
    if (!peak || rss > (peak.load?.rssMaxMiB ?? 0)) peak = m;
  }
  return peak && { scenario: 'process-under-load', variant: 'peak', target: 'process', figures: { peakRssMiB: peak.load?.rssMaxMiB ?? null, during: `${peak.scenario} ${peak.variant}` } };
}

/** The command-line choice that leaves scenarios out, as RunInfo.selection says it. */
function selectionOf(args: BenchArgs): string | undefined {
  const parts = [...(args.only ? [`--only ${[...args.only].join(',')}`] : []), ...(args.wrkOnly ? ['--wrk-only'] : [])];
  return parts.length ? parts.join(' ') : undefined;
}

function finishLine(ms: readonly Measurement[]): string {
  const loads = ms.filter((m) => m.load);
  const best = loads.sort((a, b) => (b.load?.connections ?? 0) - (a.load?.connections ?? 0))[0] ?? ms.find((m) => m.figures) ?? ms[0];
  return best ? `${best.variant} [${best.target}] ${headline(best)}` : 'nothing measured';
}

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
  let mainServer: Started | undefined;
  let defaultsServer: Started | undefined;
  let tunedServer: Started | undefined;
  try {
    let target: Target;
    if (args.url) {
      const health = await getJson(`${args.url}/health`).catch((err: Error) => ({ status: 0, json: err.message }));
      if (health.status === 0) throw new Error(`cannot reach ${args.url}/health: ${String(health.json)}`);
      target = { kind: 'remote', baseUrl: args.url, ...(args.key ? { apiKey: args.key } : {}), network: args.network, devnet: await devnetFromHealth(args.url, args.key) };
      log(`target: ${args.url} (deployment)`);
    } else {
      const apiKey = benchKey();
      log('▶ starting nightgate (src/cli serve) …');
      const t0 = performance.now();
      const local = await startLocal(group, args, apiKey);
      mainServer = local.server;
      serverSettings = local.settings;
      runNotes.push(...local.notes);
      const devnet = await devnetFromHealth(`http://127.0.0.1:${mainServer.port}`, apiKey);
      target = {
        kind: 'local',
        baseUrl: `http://127.0.0.1:${mainServer.port}`,
        apiKey,
        network: args.network,
        pid: mainServer.pid,
        probe: new LoopDelayClient(mainServer.child),
        devnet,
        ...(devnet.size > 0 ? { sponsorWallets: args.sponsorWallets } : {}),
        proverThreads: PROVER_THREADS,
      };
      log(`✓ nightgate pid ${mainServer.pid} on port ${mainServer.port} in ${((performance.now() - t0) / 1000).toFixed(1)} s; devnet networks: ${[...devnet.keys()].join(', ') || 'none'}`);
      if (!args.only || args.only.has('cached-summary')) {
        log('▶ starting nightgate on the tuned settings apart from the devnets, reading them …');
        const tuned = await startApart(group, apiKey, devnet, runNotes, true);
        if (tuned) {
          target.tuned = { baseUrl: `http://127.0.0.1:${tuned.started.port}`, pid: tuned.started.pid };
          tunedServer = tuned.started;
          runNotes.push(`the \`nightgate\` rows of the cached summary: a nightgate on the tuned settings apart from the one hosting the devnets and the DUST sync (whose CPU every server here shares), reading its devnets as its indexers, as the defaults server does; settings: ${Object.entries(tuned.settings).map(([k, v]) => `\`${k}=${v}\``).join(', ')}`);
          log(`✓ nightgate (tuned, apart) pid ${tuned.started.pid} on port ${tuned.started.port}`);
        }
        log('▶ starting nightgate on the defaults (access log on), reading the devnets above …');
        const d = await startApart(group, apiKey, devnet, runNotes);
        if (d) {
          target.defaults = { baseUrl: `http://127.0.0.1:${d.started.port}`, pid: d.started.pid };
          defaultsServer = d.started;
          runNotes.push(`the \`nightgate, defaults\` rows: a second nightgate on the shipped defaults (access log \`all\` to a pipe the runner drains, per-IP limit on) but for the limits raised so nothing is refused, reading the first one's devnets as its indexers; settings: ${Object.entries(d.settings).map(([k, v]) => `\`${k}=${v}\``).join(', ')}`);
          log(`✓ nightgate (defaults) pid ${d.started.pid} on port ${d.started.port}`);
        }
      }
    }
    fixtures = new SharedFixtures(target);
    const ctx = createContext({ target, settings, processes: group, fixtures, log });

    /** Runs one scenario; `variantOf`, for the repeated rounds, renames the rows it added. */
    const runOne = async (s: Scenario, c: ScenarioContext, label: string, variantOf?: (m: Measurement) => string): Promise<void> => {
      const from = measurements.length;
      await runScenario(s, c, label);
      if (variantOf) for (const m of measurements.slice(from)) m.variant = variantOf(m);
    };
    const runScenario = async (s: Scenario, c: ScenarioContext, label: string): Promise<void> => {
      if (s.ownServer && defaultsServer) {
        await defaultsServer.stop();
        defaultsServer = undefined;
        delete target.defaults;
      }
      if (s.ownServer && tunedServer) {
        await tunedServer.stop();
        tunedServer = undefined;
        delete target.tuned;
      }
      if (s.ownServer && mainServer) {
        await mainServer.stop();
        mainServer = undefined;
        // Its pid may be reused: no later run may read another process's CPU time as nightgate's.
        delete target.pid;
      }
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
    };
    for (const step of STEPS) {
      const chosen = ('interleaved' in step ? step.interleaved : [step]).filter((s) => {
        if (args.only && !args.only.has(s.id)) return false;
        if (target.kind === 'remote' && s.localOnly) {
          measurements.push({ scenario: s.id, variant: '–', target: '–', skipped: 'needs processes on this machine (not run against --url)' });
          log(`- ${s.id}: skipped against --url`);
          return false;
        }
        return true;
      });
      if ('interleaved' in step && chosen.length > 1) {
        for (const level of args.wrkOnly ? [] : settings.connectionLevels) {
          const atLevel = { ...ctx, settings: { ...settings, connectionLevels: [level] } };
          for (const s of chosen) await runOne(s, atLevel, `${s.id} c=${level}`);
        }
        // The targets' level again, interleaved, for a median: single runs on this shared 2-core
        // machine moved the ratios by a third from one run to the next.
        const level = TARGETS.cachedP99Connections;
        if (settings.connectionLevels.includes(level)) {
          const atLevel = { ...ctx, settings: { ...settings, connectionLevels: [level] } };
          for (let round = 2; round <= (args.wrkOnly ? 0 : settings.targetRounds); round++) {
            for (const s of chosen) await runOne(s, atLevel, `${s.id} c=${level} round ${round}`, (m) => `${m.variant} ${ROUND} ${round}`);
          }
          // Once more with pipelining, shown beside the targets, not judged: autocannon then spends
          // less per request, so the load generator caps the servers less (without it every server
          // here runs at about the rate one autocannon process drives on these two cores). At
          // depth 10 Fastify and node:http saturate their core; the uWS servers still do not.
          const depth = args.wrkOnly ? 0 : settings.pipelinedRoundDepth;
          if (depth > 1) {
            const piped = { ...ctx, settings: { ...settings, connectionLevels: [level], pipelining: depth } };
            for (const s of chosen) await runOne(s, piped, `${s.id} c=${level} ${PIPELINED} ${depth}`, (m) => `${m.variant} ${PIPELINED} ${depth}`);
          }
          // And with wrk as the load generator, judged on its own medians: wrk (C, epoll) spends far
          // less per request than autocannon, so the servers, not the generator, set the rate
          // (raw uWS: 22–25 k req/s under autocannon, 65–90 k under wrk on this machine).
          if (settings.wrkRounds > 0) {
            const wrk = wrkVersion();
            if (!wrk) {
              const why = 'wrk is not installed (Debian: apt-get install wrk), so the rounds without autocannon as the limit did not run';
              measurements.push({ scenario: 'cached-summary', variant: `c=${level} ${WRK}`, target: 'nightgate', skipped: why });
              log(`- c=${level} ${WRK}: ${why}`);
            } else {
              runNotes.push(`the \`${WRK}\` rounds: ${wrk}, one thread, ${settings.shortDurationS} s each after ${settings.warmupS} s of warm-up`);
              const viaWrk = { ...ctx, settings: { ...settings, connectionLevels: [level], durationS: settings.shortDurationS, generator: 'wrk' as const } };
              for (let round = 1; round <= settings.wrkRounds; round++) {
                // A run that failed is named for its round too, so the wrk targets can say why.
                // Every other round the other order, so what the order does falls on both sides.
                for (const s of round % 2 === 0 ? [...chosen].reverse() : chosen) await runOne(s, viaWrk, `${s.id} c=${level} ${WRK} round ${round}`, (m) => `${m.skipped ? `c=${level}` : m.variant} ${WRK}${round > 1 ? ` ${ROUND} ${round}` : ''}`);
              }
            }
          }
        }
      } else {
        for (const s of chosen) await runOne(s, ctx, s.id);
      }
    }
    if (defaultsServer) await defaultsServer.stop();
    if (tunedServer) await tunedServer.stop();
    if (mainServer) {
      await mainServer.stop();
      mainServer = undefined;
    }
    const underLoad = peakRssUnderLoad(measurements);
    if (underLoad) measurements.push(underLoad);

    if (target.kind === 'local') {
      // Single-thread figures need a quiet machine: scenarios may leave servers of their own
      // (devnets producing blocks) running until the end: 3.18 M allocator pairs/s in a full run
      // against 5.27 M/s when the allocator ran alone.
      await group.stopAll();
      for (const id of MICRO_BENCHES) {
        if (args.only && !args.only.has(`micro-${id}`)) continue;
        log(`▶ micro-${id}`);
        const m = await runMicro(id, { quick: args.quick, durationMs: settings.microMs });
        measurements.push(m);
        log(`${m.skipped ? '-' : '✓'} micro-${id}: ${headline(m)}`);
      }
    } else {
      for (const id of MICRO_BENCHES) {
        if (!args.only || args.only.has(`micro-${id}`)) measurements.push({ scenario: `micro-${id}`, variant: '–', target: '–', skipped: 'measures this machine, not the target (not run against --url)' });
      }
    }
  } finally {
    await group.stopAll();
    fixtures?.cleanup();
  }

  const loadAtEnd = loadavg()[0] ?? 0;
  // Before the bench starts anything, more than half a core busy means other work shares the machine.
  if (loadAtStart > BUSY_LOAD_AVERAGE) {
    runNotes.push(`the machine was busy before the run (1-minute load average ${loadAtStart.toFixed(1)} on ${machine.cores} cores): other processes competed with the benchmark and every figure is skewed`);
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
  const jsonFile = writeResults(results);
  // bench/RESULTS.md and latest.svg describe local runs of every scenario at full length only; a
  // quick, chosen (--only, --wrk-only) or deployment (--url) run gets its report beside its JSON
  // instead, so a two-minute check never replaces the report the targets are read from.
  const complete = !args.url && !selection && !args.quick;
  const report = complete ? join(BENCH_DIR, 'RESULTS.md') : jsonFile.replace(/\.json$/, '.md');
  const markdown = renderMarkdown(results, relative(dirname(report), jsonFile), complete ? 'results/latest.svg' : undefined);
  if (complete) writeFullReport(report, markdown);
  else writeFileSync(report, markdown);
  if (complete) writeFileSync(join(RESULTS_DIR, 'latest.svg'), renderSvg(results));

  const refused = refusedScenarios(results.measurements);
  if (refused.length) log('');
  for (const r of refused) log(`! ${refusalWarning(r)}`);
  log(`\n${describeScope(runScope(results))}`);
  log('\nTargets:');
  for (const t of results.targets) log(`  ${t.verdict === 'pass' ? '✅' : t.verdict === 'fail' ? '❌' : '– '} ${t.name}: ${t.measured} (${t.threshold})${t.note ? ` — ${t.note}` : ''}`);
  log(`\nwrote ${[jsonFile, report, ...(complete ? [join(RESULTS_DIR, 'latest.svg')] : [])].map((f) => relative(process.cwd(), f)).join(', ')}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
