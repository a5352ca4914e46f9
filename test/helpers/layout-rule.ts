/**
 * The layout's one rule, checked from the imports as written (type-only imports count too):
 * features → infra → core, never back; a feature imports no other feature; only the app (src/app.ts,
 * src/server.ts, src/cli.ts, src/cli/) imports features; the embedded devnet (src/devnet/) uses core
 * and the ledger boundary only, and nothing but the app and infra's context imports it; the client
 * (src/client/) stands alone but for the error catalogue; src/ imports nothing from bench/ or test/; only src/infra/ledger/
 * imports a ledger package. Plus: no import circles among the product's files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';

export type Sources = Map<string, string>;

const IMPORT = /(?:^|[^\w.])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|declare\s+module\s+['"]([^'"]+)['"]/g;
const LEDGER_PACKAGE = /^@midnight(?:-)?ntwrk\/ledger/;

/** Every .ts file under `dirs` of `root`, by its path relative to root (posix). */
export function readSources(root: string, dirs: readonly string[]): Sources {
  const out: Sources = new Map();
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const p = posix.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.set(p, readFileSync(join(root, p), 'utf8'));
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

/** The specifiers a source imports (comments stripped first, so a path in a comment is not an import). */
export function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of code.matchAll(IMPORT)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** A relative specifier resolved to a file of `sources` (`.js` written for `.ts`), or undefined. */
function resolve(from: string, spec: string, sources: Sources): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  for (const c of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}/index.ts`]) if (sources.has(c)) return c;
  return undefined;
}

type Area = 'core' | 'infra' | `feature:${string}` | 'app' | 'devnet' | 'client' | 'workers' | 'native' | 'other';

function areaOf(file: string): Area {
  if (file.startsWith('src/core/')) return 'core';
  if (file.startsWith('src/infra/')) return 'infra';
  const f = /^src\/features\/([^/]+)\//.exec(file);
  if (f) return `feature:${f[1]}`;
  if (file === 'src/app.ts' || file === 'src/server.ts' || file === 'src/cli.ts' || file.startsWith('src/cli/')) return 'app';
  if (file.startsWith('src/devnet/')) return 'devnet';
  if (file.startsWith('src/client/')) return 'client';
  if (file.startsWith('workers/')) return 'workers';
  if (file.startsWith('native/')) return 'native';
  return 'other';
}

/** Why `from` may not import `to`, or undefined when it may. */
function refusal(from: string, to: string): string | undefined {
  const a = areaOf(from);
  const b = areaOf(to);
  if (to.startsWith('bench/') || to.startsWith('test/')) return 'the product imports nothing from bench/ or test/';
  if (a === b) return undefined;
  if (a === 'app' || a === 'other') return undefined;
  if (a === 'workers') return b === 'app' || b === 'devnet' || b === 'client' ? 'a worker entry reaches features, infra and core only' : undefined;
  // The error catalogue is part of the API the client speaks; it is packed with it.
  if (a === 'client') return to === 'src/core/errors.ts' ? undefined : 'the client stands alone (it is packed on its own)';
  if (a === 'native') return b === 'core' ? undefined : 'native/ uses core only';
  if (a === 'core') return b === 'native' ? undefined : 'core imports nothing above it';
  if (a === 'devnet') return b === 'core' || to.startsWith('src/infra/ledger/') ? undefined : 'the devnet uses core and the ledger boundary only';
  if (a === 'infra') {
    if (b === 'core' || b === 'native') return undefined;
    if (b === 'devnet' && from === 'src/infra/app-context.ts') return undefined;
    return 'infra imports core only';
  }
  // A feature.
  if (b === 'core' || b === 'infra' || b === 'native') return undefined;
  return b.startsWith('feature:') ? 'a feature imports no other feature' : `a feature does not import ${b}`;
}

export interface Violation {
  from: string;
  to: string;
  why: string;
}

export function violations(sources: Sources): Violation[] {
  const out: Violation[] = [];
  for (const [from, src] of sources) {
    if (!from.startsWith('src/') && !from.startsWith('workers/') && !from.startsWith('native/')) continue;
    for (const spec of importsOf(src)) {
      if (LEDGER_PACKAGE.test(spec) && !from.startsWith('src/infra/ledger/')) out.push({ from, to: spec, why: 'only src/infra/ledger/ imports a ledger package' });
      if (spec.startsWith('.') && /(^|\/)(bench|test)\//.test(posix.normalize(posix.join(posix.dirname(from), spec)))) {
        out.push({ from, to: spec, why: 'the product imports nothing from bench/ or test/' });
        continue;
      }
      const to = resolve(from, spec, sources);
      if (!to) continue;
      const why = refusal(from, to);
      if (why) out.push({ from, to, why });
    }
  }
  return out;
}

/** Import circles (strongly connected components of more than one file, or a file importing itself). */
export function circles(sources: Sources): string[][] {
  const edges = new Map<string, string[]>();
  for (const [from, src] of sources) edges.set(from, importsOf(src).map((s) => resolve(from, s, sources)).filter((x): x is string => x !== undefined));
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return out;
}

export const relativeTo = (root: string, file: string): string => relative(root, file).split(/[\\/]/).join('/');
export { dirname };
