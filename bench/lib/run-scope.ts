/**
 * What a run of `npm run bench` covered. It is "full" only when it ran every scenario at full
 * length and measured each: a quick run, a chosen subset (`--only`, `--wrk-only`) and a run that
 * left scenarios unmeasured (local-only ones against `--url`, a scenario that failed) are not, and
 * the report and the console say which it was.
 */
import type { BenchResults } from './types.js';

export interface RunScope {
  full: boolean;
  /** `full`, `quick`, `partial` or `quick, partial`. */
  label: string;
  /** Why it is partial: the selection, the scenarios not measured. */
  gaps: string[];
}

export function runScope(r: BenchResults): RunScope {
  const notMeasured = [...new Set(r.measurements.filter((m) => m.skipped).map((m) => m.scenario))];
  const gaps = [...(r.run.selection ? [r.run.selection] : []), ...(notMeasured.length ? [`not measured: ${notMeasured.join(', ')}`] : [])];
  const quick = r.run.mode === 'quick';
  const partial = gaps.length > 0;
  const label = quick && partial ? 'quick, partial' : quick ? 'quick' : partial ? 'partial' : 'full';
  return { full: label === 'full', label, gaps };
}

/** `full run`, `quick run`, `partial run (--only cached-summary; not measured: baselines)`. */
export function describeScope(s: RunScope): string {
  return `${s.label} run${s.gaps.length ? ` (${s.gaps.join('; ')})` : ''}`;
}
