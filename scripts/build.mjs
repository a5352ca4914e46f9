#!/usr/bin/env node
// Compile with `tsc -b` (the workspace packages tsconfig.json references, each into its own dist/,
// then the root project into dist/), and record what was compiled: a SHA-256 over every input tsc
// reads from the repository (the .ts files under each project's `include`, every tsconfig file, the
// TypeScript version) is written to dist/.build-stamp after a successful build.
//   node scripts/build.mjs             always compile (`npm run build`)
//   node scripts/build.mjs --if-stale  compile only when the inputs differ from the stamp (`npm start`):
//                                      starting a current build costs a hash of the sources, not a tsc run
// Content, not mtimes: a fresh clone or a checkout touches every file without changing any.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSCONFIG = join(ROOT, 'tsconfig.json');
const STAMP = join(ROOT, 'dist', '.build-stamp');
/** What `npm start` runs: without it there is nothing to start, whatever the stamp says. */
const ENTRY = join(ROOT, 'dist', 'src', 'cli.js');
/** The projects tsconfig.json references (the workspace packages), by directory. */
const REFERENCES = (JSON.parse(readFileSync(TSCONFIG, 'utf8')).references ?? []).map((r) => join(ROOT, r.path));

function tsFiles(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tsFiles(path, out);
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** A project's tsconfig and the .ts files under its `include`. */
function projectInputs(dir) {
  const tsconfig = join(dir, 'tsconfig.json');
  const { include = [] } = JSON.parse(readFileSync(tsconfig, 'utf8'));
  return [tsconfig, ...include.flatMap((sub) => (existsSync(join(dir, sub)) ? tsFiles(join(dir, sub), []) : []))];
}

function inputsHash() {
  const require = createRequire(import.meta.url);
  const files = [ROOT, ...REFERENCES].flatMap(projectInputs);
  const hash = createHash('sha256');
  hash.update(`typescript ${require('typescript/package.json').version}\0`);
  for (const file of [join(ROOT, 'tsconfig.test.json'), ...files.sort()]) {
    hash.update(`${relative(ROOT, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const ifStale = process.argv.includes('--if-stale');
const before = inputsHash();
const built = [ENTRY, ...REFERENCES.map((dir) => join(dir, 'dist'))].every((path) => existsSync(path));
if (ifStale && built && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === before) {
  console.error('nightgate: dist/ is current (sources unchanged since the last build): not recompiling');
  process.exit(0);
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// The first build of a clone takes about a minute on two cores, with nothing else on the terminal.
if (ifStale)
  console.error(`nightgate: compiling the TypeScript sources into dist/ (${built ? 'sources changed since the last build' : 'first build: about a minute'}) …`);
const started = Date.now();
const run = spawnSync(process.execPath, [tsc, '-b', TSCONFIG], { cwd: ROOT, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
// The package's bin (`npx nightgate …`, as the README's tour runs it): tsc writes files without the
// execute bit, and npm links no bin for the project it is run in.
chmodSync(ENTRY, 0o755);
// A source edited while tsc ran may not be in the output: stamp only what was read.
if (inputsHash() === before) writeFileSync(STAMP, `${before}\n`);
if (ifStale) console.error(`nightgate: compiled in ${Math.round((Date.now() - started) / 1000)} s`);
