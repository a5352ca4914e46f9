/**
 * Who uses each export of the product code (src/, workers/, native/, packages/<name>/src/), read
 * by the TypeScript compiler over tsconfig.test.json. A use is a reference from another file that
 * resolves to the export: a named or default import, a re-export by name, `ns.name` or
 * `ns.Name` through `import * as ns` or `import()`, a name destructured from a module namespace
 * (`const { a } = await import(…)`, also through `Promise.all`), `import('…').Name` as a type, an
 * interface merged into by `declare module`. Each re-export on the way counts as used too
 * (`@nightgate/ledger`'s index re-exporting `era.ts`'s names). A reference from the export's own
 * file is not a use, but is recorded (`inFile`).
 *
 * Only the names that some product module exports are resolved, and only where they can name an
 * export (an import or export specifier, the right of a dot, a destructured property), so the
 * checker infers the types of a few expressions rather than the whole program.
 */
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** Product code: what ships. Everything else the program reads (test/, bench/) only drives it. */
const PRODUCT = /^(?:src|workers|native|packages\/[^/]+\/src)\//;
const DRIVERS = /^(?:test|bench)\//;

export interface ExportUse {
  /** `path#name`, the path relative to the root (posix). */
  readonly key: string;
  readonly file: string;
  readonly name: string;
  /** Product files (other than its own) that use it, sorted. */
  readonly product: readonly string[];
  /** test/ and bench/ files that use it, sorted. */
  readonly drivers: readonly string[];
  /** Whether it re-exports another module's name (`export { x } from`, `export { imported }`) rather than declaring one. */
  readonly reexport: boolean;
  /** Whether its own file refers to it (besides declaring and exporting it). */
  readonly inFile: boolean;
}

export interface ExportReport {
  readonly files: number;
  readonly exports: readonly ExportUse[];
}

function posixRelative(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}

/**
 * Only the repository's own files are read: a package's declarations would cost most of the time
 * and name no export of ours. Module resolution still finds every file of the program.
 */
const READ_OWN_FILES: ts.CompilerOptions = { noEmit: true, noResolve: true, types: [] };

/** Every export of every product file under `root` (tsconfig.test.json's files) and the files that use it. */
export function exportUses(root: string): ExportReport {
  const configPath = join(root, 'tsconfig.test.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${configPath}`);
  return analyse(ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, ...READ_OWN_FILES } }), root);
}

/** The same over `files` (path relative to a root → text), with the repository's compiler options. */
export function exportUsesOf(root: string, files: Readonly<Record<string, string>>): ExportReport {
  const virtualRoot = join(root, '.export-usage-planted');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    ...READ_OWN_FILES,
  };
  const texts = new Map(Object.entries(files).map(([p, text]) => [join(virtualRoot, p), text]));
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.directoryExists = (d) => virtualRoot.startsWith(d) || d.startsWith(virtualRoot) || ts.sys.directoryExists(d);
  host.fileExists = (f) => texts.has(f) || (!f.startsWith(virtualRoot) && fileExists.call(host, f));
  host.readFile = (f) => texts.get(f) ?? (f.startsWith(virtualRoot) ? undefined : readFile.call(host, f));
  host.getSourceFile = (f, lang, ...rest) => {
    const text = texts.get(f);
    return text === undefined ? getSourceFile.call(host, f, lang, ...rest) : ts.createSourceFile(f, text, lang, true);
  };
  return analyse(ts.createProgram({ rootNames: [...texts.keys()], options, host }), virtualRoot);
}

