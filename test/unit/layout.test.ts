/**
 * The layout's rule (test/helpers/layout-rule.ts) holds on the tree, and the check catches each
 * kind of break when one is planted.
 */
import t from 'tap';
import { ROOT } from '../helpers/spawn.js';
import { circles, readSources, violations, type Sources } from '../helpers/layout-rule.js';

const DIRS = ['src', 'workers', 'native', 'bench'];
/** Generated, not hand-written: the client's types from the OpenAPI document, the indexer's schema text. */
const GENERATED = new Set(['src/client/openapi-types.ts', 'src/devnet/indexer-schema.ts']);
const MAX_LINES = 400;

const tree = readSources(ROOT, DIRS);
const planted = (extra: Record<string, string>): Sources => new Map([...tree, ...Object.entries(extra)]);

t.test('features → infra → core, never back; no import circles', async (t) => {
  t.ok(tree.size > 200, `${tree.size} files read`);
  t.same(violations(tree), []);
  t.same(circles(tree), []);
});

t.test('no hand-written source file is over 400 lines', async (t) => {
  const long = [...tree].filter(([f, s]) => !GENERATED.has(f) && s.split('\n').length > MAX_LINES).map(([f, s]) => `${f}: ${s.split('\n').length}`);
  t.same(long, []);
});

t.test('a planted break of each kind is caught', async (t) => {
  t.same(violations(planted({ 'src/core/planted.ts': "import type { StatsComponent } from '../features/stats/index.js';\n" })), [
    { from: 'src/core/planted.ts', to: 'src/features/stats/index.ts', why: 'core imports nothing above it' },
  ]);
  t.same(violations(planted({ 'src/infra/planted.ts': "export { x } from '../features/sponsorship/budget.js';\n" })).map((v) => v.why), ['infra imports core only']);
  t.same(violations(planted({ 'src/features/stats/planted.ts': "const m = await import('../sponsorship/index.js');\n" })).map((v) => v.why), ['a feature imports no other feature']);
  t.same(violations(planted({ 'src/features/proving/planted.ts': "import { Transaction } from '@midnightntwrk/ledger-v9';\n" })).map((v) => v.why), ['only src/infra/ledger/ imports a ledger package']);
  t.same(violations(planted({ 'src/infra/planted.ts': "import { x } from '../../test/helpers/spawn.js';\n" })).map((v) => v.why), ['the product imports nothing from bench/ or test/']);
  t.same(violations(planted({ 'src/core/planted.ts': "// import { x } from '../features/stats/index.js';\n/* import '../features/stats/index.js' */\n" })), [], 'a path in a comment is not an import');
  t.same(circles(planted({ 'src/core/a.ts': "import { b } from './b.js';\n", 'src/core/b.ts': "import type { a } from './a.js';\n" })), [['src/core/a.ts', 'src/core/b.ts']]);
});
