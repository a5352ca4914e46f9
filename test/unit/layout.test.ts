/**
 * The layout's rule (test/helpers/layout-rule.ts) holds on the tree, and the check catches each
 * kind of break when one is planted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/spawn.js';
import { circles, folderCircles, importsOf, readManifests, readSources, violations, type Sources } from '../helpers/layout-rule.js';

const DIRS = ['src', 'workers', 'native', 'bench', 'packages'];
/** Generated, not hand-written: the client's types from the OpenAPI document, the indexer's schema text. */
const GENERATED = new Set(['packages/client/src/openapi-types.ts', 'packages/devnet/src/indexer-schema.ts']);
const MAX_LINES = 400;
/** The languages written by hand here; scripts without an extension are read from these folders. */
const HAND_WRITTEN = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.css', '.html', '.sh', '.md', '.yml', '.yaml']);
const SCRIPT_DIRS = new Set(['.ci', 'scripts']);
/** Not read: dependencies, build and test output, recorded bench results. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.tap', 'coverage', 'test-artifacts', 'bench/results']);

/** Every hand-written file of the repository, by its path relative to the root (posix). */
function handWritten(dir = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name) && !SKIPPED_DIRS.has(p)) for (const [f, text] of handWritten(p)) out.set(f, text);
    } else if (e.isFile() && !GENERATED.has(p) && (HAND_WRITTEN.has(extname(e.name)) || (extname(e.name) === '' && SCRIPT_DIRS.has(dir)))) {
      out.set(p, readFileSync(join(ROOT, p), 'utf8'));
    }
  }
  return out;
}

/** The files over MAX_LINES, as `path: lines`. */
function overCap(files: ReadonlyMap<string, string>): string[] {
  return [...files].filter(([, text]) => text.split('\n').length > MAX_LINES).map(([f, text]) => `${f}: ${text.split('\n').length}`);
}

const tree = readSources(ROOT, DIRS);
const manifests = readManifests(ROOT);
const planted = (extra: Record<string, string>): Sources => new Map([...tree, ...Object.entries(extra)]);

t.test('features → infra → core, never back; packages by name, as allowed and declared; no import circles', async (t) => {
  t.ok(tree.size > 200, `${tree.size} files read`);
  t.ok(
    [...tree.keys()].some((f) => f.startsWith('packages/ledger/src/')),
    'the workspace packages are read',
  );
  t.same(violations(tree, manifests), []);
  t.same(circles(tree), []);
  t.same(folderCircles(tree), [], 'no folder loop in src/ or packages/');
});

t.test('every workspace package is built first and run from its sources; those the gateway uses are bundled', async (t) => {
  const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as {
    references?: Array<{ path: string }>;
    compilerOptions: { paths?: Record<string, string[]> };
  };
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bundleDependencies?: string[] };
  const paths = tsconfig.compilerOptions.paths ?? {};
  t.ok(manifests.size >= 2, `${manifests.size} packages`);
  // The packages the gateway imports by name (src/, workers/, native/): it must carry them.
  const used = new Set(
    [...tree]
      .filter(([f]) => /^(src|workers|native)\//.test(f))
      .flatMap(([, text]) => importsOf(text))
      .flatMap((s) => /^@nightgate\/([\w-]+)/.exec(s)?.[1] ?? []),
  );
  t.ok(used.has('ledger') && !used.has('client'), `the gateway uses ${[...used].sort().join(', ')}`);
  for (const [name, { exports }] of manifests) {
    t.ok(
      tsconfig.references?.some((r) => r.path === `packages/${name}`),
      `tsconfig.json references packages/${name} (tsc -b builds it first)`,
    );
    for (const sub of exports.filter((e) => e !== './package.json')) {
      const spec = `@nightgate/${name}${sub.slice(1)}`;
      const mapped = paths[spec] ?? paths[`@nightgate/${name}/*`]?.map((p) => p.replace('*', sub.slice(2)));
      t.same(mapped, [sub === '.' ? `./packages/${name}/src/index.ts` : `./packages/${name}/src${sub.slice(1)}.ts`], `${spec} runs from its sources`);
    }
    if (used.has(name)) {
      t.equal(pkg.dependencies[`@nightgate/${name}`], '1.0.0', `nightgate depends on @nightgate/${name}`);
      t.ok(pkg.bundleDependencies?.includes(`@nightgate/${name}`), `and bundles it`);
    } else {
      t.notOk(
        `@nightgate/${name}` in pkg.dependencies || pkg.bundleDependencies?.includes(`@nightgate/${name}`),
        `@nightgate/${name} is installed on its own: nightgate neither depends on it nor bundles it`,
      );
    }
  }
});

