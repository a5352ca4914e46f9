/**
 * Compares two bench result files: `npx tsx bench/compare.ts OLD.json NEW.json` (or
 * `node dist/bench/compare.js …`); without arguments, the two newest in bench/results.
 * Prints, for every load run present in both, throughput and p50/p99 with their change, marks
 * throughput down more than 10 % or p99 up more than 20 % with ⚠, then every target whose verdict
 * or figure changed. Different machines make absolute figures incomparable: it says so.
 */
import { basename } from 'node:path';
import { listResults, readResults } from './lib/results-file.js';
import { runScope } from './lib/run-scope.js';
import type { BenchResults, Measurement } from './lib/types.js';

const RPS_DROP = 0.1;
const P99_RISE = 0.2;

const key = (m: Measurement): string => `${m.scenario} ${m.variant} [${m.target}]`;
const pct = (a: number, b: number): string => (a === 0 ? '–' : `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`);
const n = (v: number, d = 2): string => v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')).join('\n');
}

export function compare(a: BenchResults, b: BenchResults): string {
  const out: string[] = [];
  const tag = (r: BenchResults): string =>
    `${r.run.commit}${r.run.dirty ? '+' : ''} ${r.run.startedAt} (${runScope(r).label}, ${r.run.machine.cpuModel} ×${r.run.machine.cores})`;
  out.push(`old: ${tag(a)}`, `new: ${tag(b)}`);
  if (a.run.machine.cpuModel !== b.run.machine.cpuModel || a.run.machine.cores !== b.run.machine.cores) {
    out.push('note: different machines — compare ratios within each run, not absolute figures');
  }
  if (a.run.mode !== b.run.mode) out.push('note: one run is quick and the other is not — run lengths differ');
  out.push('');

  const old = new Map(a.measurements.filter((m) => m.load).map((m) => [key(m), m]));
  const rows: string[][] = [['run', 'req/s old', 'req/s new', 'Δ', 'p50 old', 'p50 new', 'p99 old', 'p99 new', 'Δ p99', '']];
  for (const m of b.measurements) {
    const o = old.get(key(m));
    if (!m.load || !o?.load) continue;
    const worse = m.load.rps < o.load.rps * (1 - RPS_DROP) || m.load.latencyMs.p99 > o.load.latencyMs.p99 * (1 + P99_RISE);
    rows.push([
      key(m),
      n(o.load.rps, 0),
      n(m.load.rps, 0),
      pct(o.load.rps, m.load.rps),
      n(o.load.latencyMs.p50),
      n(m.load.latencyMs.p50),
      n(o.load.latencyMs.p99),
      n(m.load.latencyMs.p99),
      pct(o.load.latencyMs.p99, m.load.latencyMs.p99),
      worse ? '⚠' : '',
    ]);
  }
  out.push(rows.length > 1 ? table(rows) : 'no load run appears in both files');

  const oldTargets = new Map(a.targets.map((t) => [t.name, t]));
  const changed = b.targets.filter((t) => {
    const o = oldTargets.get(t.name);
    return !o || o.verdict !== t.verdict || o.measured !== t.measured;
  });
  if (changed.length) {
    out.push('', 'targets:');
    for (const t of changed) {
      const o = oldTargets.get(t.name);
      out.push(`  ${t.name}: ${o ? `${o.measured} (${o.verdict})` : '–'} → ${t.measured} (${t.verdict})`);
    }
  }
  return out.join('\n');
}

function main(argv: string[]): number {
  const files = argv.length > 0 ? argv : listResults().slice(-2);
  if (files.length !== 2) {
    process.stderr.write(`usage: compare OLD.json NEW.json (bench/results holds ${listResults().length} result files; two are needed)\n`);
    return 2;
  }
  const [oldFile, newFile] = files as [string, string];
  process.stdout.write(`${basename(oldFile)} → ${basename(newFile)}\n${compare(readResults(oldFile), readResults(newFile))}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
