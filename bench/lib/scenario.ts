/**
 * What a scenario file exports and what it is given. A scenario measures one thing against the
 * target (the local server the runner started, or a deployment given by --url) and returns
 * Measurements; it never decides pass/fail (bench/lib/targets.ts does, from all of them).
 */
import { dominantStatus, mostlyOk, runLoad, type LoadSpec } from './load.js';
import type { ProcessGroup } from './processes.js';
import type { SharedFixtures } from './fixtures.js';
import type { Measurement, Target } from './types.js';

export type { DevnetNetwork, Target } from './types.js';

export interface Settings {
  /** Seconds of each throughput run (cached routes, baselines). */
  durationS: number;
  /** Seconds of each run of the other scenarios. */
  shortDurationS: number;
  warmupS: number;
  /** Connection counts for the cached routes and baselines. */
  connectionLevels: readonly number[];
  /** Connections of the single-level scenarios (lookups, proving, upstream). */
  connections: number;
  rate?: number;
  /** Seconds of the idle window (RSS, loop delay during block production). */
  idleWindowS: number;
  /** Rounds of the runs a target takes the median of (3 in a full local run, else 1). */
  targetRounds: number;
  /**
   * Requests per connection in flight for the cached summary and its baselines (HTTP/1.1
   * pipelining), set only for the extra pipelined round of a full local run.
   */
  pipelining?: number;
  /** Load from wrk instead of autocannon, set only for the wrk rounds of a full local run. */
  generator?: 'wrk';
}

/** What a repeated round of the cached summary and its baselines changes in their load (pipelining, wrk). */
export function roundLoad(settings: Settings): Pick<LoadSpec, 'pipelining' | 'generator'> {
  return { ...(settings.pipelining ? { pipelining: settings.pipelining } : {}), ...(settings.generator ? { generator: settings.generator } : {}) };
}

export interface ScenarioContext {
  target: Target;
  settings: Settings;
  processes: ProcessGroup;
  fixtures: SharedFixtures;
  /** One progress line. */
  log(line: string): void;
  /**
   * One load run, announced and summarised on the progress output, returned as a Measurement.
   * `background`: report the CPU of the local nightgate's other threads during the run (runs of
   * the cached routes and their baselines; on proving runs those threads do the measured work).
   */
  measure(
    row: { scenario: string; variant: string; target: string; notes?: string[] },
    spec: Omit<LoadSpec, 'rate' | 'warmupS' | 'backgroundPid'> & { warmup?: boolean; background?: boolean },
  ): Promise<Measurement>;
}

export interface Scenario {
  id: string;
  title: string;
  /** Needs processes on this machine (baselines, stand-in prover, process figures): skipped against --url. */
  localOnly?: boolean;
  /** Starts its own server: runs after the main server has been stopped, on a quiet machine. */
  ownServer?: boolean;
  run(ctx: ScenarioContext): Promise<Measurement[]>;
}

const fmt = (n: number, digits = 2): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The headline of a load run: `41,234 req/s · p50 1.20 ms · p99 3.10 ms · 200×41234`. */
export function headline(m: Measurement): string {
  if (m.skipped) return `skipped: ${m.skipped}`;
  if (!m.load)
    return Object.entries(m.figures ?? {})
      .slice(0, 4)
      .map(([k, v]) => `${k} ${typeof v === 'number' ? fmt(v) : String(v)}`)
      .join(' · ');
  const l = m.load;
  const codes = Object.entries(l.status)
    .map(([c, n]) => `${c}×${n}`)
    .join(' ');
  return (
    `${fmt(l.rps, 0)} req/s · p50 ${fmt(l.latencyMs.p50)}` +
    ` ms · p99 ${fmt(l.latencyMs.p99)}` +
    ` ms · ${codes || 'no responses'}` +
    `${l.errors ? ` · ${l.errors}` + ` errors` : ''}`
  );
}

export function createContext(base: Omit<ScenarioContext, 'measure'>): ScenarioContext {
  return {
    ...base,
    async measure(row, spec) {
      const label = `${row.scenario} ${row.variant} [${row.target}]`;
      base.log(`  ▶ ${label}`);
      const { warmup, background, ...loadSpec } = spec;
      const load = await runLoad({
        ...loadSpec,
        ...(base.settings.rate ? { rate: base.settings.rate } : {}),
        warmupS: warmup === false || spec.amount !== undefined ? 0 : base.settings.warmupS,
        ...(background && base.target.pid !== undefined ? { backgroundPid: base.target.pid } : {}),
      });
      const notes = [...(row.notes ?? [])];
      if (load.responses === 0) notes.push('no responses');
      else if (!mostlyOk(load)) notes.push(`most responses were ${dominantStatus(load)}`);
      const m: Measurement = { ...row, load, ...(notes.length ? { notes } : {}) };
      base.log(`  ✓ ${label}: ${headline(m)}`);
      return m;
    },
  };
}
