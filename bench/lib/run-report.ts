/** What `npm run bench` leaves behind: its JSON, its report (and chart), and the closing lines on the console. */
import { writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { BENCH_DIR, RESULTS_DIR } from './paths.js';
import { refusalWarning, refusedScenarios } from './refusals.js';
import { renderMarkdown } from './report-markdown.js';
import { renderSvg } from './report-svg.js';
import { writeFullReport } from './results-section.js';
import { writeResults } from './results-file.js';
import { describeScope, runScope } from './run-scope.js';
import type { BenchResults } from './types.js';

/**
 * Writes the results; returns the files written. bench/RESULTS.md and latest.svg describe local
 * runs of every scenario at full length only (`complete`); a quick, chosen (--only, --wrk-only)
 * or deployment (--url) run gets its report beside its JSON instead, so a two-minute check never
 * replaces the report the targets are read from.
 */
export function writeReports(results: BenchResults, complete: boolean): string[] {
  const jsonFile = writeResults(results);
  const report = complete ? join(BENCH_DIR, 'RESULTS.md') : jsonFile.replace(/\.json$/, '.md');
  const markdown = renderMarkdown(results, relative(dirname(report), jsonFile), complete ? 'results/latest.svg' : undefined);
  if (complete) writeFullReport(report, markdown);
  else writeFileSync(report, markdown);
  if (complete) writeFileSync(join(RESULTS_DIR, 'latest.svg'), renderSvg(results));
  return [jsonFile, report, ...(complete ? [join(RESULTS_DIR, 'latest.svg')] : [])];
}

/** The closing lines: refused runs again, what the run covered, every target's verdict, the files written. */
export function logOutcome(results: BenchResults, files: readonly string[], log: (line: string) => void): void {
  const refused = refusedScenarios(results.measurements);
  if (refused.length) log('');
  for (const r of refused) log(`! ${refusalWarning(r)}`);
  log(`\n${describeScope(runScope(results))}`);
  log('\nTargets:');
  for (const t of results.targets)
    log(`  ${t.verdict === 'pass' ? '✅' : t.verdict === 'fail' ? '❌' : '– '} ${t.name}: ${t.measured} (${t.threshold})${t.note ? ` — ${t.note}` : ''}`);
  log(`\nwrote ${files.map((f) => relative(process.cwd(), f)).join(', ')}`);
}
