/**
 * The OpenAPI document is consumable: TypeScript types are generated from the real server's
 * `/api/openapi.json` (openapi-typescript), a small client using them (openapi-fetch) is compiled
 * in strict mode and then called against that server — statistics, a block lookup, /health and a
 * keyed proving route. A client that reads a field the document does not have must not compile.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
// openapi-typescript's own parser and linter (its dependency): Redocly's recommended rules.
import { BaseResolver, createConfig, lintDocument, makeDocumentFromString } from '@redocly/openapi-core';
import { ManualClock } from '../helpers/manual-clock.js';
import { mountProver } from '../../src/features/proving/index.js';
import { mountStats } from '../../src/features/stats/index.js';
import type { NetworkStats } from '../../src/features/stats/network-stats.js';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { upstreamConfig } from '../fixtures/prover/apps.js';
import { startStandIn } from '../fixtures/prover/stand-in.js';
import { FakeIndexer } from '../fixtures/stats/fake-indexer.js';
import { T0 } from '../fixtures/stats/stats-app.js';

const CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Summary = components['schemas']['Summary'];
type ApiError = components['schemas']['Error'];

export async function run(baseUrl: string, key: string) {
  const client = createClient<paths>({ baseUrl });
  const network = { network: 'mainnet' as const };
  const summary = await client.GET('/api/v1/{network}/summary', { params: { path: network } });
  if (!summary.data) throw new Error('no summary: ' + summary.response.status);
  const s: Summary = summary.data;
  const block = await client.GET('/api/v1/{network}/block', { params: { path: network, query: { height: s.latestBlock.height } } });
  const missing = await client.GET('/api/v1/{network}/block', { params: { path: network, query: { height: 999 } } });
  const notFound: ApiError | undefined = missing.error;
  const health = await client.GET('/health');
  const version = await client.GET('/version', { headers: { 'X-API-Key': key }, parseAs: 'text' });
  const refused = await client.GET('/version', { parseAs: 'json' });
  const refusedError: ApiError | undefined = refused.error;
  return {
    summary: [s.network.id, s.status, s.latestBlock.height, s.blocksProduced.total],
    block: block.data ? [block.data.height, block.data.hash === s.latestBlock.hash, block.data.transactionCount, block.data.transactions[0]?.fees?.unit ?? null]
: null,
    notFound: [missing.response.status, notFound?.code, notFound?.message],
    health: health.data ? health.data.status : null,
    version: [version.response.status, typeof version.data],
    refused: [refused.response.status, refusedError?.code, refusedError?.error],
  };
}
`;

/** Fields the document does not have, and a parameter of the wrong type. */
const WRONG = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function wrong(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  const summary = await client.GET('/api/v1/{network}/summary', { params: { path: { network: 'mainnet' } } });
  const height: number = summary.data!.latestBlock.heigth;
  await client.GET('/api/v1/{network}/block', { params: { path: { network: 'mainnet' }, query: { height: 'one' } } });
  return height;
}
`;

function compile(dir: string, files: string[]): readonly ts.Diagnostic[] {
  const program = ts.createProgram(
    files.map((f) => join(dir, f)),
    {
      strict: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      outDir: join(dir, 'out'),
    },
  );
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
}

const text = (d: ts.Diagnostic): string => `${d.file ? `${d.file.fileName.split('/').pop()}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;

t.test('a client generated from /api/openapi.json compiles strictly and calls the server', async (t) => {
  const fake = await FakeIndexer.start();
  for (let i = 0; i < 3; i++) fake.addBlock(T0 + i * 6000, [fake.tx()]);
  const standIn = await startStandIn();
  const base = upstreamConfig(standIn.url);
  const s = await startApp(
    {
      ...base,
      networks: { ...base.networks, mainnet: { ...fake.networkConfig(), prover: 'upstream' } },
      stats: { pollIntervalMs: 20, upstreamTimeoutMs: 2000 },
      rateLimit: { publicEnabled: false },
    },
    { modules: [mountStats, mountProver], clock: new ManualClock(T0 + 15_000) },
  );
  const dir = mkdtempSync(join(tmpdir(), 'nightgate-client-'));
  t.teardown(async () => {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
    await standIn.close();
    await fake.close();
  });
  const net = s.app.context.component<NetworkStats>('stats:mainnet')!;
  await net.follower.waitForHeight(2);

  const doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as Record<string, unknown>;
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintDocument({
    document: makeDocumentFromString(JSON.stringify(doc), '/api/openapi.json'),
    config: config.styleguide,
    externalRefResolver: new BaseResolver(),
  });
  // Warnings stay: a WebSocket upgrade has no 2xx, PushClientMessage is named only from x-websocket, some operations have no 4xx.
  t.strictSame(
    problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`),
    [],
    'Redocly recommended rules: no error',
  );
  writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(doc as never)));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(join(dir, 'client.ts'), CLIENT);
  writeFileSync(join(dir, 'wrong.ts'), WRONG);
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');

  const ok = compile(dir, ['client.ts']);
  t.strictSame(ok.map(text), [], 'the client compiles in strict mode against the generated types');

  const bad = compile(dir, ['wrong.ts']).map(text);
  t.equal(bad.length, 2, `the wrong client does not compile: ${bad.join(' | ')}`);
  t.match(bad[0], /Property 'heigth' does not exist/, 'a field the document does not have');
  t.match(bad[1], /Type 'string' is not assignable to type 'number'/, 'a parameter of the wrong type');

  const { run } = (await import(pathToFileURL(join(dir, 'out', 'client.js')).href)) as {
    run(url: string, key: string): Promise<Record<string, unknown[] | string | null>>;
  };
  const got = await run(s.url, TEST_KEY);
  t.strictSame(got, {
    summary: ['mainnet', 'healthy', 2, 3],
    block: [2, true, 1, 'SPECK'],
    notFound: [404, 'BLOCK_NOT_FOUND', 'No block at height 999'],
    health: 'ok',
    version: [200, 'string'],
    refused: [401, 'UNAUTHORIZED', 'Unauthorized'],
  });
});