t.test('no hand-written file of any language is over 400 lines, tests and docs included', async (t) => {
  const files = handWritten();
  t.ok(
    ['test/unit/layout.test.ts', 'src/features/site/dashboard/static/dashboard.js', 'README.md', '.ci/run'].every((f) => files.has(f)),
    `${files.size} files read: tests, scripts, pages and docs too`,
  );
  t.same(overCap(files), []);
  const long = Array.from({ length: MAX_LINES + 1 }, () => 'x').join('\n');
  t.same(
    overCap(
      new Map([
        ['src/features/site/dashboard/static/planted.js', long],
        ['test/integration/planted.test.ts', long],
      ]),
    ),
    [`src/features/site/dashboard/static/planted.js: ${MAX_LINES + 1}`, `test/integration/planted.test.ts: ${MAX_LINES + 1}`],
    'a planted long script and a planted long test are caught',
  );
});

t.test('a planted break of each kind is caught', async (t) => {
  t.same(
    folderCircles(planted({ 'src/features/sponsorship/allocator/planted.ts': "import type { QueueArgs } from '../common/balance-task.js';\n" })),
    [['src/features/sponsorship/allocator', 'src/features/sponsorship/common']],
    'a folder loop: two rooms importing each other',
  );
  t.same(
    folderCircles(planted({ 'src/core/config/planted.ts': "import { KeyStore } from '../guards/auth.js';\n" })),
    [['src/core/config', 'src/core/guards']],
    'a folder loop: config and guards',
  );
  t.same(
    folderCircles(planted({ 'src/features/sponsorship/common/planted.ts': "import type { SponsorshipService } from '../sponsorship.js';\n" })).length,
    1,
    "a folder loop: a room importing its parent's files",
  );
  t.same(violations(planted({ 'src/core/planted.ts': "import type { StatsComponent } from '../features/stats/index.js';\n" })), [
    { from: 'src/core/planted.ts', to: 'src/features/stats/index.ts', why: 'core imports nothing above it' },
  ]);
  t.same(
    violations(planted({ 'src/infra/planted.ts': "export { x } from '../features/sponsorship/admission/budget.js';\n" })).map((v) => v.why),
    ['infra imports core only'],
  );
  t.same(
    violations(planted({ 'src/features/stats/planted.ts': "const m = await import('../sponsorship/index.js');\n" })).map((v) => v.why),
    ['a feature imports no other feature'],
  );
  t.same(
    violations(planted({ 'src/features/proving/planted.ts': "import { Transaction } from '@midnightntwrk/ledger-v9';\n" })).map((v) => v.why),
    ['only packages/ledger/ imports a ledger package'],
  );
  t.same(
    violations(planted({ 'src/cli/planted.ts': "import { collectStats } from '../features/stats/metrics.js';\n" })).map((v) => v.why),
    ['the app enters a feature by its front door (index.ts)'],
  );
  t.same(
    violations(planted({ 'src/infra/ledger/planted.ts': "import type * as V8 from '@midnight-ntwrk/ledger-v8';\n" })).map((v) => v.why),
    ['only packages/ledger/ imports a ledger package'],
  );
  t.same(
    violations(planted({ 'src/features/stats/planted.ts': "import { ledger } from '@nightgate/ledger';\n" })).map((v) => v.why),
    ['the product reaches the ledger boundary through src/infra/ledger/'],
  );
  t.same(
    violations(planted({ 'src/infra/planted.ts': "import { eraName } from '../../packages/ledger/src/era.js';\n" })).map((v) => v.why),
    ['a package is imported by its name, not by a path'],
  );
  t.same(
    violations(planted({ 'packages/ledger/src/planted.ts': "import type { Clock } from '../../../src/core/clock.js';\n" })).map((v) => v.why),
    ['a package imports by path only its own files (another package by its name)'],
  );
  t.same(
    violations(planted({ 'packages/ledger/src/planted.ts': "import { parse } from 'graphql';\n" }), manifests).map((v) => v.why),
    ['packages/ledger/package.json does not declare graphql'],
  );
  t.same(
    violations(planted({ 'packages/ledger/src/planted.ts': "import { startModuleWorker } from '@nightgate/threads';\n" })).map((v) => v.why),
    ['packages/ledger imports no workspace package'],
  );
  t.same(
    violations(planted({ 'src/features/stats/planted.ts': "import { lowerThreadPriority } from '@nightgate/threads/thread-priority';\n" }), manifests).map(
      (v) => v.why,
    ),
    ['packages/threads/package.json does not export ./thread-priority'],
  );
  const onlyProving = 'native/ serves proving only (features/proving, infra/prover)';
  t.same(
    violations(planted({ 'src/features/stats/planted.ts': "import { locateProofServer } from '../../../native/locate.js';\n" })).map((v) => v.why),
    [onlyProving],
  );
  t.same(
    violations(planted({ 'src/infra/indexer/planted.ts': "import { locateProofServer } from '../../../native/locate.js';\n" })).map((v) => v.why),
    [onlyProving],
  );
  t.same(
    violations(planted({ 'src/core/planted.ts': "import { locateProofServer } from '../../native/locate.js';\n" })).map((v) => v.why),
    [onlyProving],
  );
  t.same(violations(planted({ 'src/infra/prover/planted.ts': "import { locateProofServer } from '../../../native/locate.js';\n" })), [], 'the prover port may');
  t.same(
    violations(planted({ 'packages/client/src/planted.ts': "import { startModuleWorker } from '@nightgate/threads';\n" })).map((v) => v.why),
    ['packages/client imports no workspace package'],
  );
  t.same(
    violations(planted({ 'packages/client/src/planted.ts': "import type { ErrorCode } from '../../../src/core/errors.js';\n" })).map((v) => v.why),
    ['a package imports by path only its own files (another package by its name)'],
    'not even the error catalogue',
  );
  t.same(
    violations(
      planted({ 'packages/client/src/planted.ts': "import { readFile } from 'node:fs/promises';\nimport { Buffer } from 'buffer';\n" }),
      manifests,
    ).map((v) => v.why),
    ['packages/client runs in browsers: no Node built-in', 'packages/client runs in browsers: no Node built-in'],
  );
  t.same(
    violations(planted({ 'packages/client/src/planted.ts': "import createClient from 'openapi-fetch';\n" }), manifests).map((v) => v.why),
    ['packages/client/package.json does not declare openapi-fetch'],
    'the client has no dependency',
  );
  t.same(
    violations(planted({ 'src/features/stats/planted.ts': "import type { Summary } from '@nightgate/client';\n" }), manifests).map((v) => v.why),
    ['the gateway does not use the client (it is installed on its own)'],
  );
  const onlyTheApp = 'only the app (src/app.ts, src/server.ts, src/cli.ts, src/cli/) imports the devnet';
  t.same(
    violations(planted({ 'src/infra/planted.ts': "import type { DevnetNetworkInfo } from '@nightgate/devnet';\n" })).map((v) => v.why),
    [onlyTheApp],
  );
  t.same(
    violations(planted({ 'src/features/sponsorship/planted.ts': "const { startDevnet } = await import('@nightgate/devnet');\n" })).map((v) => v.why),
    [onlyTheApp],
  );
  t.same(
    violations(planted({ 'workers/planted.ts': "import { devnetTestAccount } from '@nightgate/devnet/test-accounts';\n" })).map((v) => v.why),
    [onlyTheApp],
    'no worker loads the devnet',
  );
  t.same(
    violations(planted({ 'workers/planted.ts': "export { prove } from '../src/features/proving/worker/tasks/prove.js';\n" })).map((v) => v.why),
    ['the worker entry names no task: it reaches infra and core only'],
    "a feature's task stays in its feature",
  );
  t.same(
    violations(planted({ 'src/infra/pool/planted.ts': "export const entry = new URL('../../../workers/index.js', import.meta.url);\n" })).map((v) => v.why),
    ['infra imports core only'],
    'the pool is handed its entry',
  );
  t.same(violations(planted({ 'src/cli/planted.ts': "import { devnetTestAccount } from '@nightgate/devnet/test-accounts';\n" }), manifests), [], 'the app may');
  t.same(
    violations(planted({ 'src/cli/planted.ts': "import { buildGenesis } from '@nightgate/devnet/chain';\n" }), manifests).map((v) => v.why),
    ['packages/devnet/package.json does not export ./chain'],
  );
  t.same(
    violations(planted({ 'packages/devnet/src/planted.ts': "import { systemClock } from '../../../src/core/clock.js';\n" })).map((v) => v.why),
    ['a package imports by path only its own files (another package by its name)'],
  );
  t.same(
    violations(planted({ 'packages/devnet/src/planted.ts': "import { Transaction } from '@midnightntwrk/ledger-v9';\n" })).map((v) => v.why),
    ['only packages/ledger/ imports a ledger package'],
  );
  t.same(
    violations(
      planted({ 'packages/devnet/src/planted.ts': "import { pino } from 'pino';\nimport { WebSocketServer } from 'ws';\nimport { Redis } from 'redis';\n" }),
      manifests,
    ).map((v) => v.why),
    ['packages/devnet/package.json does not declare redis'],
  );
  const era = 'packages/ledger/src/era.ts';
  const backToTheDevnet = planted({ [era]: `${tree.get(era)!}import type { EmbeddedDevnet } from '@nightgate/devnet';\n` });
  t.same(
    violations(backToTheDevnet).map((v) => v.why),
    ['packages/ledger imports no workspace package'],
  );
  t.ok(
    circles(backToTheDevnet).some((c) => c.includes(era) && c.includes('packages/devnet/src/launch.ts')),
    'a circle through two packages is found',
  );
  t.same(
    violations(planted({ 'src/infra/planted.ts': "import { x } from '../../test/helpers/spawn.js';\n" })).map((v) => v.why),
    ['the product imports nothing from bench/ or test/'],
  );
  t.same(
    violations(planted({ 'src/core/planted.ts': "// import { x } from '../features/stats/index.js';\n/* import '../features/stats/index.js' */\n" })),
    [],
    'a path in a comment is not an import',
  );
  t.same(
    violations(planted({ 'src/core/planted.ts': "const open = '/*';\nimport { x } from '../features/stats/index.js';\nconst close = '*/';\n" })).map(
      (v) => v.why,
    ),
    ['core imports nothing above it'],
    'a comment opener inside a string hides no import',
  );
  t.same(
    violations(planted({ 'src/infra/planted.ts': "const entry = new URL('../features/proving/worker/request.js', import.meta.url);\n" })).map((v) => v.why),
    ['infra imports core only'],
    'a worker entry is an import',
  );
  t.same(
    violations(planted({ 'src/infra/planted.ts': "type T = import('../features/stats/index.js').StatsComponent;\n" })).map((v) => v.why),
    ['infra imports core only'],
    'an import type is an import',
  );
  t.same(
    violations(planted({ 'bench/planted.ts': "import { ROOT } from '../test/helpers/spawn.js';\n" })).map((v) => v.why),
    ['bench/ imports nothing from test/'],
    'bench/ is judged',
  );
  t.same(
    violations(planted({ 'bench/lib/planted.ts': "import { buildGenesis } from '../../packages/devnet/src/genesis.js';\n" })).map((v) => v.why),
    ['a package is imported by its name, not by a path'],
  );
  t.same(
    violations(
      planted({
        'bench/lib/planted.ts':
          "import { startDevnet } from '@nightgate/devnet';\nimport { KEEPER_RESERVE } from '../../src/features/sponsorship/common/pool-constants.js';\n",
      }),
      manifests,
    ),
    [],
    'bench/ may start a devnet and drive any of src/',
  );
  t.same(
    circles(planted({ 'bench/planted.ts': "startModuleWorker(new URL('./planted', import.meta.url), import.meta.url);\n" })),
    [],
    'a file started as its own worker is no circle',
  );
  t.same(circles(planted({ 'src/core/a.ts': "import { b } from './b.js';\n", 'src/core/b.ts': "import type { a } from './a.js';\n" })), [
    ['src/core/a.ts', 'src/core/b.ts'],
  ]);
});
