/**
 * The client's error codes are the server's: `ErrorCode` as the client exports it (from its
 * generated OpenAPI types), read by the TypeScript checker, against the catalogue's codes
 * (src/core/errors.ts). A code added to or dropped from the catalogue fails here until the
 * client's types are regenerated (`npm run client:types`).
 */
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';
import { ERRORS } from '../../../src/core/errors.js';

const ENTRY = fileURLToPath(new URL('../../../packages/client/src/index.ts', import.meta.url));

/** The string literals of the type `name` that `file` exports. */
function exportedLiterals(file: string, name: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  let symbol = checker.getExportsOfModule(module).find((s) => s.name === name);
  if (!symbol) throw new Error(`${file} exports no ${name}`);
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  return (type.isUnion() ? type.types : [type]).map((m) => (m.isStringLiteral() ? m.value : `(not a string literal: ${checker.typeToString(m)})`));
}

t.test("the client's ErrorCode is the server's catalogue, code for code", async (t) => {
  const client = new Set(exportedLiterals(ENTRY, 'ErrorCode'));
  const server = Object.keys(ERRORS);
  t.ok(client.size > 50, `${client.size} codes in the client's ErrorCode, ${server.length} in the catalogue`);
  t.same(
    server.filter((c) => !client.has(c)),
    [],
    "every code of the catalogue is one of the client's (else: npm run client:types)",
  );
  t.same(
    [...client].filter((c) => !(c in ERRORS)),
    [],
    'the client has no code the catalogue lacks',
  );
});
