/**
 * Where things are, computed from this file's URL so the harness runs the same compiled
 * (`node dist/bench/run.js`, after `npm run build`) and from source (`npx tsx bench/run.ts`).
 * Results are always written into the source tree's `bench/`, never into `dist/`.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when running from `dist/` (compiled), false under tsx. */
export const COMPILED = import.meta.url.endsWith('.js');

const LIB_DIR = fileURLToPath(new URL('.', import.meta.url));

/** The repository root (holds package.json). */
export const ROOT = COMPILED ? resolve(LIB_DIR, '../../..') : resolve(LIB_DIR, '../..');

export const BENCH_DIR = join(ROOT, 'bench');
export const RESULTS_DIR = join(BENCH_DIR, 'results');

/** Extension of sibling modules at run time. */
export const MODULE_EXT = COMPILED ? '.js' : '.ts';

/**
 * Absolute path of a project module given without extension, e.g. `src/cli`, `bench/baselines/raw-uws`
 * or `packages/devnet/src/cli` (a workspace package compiles into its own dist/).
 */
export function modulePath(rel: string): string {
  if (!COMPILED) return join(ROOT, `${rel}.ts`);
  const pkg = /^packages\/([^/]+)\/src\/(.+)$/.exec(rel);
  return pkg ? join(ROOT, 'packages', pkg[1]!, 'dist', `${pkg[2]}.js`) : join(ROOT, 'dist', `${rel}.js`);
}

/** node arguments that run a project module as a process: the compiled file, or the source through tsx's loader. */
export function nodeArgs(rel: string): string[] {
  const file = modulePath(rel);
  if (!existsSync(file)) {
    throw new Error(`${file} does not exist${COMPILED ? ': run `npm run build` first (or `npx tsx bench/run.ts`)' : ''}`);
  }
  return COMPILED ? [file] : ['--import=tsx', file];
}
