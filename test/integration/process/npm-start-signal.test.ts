/**
 * `npm start` under a supervisor: SIGTERM to npm reaches the server, which shuts down gracefully,
 * and nothing is left listening. npm runs a script through `sh -c`, which (dash) forks the
 * command and dies of the signal npm forwards, leaving the server orphaned; the script `exec`s
 * node so the server is the process npm signals. Run with the package's real `start` script, in a
 * copy whose `dist/src/cli.js` loads the sources (no build needed).
 */
import t from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, NO_DEVNET_ENV, runProcess } from '../../helpers/spawn.js';

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(true));
  });
}

t.test('SIGTERM to npm start ends the server it started', async (t) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const dir = mkdtempSync(join(tmpdir(), 'ng-npm-start-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'ng-start', version: '1.0.0', private: true, type: 'module', scripts: { start: pkg.scripts['start'] } }),
  );
  mkdirSync(join(dir, 'dist', 'src'), { recursive: true });
  const tsx = pathToFileURL(
    createRequire(join(ROOT, 'package.json'))
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  // The repository's tsconfig.json: its `paths` lead tsx to the workspace packages' sources from this directory too.
  writeFileSync(
    join(dir, 'dist', 'src', 'cli.js'),
    `import { register } from ${JSON.stringify(tsx)};\nregister({ tsconfig: ${JSON.stringify(join(ROOT, 'tsconfig.json'))}` +
      ` });\nawait import(${JSON.stringify(pathToFileURL(join(ROOT, 'src', 'cli.ts')).href)}` +
      `);\n`,
  );

  const npm = runProcess('npm', ['start', '--prefix', dir], {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    ...NO_DEVNET_ENV,
    NIGHTGATE_PORT: '0',
    NIGHTGATE_API_KEYS: 'npm-start-key-0123456789',
  });
  const listening = await npm.waitFor(/nightgate listening on/);
  const port = Number(/:(\d+)\b"?[^:]*$/.exec(JSON.parse(listening).msg as string)?.[1]);
  t.ok(port > 0, `listening on ${port}`);
  t.notOk(await refused(port), 'the server answers');

  npm.child.kill('SIGTERM');
  const exit = await npm.exited;
  // The signal's line and the app's may reach stdout in either order (each logger flushes its own
  // buffer): their own times say which came first.
  const timeOf = (msg: string): number => {
    const line = npm.out.find((l) => l.includes(`"msg":"${msg}"`));
    return line === undefined ? NaN : Date.parse((JSON.parse(line) as { time: string }).time);
  };
  const [signalled, completed] = [timeOf('signal received: graceful shutdown'), timeOf('shutdown complete')];
  t.ok(signalled <= completed, `the server shut down gracefully (signal at ${signalled}, complete at ${completed})`);
  t.ok(await refused(port), 'nothing listens once npm has exited');
  t.ok(exit.code === 0 || exit.signal === 'SIGTERM' || exit.code === 143, `npm exited (${exit.code ?? exit.signal})`);
});