function analyse(program: ts.Program, root: string): ExportReport {
  const checker = program.getTypeChecker();
  const pathOf = new Map<ts.SourceFile, string>();
  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || sf.fileName.includes('/node_modules/')) continue;
    const p = posixRelative(root, sf.fileName);
    if (PRODUCT.test(p) || DRIVERS.test(p)) pathOf.set(sf, p);
  }

  // The exports of each product file, by the symbol in its export table.
  const byExport = new Map<ts.Symbol, { file: string; name: string; reexport: boolean; users: Set<string>; inFile: boolean }>();
  const names = new Set<string>();
  for (const [sf, p] of pathOf) {
    if (!PRODUCT.test(p)) continue;
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    if (!moduleSymbol) continue;
    for (const sym of checker.getExportsOfModule(moduleSymbol)) {
      // `export *` lists the other module's own symbols: they are counted there.
      if (!sym.declarations?.some((d) => d.getSourceFile() === sf)) continue;
      const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
      // `declare module './x.js' { interface Name … }` in another file merges into the export: a use by that file.
      const augmenting = sym.declarations.map((d) => pathOf.get(d.getSourceFile())).filter((f): f is string => f !== undefined && f !== p);
      byExport.set(sym, { file: p, name: sym.name, reexport: reexports(sym, target), users: new Set(augmenting), inFile: false });
      names.add(sym.name);
    }
  }

  /** Marks the export `sym` names, and every export it is re-exported from, as used by `user`. */
  const use = (sym: ts.Symbol | undefined, user: string): void => {
    for (let s = sym, hops = 0; s && hops < 16; hops++) {
      const exported = byExport.get(s) ?? byExport.get(checker.getExportSymbolOfSymbol(s));
      if (exported && exported.file !== user) exported.users.add(user);
      if (!(s.flags & ts.SymbolFlags.Alias)) break;
      const next = checker.getImmediateAliasedSymbol(s);
      if (next === s) break;
      s = next;
    }
  };

  /** Marks the exports of `sf` that `sf` itself refers to (an identifier that is not a declaration's name nor an export specifier). */
  const markInFile = (sf: ts.SourceFile): void => {
    const own = new Map<string, ts.Symbol[]>();
    for (const [sym, e] of byExport) if (sym.declarations?.some((d) => d.getSourceFile() === sf)) own.set(e.name, [...(own.get(e.name) ?? []), sym]);
    const visit = (node: ts.Node): void => {
      if (
        ts.isIdentifier(node) &&
        own.has(node.text) &&
        !isDeclarationName(node) &&
        !ts.isExportSpecifier(node.parent) &&
        !ts.isExportAssignment(node.parent)
      ) {
        const sym = ts.isShorthandPropertyAssignment(node.parent) ? checker.getShorthandAssignmentValueSymbol(node.parent) : checker.getSymbolAtLocation(node);
        if (sym) {
          const exported = byExport.get(sym) ?? byExport.get(checker.getExportSymbolOfSymbol(sym));
          if (exported) exported.inFile = true;
          // `export { local }`: the local is not the export symbol but aliased by it.
          for (const candidate of own.get(node.text) ?? []) {
            if (candidate.flags & ts.SymbolFlags.Alias && checker.getImmediateAliasedSymbol(candidate) === sym) byExport.get(candidate)!.inFile = true;
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  };

  for (const [sf, p] of pathOf) {
    const visit = (node: ts.Node): void => {
      if ((ts.isImportSpecifier(node) || ts.isExportSpecifier(node)) && names.has((node.propertyName ?? node.name).text)) {
        // `export { local }` without `from`: the local's own import is the use.
        if (ts.isImportSpecifier(node) || node.parent.parent.moduleSpecifier) use(checker.getSymbolAtLocation(node.name), p);
      } else if (ts.isIdentifier(node) && namespaces.has(node.text) && handedOn(node)) {
        // A namespace handed on whole (`Object.values(ns)`, `f(ns)`): every export of its module may be read.
        const module = namedModule(node);
        if (module) for (const s of checker.getExportsOfModule(module)) use(s, p);
      } else if (ts.isImportClause(node) && node.name) {
        use(checker.getSymbolAtLocation(node.name), p);
      } else if (
        (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) &&
        names.has(ts.isPropertyAccessExpression(node) ? node.name.text : node.right.text)
      ) {
        const right = ts.isPropertyAccessExpression(node) ? node.name : node.right;
        const left = ts.isPropertyAccessExpression(node) ? node.expression : node.left;
        // Through a cast (`(ns as { NAME?: number }).NAME`) the property is the cast's: look the name up in the module.
        const module = namedModule(left);
        if (module)
          use(
            checker.getExportsOfModule(module).find((s) => s.name === right.text),
            p,
          );
      } else if (ts.isImportTypeNode(node) && node.qualifier) {
        const right = ts.isIdentifier(node.qualifier) ? node.qualifier : node.qualifier.right;
        if (names.has(right.text)) use(checker.getSymbolAtLocation(right), p);
      } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const prop = node.propertyName ?? node.name;
        // `const { a } = ns`, `const [{ a }, { b }] = await Promise.all([import(…), import(…)])`: the pattern's type has the export as a property.
        if (ts.isIdentifier(prop) && names.has(prop.text)) {
          const type = checker.getTypeAtLocation(node.parent);
          use(type.getProperty(prop.text), p);
        }
      }
      ts.forEachChild(node, visit);
    };
    /** The module `e` is the namespace of: an identifier bound by `import * as` or to `await import(…)`, or `(await import(…))`, casts aside. */
    const namedModule = (e: ts.Node): ts.Symbol | undefined => {
      e = unwrap(e);
      if (ts.isCallExpression(e) && e.expression.kind === ts.SyntaxKind.ImportKeyword) return checker.getSymbolAtLocation(e.arguments[0]!);
      if (!ts.isIdentifier(e)) return undefined;
      const decl = checker.getSymbolAtLocation(e)?.declarations?.[0];
      if (decl && ts.isNamespaceImport(decl)) return checker.getSymbolAtLocation(decl.parent.parent.moduleSpecifier);
      if (decl && ts.isVariableDeclaration(decl) && decl.initializer) return namedModule(decl.initializer);
      return undefined;
    };
    const namespaces = new Set<string>();
    for (const st of sf.statements) {
      const bindings = ts.isImportDeclaration(st) ? st.importClause?.namedBindings : undefined;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    }
    visit(sf);
    if (PRODUCT.test(p)) markInFile(sf);
  }

  const exports: ExportUse[] = [...byExport.values()]
    .map(({ file, name, reexport, users, inFile }) => {
      const sorted = [...users].sort();
      return {
        key: `${file}#${name}`,
        file,
        name,
        reexport,
        inFile,
        product: sorted.filter((u) => PRODUCT.test(u)),
        drivers: sorted.filter((u) => DRIVERS.test(u)),
      };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { files: pathOf.size, exports };
}

/** An alias whose target is declared in another file. */
function reexports(sym: ts.Symbol, target: ts.Symbol): boolean {
  if (!(sym.flags & ts.SymbolFlags.Alias)) return false;
  const home = sym.declarations?.[0]?.getSourceFile();
  return !(target.declarations ?? []).some((d) => d.getSourceFile() === home);
}

function isDeclarationName(node: ts.Identifier): boolean {
  return ts.getNameOfDeclaration(node.parent as ts.Declaration) === node && !ts.isShorthandPropertyAssignment(node.parent);
}

/** Whether a namespace's identifier is used otherwise than to read one of its names (`ns.name`, `(ns as T).name`, `ns.Type`). */
function handedOn(id: ts.Identifier): boolean {
  if (ts.isNamespaceImport(id.parent) || (ts.isQualifiedName(id.parent) && id.parent.left === id)) return false;
  let top: ts.Node = id;
  while (
    ts.isParenthesizedExpression(top.parent) ||
    ts.isAsExpression(top.parent) ||
    ts.isTypeAssertionExpression(top.parent) ||
    ts.isNonNullExpression(top.parent) ||
    ts.isSatisfiesExpression(top.parent)
  )
    top = top.parent;
  // `const { a } = ns` and `const m = ns` are followed through the pattern's names and m's reads.
  if (ts.isVariableDeclaration(top.parent) && top.parent.initializer === top) return false;
  return !(ts.isPropertyAccessExpression(top.parent) && top.parent.expression === top);
}

/** `e` without parentheses, `await`, `!` and casts. */
function unwrap(e: ts.Node): ts.Node {
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAwaitExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isTypeAssertionExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isSatisfiesExpression(e)
  )
    e = e.expression;
  return e;
}

/** Exports the rule lets be: `names` of `file` ('*': all of them), each for its `reason`. */
export interface Allowed {
  readonly file: string;
  readonly names: '*' | readonly string[];
  readonly reason: string;
}

/**
 * The rule: an export is imported by some other file, and a declaration the product does not use
 * (neither another product file nor its own) is not kept for test/ and bench/ alone. An export
 * that only tests import but that its own file uses is the module's inside, opened to its tests.
 * Answers each break as `path#name: why`, then each allowance that excuses nothing.
 */
export function exportViolations(report: ExportReport, allowed: readonly Allowed[]): { breaks: string[]; stale: string[] } {
  const isAllowed = (e: ExportUse): Allowed | undefined => allowed.find((a) => a.file === e.file && (a.names === '*' || a.names.includes(e.name)));
  const excused = new Set<string>();
  const breaks: string[] = [];
  for (const e of report.exports) {
    let why: string | undefined;
    if (e.product.length === 0 && e.drivers.length === 0) why = e.inFile || e.reexport ? 'nothing imports it: un-export it' : 'nothing uses it: delete it';
    else if (e.product.length === 0 && !e.inFile && !e.reexport)
      why = `only ${e.drivers.length === 1 ? e.drivers[0] : `${e.drivers.length} test and bench files`} use${e.drivers.length === 1 ? 's' : ''} it`;
    if (why === undefined) continue;
    const allowance = isAllowed(e);
    if (allowance) excused.add(`${allowance.file}#${allowance.names === '*' ? '*' : e.name}`);
    else breaks.push(`${e.key}: ${why}`);
  }
  const stale = allowed.flatMap((a) => (a.names === '*' ? [`${a.file}#*`] : a.names.map((n) => `${a.file}#${n}`))).filter((k) => !excused.has(k));
  return { breaks, stale };
}
