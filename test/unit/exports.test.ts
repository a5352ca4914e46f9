/**
 * Every export of the product (src/, workers/, native/, packages/<name>/src/) is imported by some
 * other file, and none is product code kept for the tests alone: test/helpers/export-usage.ts reads
 * the uses with the TypeScript compiler, and the few exports read from outside the repository or
 * by name are allowed below, each with its reason.
 */
import t from 'tap';
import { exportUses, exportUsesOf, exportViolations, type Allowed } from '../helpers/export-usage.js';
import { ROOT } from '../helpers/spawn.js';

const ALLOWED: readonly Allowed[] = [
  { file: 'packages/client/src/index.ts', names: '*', reason: "@nightgate/client's entry: applications import it, the tests stand in for them" },
  { file: 'packages/client/src/midnight.ts', names: '*', reason: "the Midnight.js adapters' entry, @nightgate/client/midnight" },
  { file: 'packages/client/src/openapi-types.ts', names: '*', reason: 'generated whole by openapi-typescript (npm run client:types)' },
  { file: 'workers/index.ts', names: '*', reason: "the pool's thread entry: piscina preloads it by its default export" },
  { file: 'src/features/proving/worker/tasks/index.ts', names: '*', reason: "proving's task module: the pool runs its exports by task name" },
  { file: 'src/features/sponsorship/worker/tasks/index.ts', names: '*', reason: "sponsorship's task module: the pool runs its exports by task name" },
  {
    file: 'packages/devnet/src/genesis.ts',
    names: ['SPONSOR_DUST_UTXOS'],
    reason:
      "on the devnet's ./genesis subpath for the programs that drive a devnet: the DUST UTXOs each sponsor wallet starts with, which bench sizes its load by",
  },
  {
    file: 'packages/ledger/src/index.ts',
    names: ['importLedger'],
    reason:
      "fills the ledger boundary's private cache with a package's ES module instance, for a process whose loader gives require another (the tests, under tsx)",
  },
];

t.test('every product export is imported, and none is there for the tests alone', async (t) => {
  const started = process.cpuUsage();
  const report = exportUses(ROOT);
  const { user, system } = process.cpuUsage(started);
  const ms = (user + system) / 1000;
  t.ok(report.files > 500, `${report.files} files read`);
  t.ok(report.exports.length > 800, `${report.exports.length} exports`);
  t.comment(`read in ${Math.round(ms)} ms of CPU`);
  const { breaks, stale } = exportViolations(report, ALLOWED);
  t.strictSame(breaks, [], 'un-export what only its own file uses; delete what nothing uses; test through what the product runs');
  t.strictSame(stale, [], 'every allowance still excuses an export');
});

t.test('each kind of use is seen, and each kind of break is caught', async (t) => {
  const report = exportUsesOf(ROOT, {
    'src/a.ts': [
      'export function called(): number { return 1; }',
      'export function nobodys(): void {}',
      'export function forwarded(): void {}',
      'export const ownOnly = 2;',
      'export const doubled = ownOnly * 2;',
      'export function testsOnly(): void {}',
      'export function testedInside(): number { return 3; }',
      'export const inside = testedInside();',
      'export interface Shape { side: number }',
      'export const viaNamespace = 4;',
      'export const viaDynamic = 5;',
      'export const viaPattern = 6;',
      'export const viaCast = 7;',
    ].join('\n'),
    'src/c.ts': 'export const handedOn = 8;\n',
    'src/index.ts': "export { called, viaDynamic } from './a.js';\nexport { forwarded as renamed } from './a.js';\n",
    'src/b.ts': [
      "import { called } from './index.js';",
      "import * as a from './a.js';",
      "import type { Shape } from './a.js';",
      "import * as c from './c.js';",
      'export const cast = (a as { viaCast?: number }).viaCast;',
      'export const keys = Object.keys(c);',
      'export const sum = called() + a.viaNamespace + a.doubled + a.inside;',
      'export const shape: Shape = { side: sum };',
      "export async function later(): Promise<number> { const { viaDynamic } = await import('./index.js'); const [{ viaPattern " +
        "}] = await Promise.all([import('./a.js')]); return viaDynamic + viaPattern; }",
    ].join('\n'),
    'src/main.ts': "import { cast, keys, later, shape } from './b.js';\nvoid later(); void shape; void cast; void keys;\n",
    'test/a.test.ts': "import { testsOnly, testedInside } from '../src/a.js';\ntestsOnly(); testedInside();\n",
  });
  const { breaks, stale } = exportViolations(report, [{ file: 'src/b.ts', names: ['sum', 'unlisted'], reason: 'planted' }]);
  t.strictSame(breaks, [
    'src/a.ts#nobodys: nothing uses it: delete it',
    'src/a.ts#ownOnly: nothing imports it: un-export it',
    'src/a.ts#testsOnly: only test/a.test.ts uses it',
    'src/index.ts#renamed: nothing imports it: un-export it',
  ]);
  t.notOk(
    breaks.some((b) => b.startsWith('src/b.ts#sum')),
    'an allowed export is excused',
  );
  t.strictSame(stale, ['src/b.ts#unlisted'], 'an allowance that excuses nothing is named');
  t.strictSame(
    report.exports.find((e) => e.key === 'src/a.ts#forwarded')?.product,
    ['src/index.ts'],
    'a re-export is a use, though nothing imports the re-export',
  );
  const used = (key: string): readonly string[] | undefined => report.exports.find((e) => e.key === key)?.product;
  t.strictSame(used('src/a.ts#called'), ['src/b.ts', 'src/index.ts'], 'through a re-export, which counts as a use of the original');
  t.strictSame(used('src/a.ts#viaNamespace'), ['src/b.ts'], 'a.name through import * as a');
  t.strictSame(used('src/a.ts#viaDynamic'), ['src/b.ts', 'src/index.ts'], 'destructured from await import()');
  t.strictSame(used('src/a.ts#viaPattern'), ['src/b.ts'], 'destructured from Promise.all of imports');
  t.strictSame(used('src/a.ts#Shape'), ['src/b.ts'], 'a type import');
  t.strictSame(used('src/a.ts#viaCast'), ['src/b.ts'], 'read through a cast of the namespace');
  t.strictSame(used('src/c.ts#handedOn'), ['src/b.ts'], 'in a namespace handed on whole');
});
