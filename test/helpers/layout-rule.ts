/**
 * The layout's one rule, checked from the imports as written (type-only imports count too):
 * features → infra → core, never back; a feature imports no other feature; only the app (src/app.ts,
 * src/server.ts, src/cli.ts, src/cli/) imports features; src/ imports nothing from bench/ or test/.
 * The workspace packages (packages/<name>/, `@nightgate/<name>`): a package imports its own files by
 * path and other packages by name, only those it is allowed (PACKAGE_USES: the embedded devnet uses
 * the ledger boundary and the thread helpers, they use no other) and nothing of src/; the product
 * imports a package by name, never by path, and only what it exports: the devnet only from the app,
 * the ledger boundary only from src/infra/ledger/, the client never (it is installed on its own);
 * only packages/ledger/ imports a ledger package; a package imports only what its package.json
 * declares, and the client, which runs in browsers, no Node built-in. bench/ drives the product:
 * it may import any of src/ and start devnets, reaches packages by name and imports nothing from
 * test/. Plus: no import circles, packages included. Imports are read by the TypeScript parser:
 * static and dynamic imports, re-exports, `import('…')` types, ambient module names, and worker
 * entries named by `new URL('…', import.meta.url)`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative } from 'node:path';
import ts from 'typescript';

export type Sources = Map<string, string>;

const LEDGER_PACKAGE = /^@midnight(?:-)?ntwrk\/ledger/;
/** A workspace package by name, with its subpath: `@nightgate/ledger/era`. */
const WORKSPACE = /^@nightgate\/([\w-]+)(?:\/([\w./-]+))?$/;
/** The workspace packages each package may import by name. */
const PACKAGE_USES: Readonly<Record<string, readonly string[]>> = { devnet: ['ledger', 'threads'], ledger: [], threads: [], client: [] };
/** The packages that run in browsers: no Node built-in. */
const BROWSER_PACKAGES: ReadonlySet<string> = new Set(['client']);

