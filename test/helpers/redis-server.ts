/**
 * A real `redis-server` for one test file: its own free loopback port, no persistence
 * (`--save '' --appendonly no`), a temporary directory; stopped by pid. `kill()` and `restart()`
 * make the outage the tests need (same port, empty data: nothing is persisted), `pause()` and
 * `resume()` one where the connection stays open and nothing answers (SIGSTOP / SIGCONT).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_SERVER = process.env['NIGHTGATE_TEST_REDIS_SERVER'] ?? '/usr/bin/redis-server';

export interface TestRedis {
  url: string;
  port: number;
  readonly pid: number;
  /** SIGKILL, resolved once it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty). */
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
  /** SIGTERM by pid and the temporary directory removed. */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString('utf8');
      if (out.includes('Ready to accept connections')) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${out}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** On `port` if given (a Redis the code under test was told about before it runs), else a free one. */
export async function startRedis(port?: number): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'nightgate-redis-'));
  port ??= await freePort();
  let child = await launch(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child.pid!;
    },
    async kill() {
      const gone = exited(child);
      process.kill(child.pid!, 'SIGKILL');
      await gone;
    },
    async restart() {
      child = await launch(port, dir);
    },
    pause() {
      process.kill(child.pid!, 'SIGSTOP');
    },
    resume() {
      process.kill(child.pid!, 'SIGCONT');
    },
    async stop() {
      const gone = exited(child);
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(child.pid!, 'SIGCONT');
        process.kill(child.pid!, 'SIGTERM');
      }
      await gone;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `done()` holds, checking every few ms; rejects after `timeoutMs` with `what`. */
export async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
