/**
 * What a user gets from `npm install`: the gateway as `npm pack` makes it from the repository once
 * `prepack` has built it (the build, and the workspace packages it uses, built, which the tarball
 * carries as `bundleDependencies`), installed into an empty project: the installed bin,
 * `npx nightgate` with no configuration, starts the embedded devnet and serves its chain. The
 * client is not in it: `@nightgate/client` is packed on its own (client-tarball.test.ts).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';

const run = promisify(execFile);
const ROOT = resolve('.');
const KEY = 'tarball-key-0123456789abcdef';

/** The directory of this run: the tarball, and the empty project it is installed in. */
const dir = mkdtempSync(join(tmpdir(), 'nightgate-tarball-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
// Packing and installing take longer than a test's default on a loaded machine; starting the devnet too.
t.setTimeout(300_000);

/** The package packed from the repository, as `prepack` builds it, and installed into an empty project. */
async function packAndInstall(t: Test): Promise<string> {
  await run(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, timeout: 240_000 });
  const { stdout: packed } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const { filename, files } = (JSON.parse(packed) as Array<{ filename: string; files: Array<{ path: string }> }>)[0]!;
  const paths = files.map((f) => f.path);
  t.ok(paths.includes('dist/src/cli.js'), 'the bin is packed');
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; bundleDependencies?: string[] };
  t.ok((manifest.bundleDependencies ?? []).length > 0, 'the workspace packages are bundled');
  for (const name of manifest.bundleDependencies ?? []) {
    t.ok(paths.includes(`node_modules/${name}/dist/index.js`), `${name} is packed, built`);
    const own = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(own.dependencies ?? {})) t.ok(paths.includes(`node_modules/${dep}/package.json`), `with its dependency ${dep}`);
  }
  t.notOk(
    paths.some((p) => (p.endsWith('.ts') && !p.endsWith('.d.ts')) || p.startsWith('test/') || p.startsWith('packages/')),
    'no sources or tests',
  );
  t.notOk(
    paths.some((p) => p.startsWith('node_modules/@midnight')),
    'the ledger packages are installed, not packed',
  );
  t.notOk(
    paths.some((p) => p.startsWith('node_modules/@nightgate/client/')),
    'the client is not bundled: it is packed on its own',
  );

  // An empty project. The package's dependencies come with it (from the npm cache when it has them).
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'uses-nightgate', version: '1.0.0', private: true, type: 'module' }));
  t.ok(Object.keys(manifest.dependencies ?? {}).length > 0, "the package has the server's dependencies");
  await run('npm', ['install', join(dir, filename), '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--omit=dev', '--no-package-lock'], {
    cwd: app,
    timeout: 180_000,
  });
  t.ok(readdirSync(join(app, 'node_modules', 'nightgate', 'dist', 'src')).includes('cli.js'), 'installed');
  return app;
}

let app: string | undefined;

t.test('the package packs with its workspace packages and installs into an empty project', async (t) => {
  app = await packAndInstall(t);
});

t.test('npx nightgate, installed, starts the embedded devnet and serves its chain', async (t) => {
  if (!app) return t.fail('the package did not install');
  // The default configuration, as a user's shell has it: no NIGHTGATE_* setting but the port and a key.
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NIGHTGATE_'))), NIGHTGATE_PORT: '0', NIGHTGATE_API_KEYS: KEY };
  const child = spawn('npx', ['--no', 'nightgate'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      output += d.toString('utf8');
      const m = /nightgate listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`npx nightgate exited (${code}) before listening:\n${output}`)));
  });
  const base = `http://127.0.0.1:${port}`;

  const health = (await (await fetch(`${base}/health`, { headers: { 'x-api-key': KEY } })).json()) as {
    components?: { devnet?: { status?: string; networks?: Record<string, { graphqlUrl?: string }> } };
  };
  t.equal(health.components?.devnet?.status, 'ok', 'the devnet component is up');
  t.same(Object.keys(health.components?.devnet?.networks ?? {}).sort(), ['mainnet', 'preprod', 'preview'], 'every network on the embedded devnet');
  // The statistics read the devnet's chain through its indexer endpoint, as for any network.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await fetch(`${base}/api/v1/preview/summary`);
    const body = (await r.json()) as { latestBlock?: { height?: number } };
    if (r.status === 200 && Number.isInteger(body.latestBlock?.height)) {
      t.pass(`the summary shows the devnet's block ${body.latestBlock!.height}`);
      break;
    }
    if (Date.now() > deadline) throw new Error(`no summary from the installed devnet: ${r.status} ${JSON.stringify(body)}\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});
