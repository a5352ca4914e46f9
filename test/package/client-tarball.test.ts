/**
 * What a user gets from `npm install`: the package packed (`npm pack`, with the `files` and
 * `exports` of package.json and the client built by src/client/tsconfig.json, as `prepack` builds
 * it), installed into an empty project, and used there: an ESM script imports `nightgate/client`
 * and calls `summary('preview')` against a nightgate this test started; a TypeScript file using
 * the client compiles against the installed declarations alone (no Node types). The server's
 * own build is not repeated here: the client and its declarations are what is checked.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import ts from 'typescript';
import { ManualClock } from '../../src/core/clock.js';
import { mountStats } from '../../src/features/stats/index.js';
import type { NetworkStats } from '../../src/features/stats/network-stats.js';
import { startApp } from '../helpers/app.js';
import { FakeIndexer } from '../fixtures/stats/fake-indexer.js';
import { T0 } from '../fixtures/stats/stats-app.js';

const run = promisify(execFile);
const ROOT = resolve('.');
const CLOSED = { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream' as const, proverUrl: 'http://127.0.0.1:9' };

const SCRIPT = `import { createClient, NightgateError } from 'nightgate/client';
const client = createClient({ baseUrl: process.argv[2], retries: 2 });
const summary = await client.summary('preview');
const missing = await client.block('preview', 999).catch((e) => e);
console.log(JSON.stringify({ network: summary.network.id, height: summary.latestBlock.height, missing: [missing instanceof NightgateError, missing.status, missing.code] }));
`;

const TYPED = `import { createClient, isNightgateError, type Summary } from 'nightgate/client';
import { nightgateProofProvider } from 'nightgate/client/midnight';
export async function height(baseUrl: string): Promise<number> {
  const client = createClient({ baseUrl, apiKey: 'k' });
  const s: Summary = await client.summary('preview');
  try {
    await client.balanceOnly(new Uint8Array([1]), { network: 'preview' });
  } catch (err) {
    if (isNightgateError(err, 'NO_DUST_AVAILABLE') && err.retryAfter !== undefined) return -err.retryAfter;
  }
  void nightgateProofProvider;
  return s.latestBlock.height;
}
`;

t.test('the packed client, installed in an empty project, calls a running nightgate', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nightgate-tarball-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  // The package as `npm pack` makes it from the repository once `prepack` has built dist/.
  const pkg = join(dir, 'package');
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'src/client/tsconfig.json'), '--outDir', join(pkg, 'dist')], { cwd: ROOT });
  for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']) cpSync(join(ROOT, f), join(pkg, f));
  const { stdout: packed } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: pkg });
  const { filename, files } = (JSON.parse(packed) as Array<{ filename: string; files: Array<{ path: string }> }>)[0]!;
  const paths = files.map((f) => f.path);
  t.ok(paths.includes('dist/src/client/index.js') && paths.includes('dist/src/client/index.d.ts') && paths.includes('dist/src/core/errors.d.ts'), 'the client, its declarations and the error codes are packed');
  t.notOk(paths.some((p) => p.startsWith('src/') || p.startsWith('test/')), 'no sources or tests');

  // An empty project. The package's dependencies come with it (from the npm cache when it has them).
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'uses-nightgate', version: '1.0.0', private: true, type: 'module' }));
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  t.ok(Object.keys(manifest.dependencies ?? {}).length > 0, 'the package has the server\'s dependencies');
  await run('npm', ['install', join(dir, filename), '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--omit=dev', '--no-package-lock'], { cwd: app, timeout: 180_000 });
  t.ok(readdirSync(join(app, 'node_modules', 'nightgate', 'dist', 'src', 'client')).includes('index.js'), 'installed');

  const fake = await FakeIndexer.start();
  for (let i = 0; i < 3; i++) fake.addBlock(T0 + i * 6000, [fake.tx()]);
  const s = await startApp(
    { networks: { mainnet: CLOSED, preprod: CLOSED, preview: fake.networkConfig() }, stats: { pollIntervalMs: 20, upstreamTimeoutMs: 2000 }, rateLimit: { publicEnabled: false } },
    { modules: [mountStats], clock: new ManualClock(T0 + 15_000) },
  );
  t.teardown(async () => {
    await s.close();
    await fake.close();
  });
  await s.app.context.component<NetworkStats>('stats:preview')!.follower.waitForHeight(2);

  writeFileSync(join(app, 'use.mjs'), SCRIPT);
  const { stdout } = await run(process.execPath, ['use.mjs', s.url], { cwd: app, timeout: 30_000 });
  t.strictSame(JSON.parse(stdout), { network: 'preview', height: 2, missing: [true, 404, 'BLOCK_NOT_FOUND'] });

  writeFileSync(join(app, 'typed.ts'), TYPED);
  const program = ts.createProgram([join(app, 'typed.ts')], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  t.strictSame(problems, [], 'a TypeScript user of the installed package compiles');
});
