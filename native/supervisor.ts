/**
 * Runs `midnight-proof-server` as nightgate's child on a loopback port: spawn, wait until it
 * answers `/ready`, restart it with exponential backoff whenever it dies, and on shutdown stop it
 * by pid — SIGTERM, then SIGKILL after a grace period.
 *
 * Events (what tests and logs wait on, instead of sleeping): `spawn` (pid), `ready` (pid),
 * `exit` (pid, code, signal), `restart` (delay ms).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { request } from 'undici';

interface SupervisorOptions {
  /** Absolute path (see locate.ts). */
  binary: string;
  /** Loopback port; 0 = pick a free one once, kept across restarts. */
  port: number;
  /** Extra arguments; `--port` is added by the supervisor. */
  args: readonly string[];
  /** MIDNIGHT_PP for the child (its parameter and key cache); empty = the child's default. */
  keyDir: string;
  readyTimeoutMs: number;
  stopGraceMs: number;
  logger: Logger;
  /** First restart delay and its cap (doubling in between). */
  backoff?: { initialMs: number; maxMs: number };
}

type SupervisorState = 'idle' | 'starting' | 'ready' | 'restarting' | 'stopping' | 'stopped';

interface SupervisorEvents {
  spawn: [pid: number];
  ready: [pid: number];
  exit: [pid: number, code: number | null, signal: NodeJS.Signals | null];
  restart: [delayMs: number];
}

const HOST = '127.0.0.1';
/** A run this long counts as healthy: the next crash restarts without accumulated backoff. */
const STABLE_MS = 30_000;
const PROBE_MIN_MS = 50;
const PROBE_MAX_MS = 1_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    // The port is free when we close it; the child binds it a moment later (a small, accepted race).
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export class ProofServerSupervisor extends EventEmitter<SupervisorEvents> {
  state: SupervisorState = 'idle';
  port = 0;
  restarts = 0;
  lastExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly #opts: SupervisorOptions;
  readonly #log: Logger;
  #child: ChildProcess | undefined;
  #attempt = 0;
  #readyAt = 0;
  #restartTimer: NodeJS.Timeout | undefined;

  constructor(opts: SupervisorOptions) {
    super();
    this.#opts = opts;
    this.#log = opts.logger;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get url(): string {
    return `http://${HOST}:${this.port}`;
  }

  /** Choose the port and spawn; readiness is reported by the `ready` event / `whenReady()`. */
  async start(): Promise<void> {
    this.port = this.#opts.port || (await freePort());
    this.#spawn();
  }

  #spawn(): void {
    this.state = 'starting';
    const { binary, args, keyDir } = this.#opts;
    // The child inherits nightgate's environment, as spawn does by default, plus its cache directory.
    const env = keyDir ? { ...process.env, MIDNIGHT_PP: keyDir } : undefined;
    const child = spawn(binary, [...args, '--port', String(this.port)], { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
    this.#child = child;
    let gone = false;
    const onGone = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (gone) return;
      gone = true;
      this.#onExit(child, code, signal);
    };
    child.once('error', (err) => {
      this.#log.error({ err, binary }, 'cannot start midnight-proof-server');
      onGone(null, null);
    });
    child.once('exit', onGone);
    for (const [stream, level] of [
      [child.stdout, 'info'],
      [child.stderr, 'warn'],
    ] as const) {
      if (stream) createInterface({ input: stream }).on('line', (line) => this.#log[level]({ pid: child.pid }, line.slice(0, 2_000)));
    }
    if (child.pid === undefined) return;
    this.#log.info({ pid: child.pid, port: this.port, binary }, 'midnight-proof-server started');
    this.emit('spawn', child.pid);
    void this.#probe(child);
  }

  /** Poll `/ready` until the server answers at all (200 ok, or 503 busy: both mean it is up). */
  async #probe(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + this.#opts.readyTimeoutMs;
    let delay = PROBE_MIN_MS;
    while (this.#child === child && child.exitCode === null && child.signalCode === null) {
      try {
        const res = await request(`${this.url}/ready`, { headersTimeout: PROBE_MAX_MS, bodyTimeout: PROBE_MAX_MS });
        await res.body.dump();
        if (this.#child !== child || this.state !== 'starting') return;
        this.state = 'ready';
        this.#readyAt = Date.now();
        this.#log.info({ pid: child.pid, port: this.port }, 'midnight-proof-server ready');
        this.emit('ready', child.pid!);
        return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) {
        this.#log.error({ pid: child.pid, timeoutMs: this.#opts.readyTimeoutMs }, 'midnight-proof-server did not become ready in time; killing it');
        this.#signal(child, 'SIGKILL');
        return;
      }
      await new Promise((r) => setTimeout(r, delay).unref());
      delay = Math.min(delay * 2, PROBE_MAX_MS);
    }
  }

  #onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    this.lastExit = { code, signal };
    const pid = child.pid ?? 0;
    this.emit('exit', pid, code, signal);
    if (this.state === 'stopping' || this.state === 'stopped') return;
    if (this.#readyAt > 0 && Date.now() - this.#readyAt >= STABLE_MS) this.#attempt = 0;
    const { initialMs, maxMs } = this.#opts.backoff ?? { initialMs: 250, maxMs: 30_000 };
    const delay = Math.min(initialMs * 2 ** this.#attempt, maxMs);
    this.#attempt++;
    this.restarts++;
    this.state = 'restarting';
    this.#log.error({ pid, code, signal, restartInMs: delay }, 'midnight-proof-server exited; restarting');
    this.emit('restart', delay);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (this.state === 'restarting') this.#spawn();
    }, delay);
    this.#restartTimer.unref();
  }

  #signal(child: ChildProcess, sig: NodeJS.Signals): void {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(child.pid, sig);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  /** Resolves when the server answers `/ready` (at once if it does). */
  whenReady(): Promise<void> {
    if (this.state === 'ready') return Promise.resolve();
    return once(this, 'ready').then(() => undefined);
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves once the child is gone. Idempotent. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopping';
    clearTimeout(this.#restartTimer);
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      this.#signal(child, 'SIGTERM');
      const grace = setTimeout(() => this.#signal(child, 'SIGKILL'), this.#opts.stopGraceMs);
      await exited;
      clearTimeout(grace);
    }
    this.state = 'stopped';
    this.#log.info('midnight-proof-server stopped');
  }
}
