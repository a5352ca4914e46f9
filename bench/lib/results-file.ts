/** Result JSON files: `bench/results/<timestamp>-<commit>.json`, one per run. */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './paths.js';
import type { BenchResults } from './types.js';

const RESULT_FILE = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-[\w.-]+\.json$/;

export function writeResults(results: BenchResults): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = results.run.startedAt.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  const file = join(RESULTS_DIR, `${stamp}-${results.run.commit}${results.run.dirty ? '-dirty' : ''}.json`);
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  return file;
}

export function readResults(file: string): BenchResults {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<BenchResults>;
  if (!parsed.run || !Array.isArray(parsed.measurements)) throw new Error(`${file} is not a nightgate bench result`);
  return parsed as BenchResults;
}

/** Result files in bench/results, oldest first (their names start with the UTC time). */
export function listResults(): string[] {
  try {
    return readdirSync(RESULTS_DIR)
      .filter((f) => RESULT_FILE.test(f))
      .sort()
      .map((f) => join(RESULTS_DIR, f));
  } catch {
    return [];
  }
}
