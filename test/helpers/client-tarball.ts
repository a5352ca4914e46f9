/**
 * `@nightgate/client` as a dApp gets it: packed by `npm pack` in packages/client (its prepack
 * builds it) and installed from the tarball into an empty project; and a nightgate for it to call,
 * serving preview's statistics from a fake indexer on a manual clock.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { ManualClock } from './manual-clock.js';
import type { ConfigInput } from '../../src/core/config/index.js';
import { mountStats } from '../../src/features/stats/index.js';
import type { NetworkStats } from '../../src/features/stats/network-stats.js';
import { FakeIndexer } from '../fixtures/stats/fake-indexer.js';
import { T0 } from '../fixtures/stats/stats-app.js';
import { startApp, type TestApp } from './app.js';
import { ROOT } from './spawn.js';

export const run = promisify(execFile);
export const CLIENT = join(ROOT, 'packages', 'client');

export interface InstalledClient {
  /** The empty project it is installed in. */
  app: string;
  /** The tarball's bytes, packed and unpacked, and the paths it holds. */
  size: number;
  unpackedSize: number;
  files: string[];
}

/** Packs the client and installs the tarball into an empty project under a temporary directory, removed when `t` (a test file's) ends. */
export async function packAndInstallClient(t: { teardown(fn: () => void): void }): Promise<InstalledClient> {
  const dir = mkdtempSync(join(tmpdir(), 'nightgate-client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: CLIENT, timeout: 120_000 });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>;
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'uses-nightgate-client', version: '1.0.0', private: true, type: 'module' }));
  // No dependencies: nothing is fetched, the registry need not answer.
  await run('npm', ['install', join(dir, packed!.filename), '--no-audit', '--no-fund'], { cwd: app, timeout: 120_000 });
  return { app, size: packed!.size, unpackedSize: packed!.unpackedSize, files: packed!.files.map((f) => f.path) };
}

const CLOSED = { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream' as const, proverUrl: 'http://127.0.0.1:9' };

/** A nightgate whose preview statistics come from a fake indexer of three blocks (tip: height 2); stopped when `t` ends. */
export async function startStatsGateway(t: Test, overrides: ConfigInput = {}): Promise<TestApp> {
  const fake = await FakeIndexer.start();
  let s: TestApp | undefined;
  t.teardown(async () => {
    await s?.close();
    await fake.close();
  });
  for (let i = 0; i < 3; i++) fake.addBlock(T0 + i * 6000, [fake.tx()]);
  s = await startApp(
    {
      networks: { mainnet: CLOSED, preprod: CLOSED, preview: fake.networkConfig() },
      stats: { pollIntervalMs: 20, upstreamTimeoutMs: 2000 },
      rateLimit: { publicEnabled: false },
      ...overrides,
    },
    { modules: [mountStats], clock: new ManualClock(T0 + 15_000) },
  );
  await s.app.context.component<NetworkStats>('stats:preview')!.follower.waitForHeight(2);
  return s;
}
