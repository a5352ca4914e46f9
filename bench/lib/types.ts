/** The shapes every part of the harness shares: the target a run measures, what it measures and how it is written down. */
import type { Era } from '../../src/infra/ledger/index.js';
import type { LoopDelayClient } from './loop-delay-client.js';

/** One load run (autocannon, or wrk where `generator` says so), reduced to the figures the reports use. Latencies in milliseconds. */
export interface LoadFigures {
  connections: number;
  /** Requests each connection kept in flight, when more than one (HTTP/1.1 pipelining). */
  pipelining?: number;
  /** The load came from wrk (bench/lib/wrk.ts); absent: from autocannon. */
  generator?: 'wrk';
  durationS: number;
  /** Responses received (any status). */
  responses: number;
  /** Responses per second over the run. */
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Responses per HTTP status. */
  status: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
  /** Highest VmRSS of the server process sampled during the run (MiB), when its pid is known. */
  rssMaxMiB?: number;
  /** CPU time (user + system) of the server's main (HTTP) thread per response during the run, µs, when its pid is known. */
  serverCpuUsPerRequest?: number;
  /**
   * CPU time of the local nightgate process's threads other than its HTTP thread (devnet block
   * production, DUST sync, provers; while nightgate itself is loaded, also its garbage collector's
   * helper threads) during the run, in percent of one core: the background every run on this
   * machine shares, whether it loads nightgate or a baseline.
   */
  backgroundCorePct?: number;
}

/**
 * One row of the results: a scenario's variant against one target at one connection count, or a
 * plain set of figures (process and micro-benchmarks).
 */
export interface Measurement {
  /** Scenario id, the file name under bench/scenarios without extension. */
  scenario: string;
  /** What varies inside the scenario: `c=100`, `cold`, `direct`… */
  variant: string;
  /** What was measured: `nightgate`, `raw-uws`, `fastify`, `node-http`, `stand-in`, `process`… */
  target: string;
  load?: LoadFigures;
  figures?: Record<string, number | string | boolean | null>;
  /** Why the scenario did not run. */
  skipped?: string;
  notes?: string[];
}

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryMiB: number;
  kernel: string;
  platform: string;
  node: string;
  uws: string;
}

export interface RunInfo {
  startedAt: string;
  finishedAt: string;
  commit: string;
  dirty: boolean;
  machine: MachineInfo;
  /** Length of the load runs: `quick` (short) or `full`; what the run covered is RunScope (run-scope.ts). */
  mode: 'quick' | 'full';
  /** The command-line choice that left scenarios out (`--only cached-summary`, `--wrk-only`); absent: every scenario. */
  selection?: string;
  /** `local` spawns the server; `remote` load-tests a deployment given by --url. */
  targetKind: 'local' | 'remote';
  url?: string;
  /** 1-minute load average when the run started and ended: other work on the machine skews every figure. */
  loadAverage: { start: number; end: number };
  /** How the server under test was started (settings that differ from the defaults). */
  server: Record<string, string>;
  notes: string[];
}

export type Verdict = 'pass' | 'fail' | 'n/a';

export interface TargetCheck {
  name: string;
  threshold: string;
  measured: string;
  verdict: Verdict;
  /** Why there is no verdict, or what the figure rests on. */
  note?: string;
}

export interface BenchResults {
  run: RunInfo;
  measurements: Measurement[];
  targets: TargetCheck[];
}

/** An embedded devnet network of the target, as its `/health` lists it. */
export interface DevnetNetwork {
  name: string;
  networkId: string;
  graphqlUrl: string;
  graphqlWsUrl: string;
  /** The ledger era it runs (`/health` components.ledger); absent: ledger 9. */
  era?: Era;
}

export interface Target {
  kind: 'local' | 'remote';
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  baseUrl: string;
  apiKey?: string;
  /** Network of the statistics and proving routes. */
  network: string;
  /** Local only: the server's pid (RSS) and its loop-delay probe. */
  pid?: number;
  probe?: LoopDelayClient;
  /** Embedded devnet endpoints by network, from GET /health (empty without a devnet). */
  devnet: ReadonlyMap<string, DevnetNetwork>;
  /** Server DUST wallets per embedded network (local runs), for the sponsorship capacity. */
  sponsorWallets?: number;
  /** Prover worker threads (local runs: what the bench configured). */
  proverThreads?: number;
  /**
   * Local runs of the cached summary: a second nightgate on the shipped defaults (access log on,
   * per-IP limit on but raised), reading the first one's devnets, measured beside it (run-target.ts).
   */
  defaults?: { baseUrl: string; pid: number };
  /**
   * Local runs of the cached summary: a nightgate on the tuned settings, apart from the one that
   * hosts the devnets and the DUST sync, reading them as the defaults server does: the
   * `nightgate` rows of the cached summary, so both configurations are measured alike (run-target.ts).
   */
  tuned?: { baseUrl: string; pid: number };
}
