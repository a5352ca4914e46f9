// Helpers shared by the standalone measurement scripts (bench/setting-cost.ts,
// bench/shared-stores-cost.ts, bench/compression.ts), which run outside `npm run bench`.
import { median } from './targets.js';

/** The value after `--name` on the command line, or the fallback. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

/** The median of a non-empty list (the middle two averaged for an even count). */
export function medianOf(xs: readonly number[]): number {
  const m = median(xs);
  if (m === undefined) throw new Error('median of no values');
  return m;
}