/** Every .ts file under `dirs` of `root`, by its path relative to root (posix); no dependency or build output. */
export function readSources(root: string, dirs: readonly string[]): Sources {
  const out: Sources = new Map();
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const p = posix.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(p);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.set(p, readFileSync(join(root, p), 'utf8'));
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

/** Of each workspace package (by directory name), from its package.json: what it declares it uses, and the subpaths it exports. */
export type Manifests = Map<string, { declares: ReadonlySet<string>; exports: readonly string[] }>;

export function readManifests(root: string): Manifests {
  const out: Manifests = new Map();
  for (const e of readdirSync(join(root, 'packages'), { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const pkg = JSON.parse(readFileSync(join(root, 'packages', e.name, 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    const declares = new Set([...Object.keys(pkg['dependencies'] ?? {}), ...Object.keys(pkg['peerDependencies'] ?? {})]);
    out.set(e.name, { declares, exports: Object.keys(pkg['exports'] ?? {}) });
  }
  return out;
}

/** Whether `exports` (`.`, `./era`, `./*`) exports the subpath a name import asks for (undefined: the package itself). */
function exported(exports: readonly string[], subpath: string | undefined): boolean {
  return subpath === undefined ? exports.includes('.') : exports.includes(`./${subpath}`) || exports.includes('./*');
}

/** `import.meta.url`. */
function isImportMetaUrl(node: ts.Node): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'url' &&
    ts.isMetaProperty(node.expression) &&
    node.expression.keywordToken === ts.SyntaxKind.ImportKeyword
  );
}

/** Parsed once per text: the planted trees share all but one file with the real one. */
const parsed = new Map<string, string[]>();

/** The specifiers a source imports, read by the TypeScript parser (so nothing in a comment or a string counts). */
export function importsOf(source: string): string[] {
  const known = parsed.get(source);
  if (known) return known;
  const file = ts.createSourceFile('source.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      out.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression))
      out.push(node.moduleReference.expression.text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      out.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      out.push(node.argument.literal.text);
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) out.push(node.name.text);
    // A worker entry: the file a thread is started from is imported as surely as a static import.
    else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.length === 2 &&
      ts.isStringLiteralLike(node.arguments[0]!) &&
      isImportMetaUrl(node.arguments[1]!)
    )
      out.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  parsed.set(source, out);
  return out;
}

/** A relative specifier, or a workspace package's name, resolved to a file of `sources` (`.js` written for `.ts`), or undefined. */
function resolve(from: string, spec: string, sources: Sources): string | undefined {
  const named = WORKSPACE.exec(spec);
  const base = named
    ? `packages/${named[1]}/src/${named[2] ?? 'index'}`
    : spec.startsWith('.')
      ? posix.normalize(posix.join(posix.dirname(from), spec))
      : undefined;
  if (base === undefined) return undefined;
  for (const c of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}/index.ts`]) if (sources.has(c)) return c;
  return undefined;
}

/** The workspace package a file belongs to (`packages/ledger/src/era.ts` → `ledger`). */
function packageOf(file: string): string | undefined {
  return /^packages\/([^/]+)\//.exec(file)?.[1];
}

/** The npm package a bare specifier names (`pino`, `@midnight-ntwrk/ledger-v8`, `graphql-ws` of `graphql-ws/use/ws`). */
function npmName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

type Area = 'core' | 'infra' | `feature:${string}` | 'app' | 'workers' | 'native' | 'bench' | `package:${string}` | 'other';

function areaOf(file: string): Area {
  if (file.startsWith('src/core/')) return 'core';
  if (file.startsWith('src/infra/')) return 'infra';
  const f = /^src\/features\/([^/]+)\//.exec(file);
  if (f) return `feature:${f[1]}`;
  if (file === 'src/app.ts' || file === 'src/server.ts' || file === 'src/cli.ts' || file.startsWith('src/cli/')) return 'app';
  if (file.startsWith('workers/')) return 'workers';
  if (file.startsWith('native/')) return 'native';
  if (file.startsWith('bench/')) return 'bench';
  const p = packageOf(file);
  if (p) return `package:${p}`;
  return 'other';
}

/** Why `from` may not import the workspace package `name` by its name, or undefined when it may. */
function refusalByName(from: string, name: string): string | undefined {
  const own = packageOf(from);
  if (own !== undefined) {
    const uses = PACKAGE_USES[own] ?? [];
    return uses.includes(name)
      ? undefined
      : `packages/${own} imports ${uses.length ? uses.map((u) => `@nightgate/${u}`).join(' and ') : 'no workspace package'}`;
  }
  if (!(name in PACKAGE_USES)) return `no workspace package @nightgate/${name}`;
  // The client is its own package, for dApps and wallets: the gateway neither uses nor bundles it.
  if (name === 'client') return areaOf(from) === 'bench' ? undefined : 'the gateway does not use the client (it is installed on its own)';
  if (name === 'ledger') return from.startsWith('src/infra/ledger/') ? undefined : 'the product reaches the ledger boundary through src/infra/ledger/';
  // The devnet is started where the process is: a feature, infra or a worker never loads it.
  if (name === 'devnet')
    return areaOf(from) === 'app' || areaOf(from) === 'bench' ? undefined : 'only the app (src/app.ts, src/server.ts, src/cli.ts, src/cli/) imports the devnet';
  // The thread helpers sit below core: anything may use them but native/, which stands apart.
  if (areaOf(from) === 'native') return 'native/ uses core only';
  return undefined;
}

/** Why `from` may not import `to` by a relative path, or undefined when it may. */
function refusal(from: string, to: string): string | undefined {
  const a = areaOf(from);
  const b = areaOf(to);
  if (a === 'bench') {
    if (to.startsWith('test/')) return 'bench/ imports nothing from test/';
    return b.startsWith('package:') ? 'a package is imported by its name, not by a path' : undefined;
  }
  if (to.startsWith('bench/') || to.startsWith('test/')) return 'the product imports nothing from bench/ or test/';
  if (a === b) return undefined;
  if (a.startsWith('package:')) return 'a package imports by path only its own files (another package by its name)';
  if (b.startsWith('package:')) return 'a package is imported by its name, not by a path';
  if (a === 'app' && b.startsWith('feature:') && !/^src\/features\/[^/]+\/index\.ts$/.test(to)) return 'the app enters a feature by its front door (index.ts)';
  if (a === 'app' || a === 'other') return undefined;
  if (a === 'workers') return b === 'infra' || b === 'core' ? undefined : 'the worker entry names no task: it reaches infra and core only';
  // native/ is the proof server's native side: the proving feature and the prover port reach it.
  if (b === 'native' && !/^src\/(features\/proving|infra\/prover)\//.test(from)) return 'native/ serves proving only (features/proving, infra/prover)';
  if (a === 'native') return b === 'core' ? undefined : 'native/ uses core only';
  if (a === 'core') return 'core imports nothing above it';
  if (a === 'infra') return b === 'core' || b === 'native' ? undefined : 'infra imports core only';
  // A feature.
  if (b === 'core' || b === 'infra' || b === 'native') return undefined;
  return b.startsWith('feature:') ? 'a feature imports no other feature' : `a feature does not import ${b}`;
}

export interface Violation {
  from: string;
  to: string;
  why: string;
}

/** Breaks of the rule; with `manifests`, also a package's imports of npm packages its package.json does not declare. */
export function violations(sources: Sources, manifests?: Manifests): Violation[] {
  const out: Violation[] = [];
  for (const [from, src] of sources) {
    if (!['src/', 'workers/', 'native/', 'packages/', 'bench/'].some((dir) => from.startsWith(dir))) continue;
    const own = packageOf(from);
    for (const spec of importsOf(src)) {
      if (LEDGER_PACKAGE.test(spec) && own !== 'ledger') out.push({ from, to: spec, why: 'only packages/ledger/ imports a ledger package' });
      const joined = spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(from), spec)) : '';
      if (from.startsWith('bench/') ? /^test\//.test(joined) : /(^|\/)(bench|test)\//.test(joined)) {
        out.push({ from, to: spec, why: from.startsWith('bench/') ? 'bench/ imports nothing from test/' : 'the product imports nothing from bench/ or test/' });
        continue;
      }
      const named = WORKSPACE.exec(spec);
      if (named) {
        const why = refusalByName(from, named[1]!);
        const target = manifests?.get(named[1]!);
        if (why) out.push({ from, to: spec, why });
        else if (own !== undefined && manifests && !manifests.get(own)?.declares.has(npmName(spec)))
          out.push({ from, to: spec, why: `packages/${own}/package.json does not declare ${npmName(spec)}` });
        else if (target && !exported(target.exports, named[2]))
          out.push({ from, to: spec, why: `packages/${named[1]}/package.json does not export ${named[2] ? `./${named[2]}` : '.'}` });
        continue;
      }
      const builtin = spec.startsWith('node:') || builtinModules.includes(spec);
      if (own !== undefined && BROWSER_PACKAGES.has(own) && builtin) out.push({ from, to: spec, why: `packages/${own} runs in browsers: no Node built-in` });
      else if (own !== undefined && manifests && !spec.startsWith('.') && !builtin && !manifests.get(own)?.declares.has(npmName(spec))) {
        out.push({ from, to: spec, why: `packages/${own}/package.json does not declare ${npmName(spec)}` });
      }
      const to = resolve(from, spec, sources);
      if (!to || !spec.startsWith('.')) continue;
      const why = refusal(from, to);
      if (why) out.push({ from, to, why });
    }
  }
  return out;
}

/** Strongly connected components of more than one node of a graph. */
function components(edges: ReadonlyMap<string, readonly string[]>): string[][] {
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
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** Each file's imports, resolved to files of `sources` (itself left out). */
function fileEdges(sources: Sources): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  // A file that starts a worker from itself (`new URL('./self', import.meta.url)`) is no circle.
  for (const [from, src] of sources)
    edges.set(
      from,
      importsOf(src)
        .map((s) => resolve(from, s, sources))
        .filter((x): x is string => x !== undefined && x !== from),
    );
  return edges;
}

/** Import circles (strongly connected components of more than one file), through packages too. */
export function circles(sources: Sources): string[][] {
  return components(fileEdges(sources));
}

/**
 * Folder loops in src/ and packages/: folders whose files import each other's round a loop, a
 * folder's files and those of a folder inside it included (a room that imports its parent's
 * files while the parent's import the room).
 */
export function folderCircles(sources: Sources): string[][] {
  const edges = new Map<string, string[]>();
  for (const [from, tos] of fileEdges(sources)) {
    if (!/^(src|packages)\//.test(from)) continue;
    const a = posix.dirname(from);
    const out = edges.get(a) ?? [];
    for (const to of tos) if (/^(src|packages)\//.test(to) && posix.dirname(to) !== a && !out.includes(posix.dirname(to))) out.push(posix.dirname(to));
    edges.set(a, out);
  }
  return components(edges);
}

export const relativeTo = (root: string, file: string): string => relative(root, file).split(/[\\/]/).join('/');
export { dirname };
