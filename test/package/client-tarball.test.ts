/**
 * What a dApp or a wallet backend gets: `@nightgate/client` as `npm pack` makes it in
 * packages/client (its prepack builds it), within its size budget and with its built modules and
 * declarations only, installed into an empty project where nothing else comes with it (it has no
 * dependencies), and used there against a nightgate this test started on a fake indexer: an ESM
 * script in Node calls `summary('preview')` and meets a missing block as a NightgateError 404,
 * and a TypeScript file compiles against the installed declarations alone (no Node types).
 * test/browser/client-package.test.ts loads the same installed package in Chromium.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import ts from 'typescript';
import { CLIENT, packAndInstallClient, run, startStatsGateway, type InstalledClient } from '../helpers/client-tarball.js';

/** The tarball's budget, and how far under it the test wants it: growth shows before the budget is spent. */
const BUDGET = 100_000;
const MARGIN = 20_000;
const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;

const SCRIPT = `import { createClient, NightgateError } from '@nightgate/client';
import { nightgateMidnightProvider } from '@nightgate/client/midnight';
const client = createClient({ baseUrl: process.argv[2], retries: 2 });
const summary = await client.summary('preview');
const missing = await client.block('preview', 999).catch((e) => e);
console.log(JSON.stringify({
  network: summary.network.id, height: summary.latestBlock.height,
  missing: [missing instanceof NightgateError, missing.status, missing.code],
  adapters: typeof nightgateMidnightProvider(client).submitTx,
}));
`;

/** Uses the types as a dApp would; each @ts-expect-error fails the compile if the declarations were loose (`any`). */
const TYPED = `import { createClient, isNightgateError, NightgateError, type ErrorCode, type Summary } from '@nightgate/client';
import { nightgateProofProvider, sponsoredWalletProvider } from '@nightgate/client/midnight';
export async function height(baseUrl: string, signal: AbortSignal): Promise<number> {
  const client = createClient({ baseUrl, apiKey: 'k' });
  const s: Summary = await client.summary('preview', { signal });
  // @ts-expect-error: not a network
  await client.summary('devnet');
  // @ts-expect-error: not a code of the server's catalogue
  const unknown: ErrorCode = 'NO_SUCH_CODE';
  try {
    await client.balanceOnly(new Uint8Array([1]), { network: 'preview' });
  } catch (err) {
    if (isNightgateError(err, 'NO_DUST_AVAILABLE') && err.retryAfter !== undefined) return -err.retryAfter;
    if (err instanceof NightgateError && err.code === 'BLOCK_NOT_FOUND') return 0;
  }
  void nightgateProofProvider;
  void sponsoredWalletProvider;
  void unknown;
  return s.latestBlock.height;
}
`;

let installed: InstalledClient | undefined;

t.test('the client packs and installs alone into an empty project', async (st) => {
  installed = await packAndInstallClient(t);
  st.same(
    readdirSync(join(installed.app, 'node_modules')).filter((d) => !d.startsWith('.')),
    ['@nightgate'],
    'nothing else is installed',
  );
  st.same(readdirSync(join(installed.app, 'node_modules', '@nightgate')), ['client']);
});

t.test(`the tarball is under ${kB(BUDGET - MARGIN)} (budget ${kB(BUDGET)}), its built modules and declarations only`, async (t) => {
  if (!installed) return t.fail('the client did not pack');
  const { size, unpackedSize, files } = installed;
  t.comment(`@nightgate/client packed: ${kB(size)} (${kB(unpackedSize)} unpacked)`);
  t.ok(size <= BUDGET - MARGIN, `packed: ${kB(size)}, ${kB(BUDGET - size)} under the budget`);
  const modules = readdirSync(join(CLIENT, 'src'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.replace(/\.ts$/, ''));
  t.ok(modules.includes('index') && modules.includes('midnight'), `${modules.length} modules`);
  t.same(
    [...files].sort(),
    [...modules.flatMap((m) => [`dist/${m}.d.ts`, `dist/${m}.js`]), 'package.json'].sort(),
    'dist/*.js and dist/*.d.ts of each module, and package.json',
  );
});

t.test('the installed client, from Node and TypeScript, against a running nightgate', async (t) => {
  if (!installed) return t.fail('the client did not install');
  const { app } = installed;
  const s = await startStatsGateway(t);

  writeFileSync(join(app, 'use.mjs'), SCRIPT);
  const { stdout } = await run(process.execPath, ['use.mjs', s.url], { cwd: app, timeout: 30_000 });
  t.strictSame(
    JSON.parse(stdout),
    { network: 'preview', height: 2, missing: [true, 404, 'BLOCK_NOT_FOUND'], adapters: 'function' },
    'Node: the summary, and a missing block as a NightgateError 404',
  );

  writeFileSync(join(app, 'typed.ts'), TYPED);
  const base = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, types: [], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] };
  for (const [how, options] of [
    ['NodeNext', { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }],
    ['a bundler', { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }],
  ] as const) {
    const program = ts.createProgram([join(app, 'typed.ts')], { ...base, ...options });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file ? `${d.file.fileName}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    t.strictSame(problems, [], `TypeScript, resolving as ${how}: a user of the installed declarations compiles, without Node types`);
  }
});
