/**
 * Every process the harness starts goes through one ProcessGroup, which stops them by pid: at the
 * end of a scenario, at the end of the run, on error, and on SIGINT/SIGTERM of the runner. Nothing
 * is ever killed by name.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ROOT, nodeArgs } from './paths.js';

const KEPT_LINES = 25;
const STOP_GRACE_MS = 8000;

export interface StartSpec {
  name: string;
  /** Project module without extension, e.g. `src/cli`. */
  module: string;
  args?: readonly string[];
  env: Record<string, string>;
  /** The port announced by an output line, or undefined: the first line with a port means ready. */
  readyPort: (line: string) => number | undefined;
  timeoutMs: number;
  /** Open an IPC channel (the loop-delay probe answers over it). */
  ipc?: boolean;
  /** Node options placed before the module (e.g. `--cpu-prof`). */
  nodeFlags?: readonly string[];
}

export interface Started {
  pid: number;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Calls `fn` with every complete line a stream emits (UTF-8), until `done()` says to stop: then it only drains. */
export function eachLine(stream: NodeJS.ReadableStream, fn: (line: string) => void, done?: () => boolean): void {
  let buf = '';
  stream.on('data', (d: Buffer) => {
    if (done?.()) {
      buf = '';
      return;
    }
    buf += d.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      fn(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
}

export class ProcessGroup {
  readonly #live = new Map<number, ChildProcess>();

  start(spec: StartSpec): Promise<Started> {
    const child = spawn(process.execPath, [...(spec.nodeFlags ?? []), ...nodeArgs(spec.module), ...(spec.args ?? [])], {
      cwd: ROOT,
      // A clean environment: only what a process needs, so a NIGHTGATE_* in the caller's shell
      // cannot change what is measured.
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', ...spec.env },
      stdio: spec.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid;
    if (pid === undefined) return Promise.reject(new Error(`${spec.name}: could not spawn`));
    this.#live.set(pid, child);
    child.once('exit', () => this.#live.delete(pid));

    // The last lines, for the error message when it dies before it is ready.
    const kept: string[] = [];
    return new Promise<Started>((resolve, reject) => {
      let settled = false;
      const fail = (why: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void this.stop(pid);
        reject(new Error(`${spec.name} (pid ${pid}) ${why}; last output:\n  ${kept.join('\n  ')}`));
      };
      const timer = setTimeout(() => fail(`not ready within ${spec.timeoutMs} ms`), spec.timeoutMs);
      const onLine = (line: string): void => {
        kept.push(line);
        if (kept.length > KEPT_LINES) kept.shift();
        if (settled) return;
        const port = spec.readyPort(line);
        if (port === undefined) return;
        settled = true;
        clearTimeout(timer);
        resolve({ pid, port, child, stop: () => this.stop(pid) });
      };
      // Once ready, the output is only drained, not split into lines: a server with its access log
      // on writes tens of MB a second, and the runner shares the machine with it.
      for (const stream of [child.stdout, child.stderr]) if (stream) eachLine(stream, onLine, () => settled);
      child.once('exit', (code, signal) => fail(`exited (code ${code}, signal ${signal}) before it was ready`));
      child.once('error', (err) => fail(`failed: ${err.message}`));
    });
  }

  /** SIGTERM, then SIGKILL after the grace period. Resolves once the process has exited. */
  stop(pid: number): Promise<void> {
    const child = this.#live.get(pid);
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }

  stopAll(): Promise<void> {
    return Promise.all([...this.#live.keys()].map((pid) => this.stop(pid))).then(() => undefined);
  }

  /** Last resort from a synchronous `exit` handler: SIGKILL whatever is still alive. */
  killAllNow(): void {
    for (const child of this.#live.values()) child.kill('SIGKILL');
  }
}

/** The `"port":N` field of a JSON output line, when the line also contains `marker`. */
export function portAfter(marker: string): (line: string) => number | undefined {
  return (line) => {
    if (!line.includes(marker)) return undefined;
    const m = /"port":\s*(\d+)/.exec(line);
    return m ? Number(m[1]) : undefined;
  };
}

/** VmRSS of a process in MiB, from /proc/<pid>/status; undefined when unreadable. */
export function rssMiB(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system) of a process's MAIN thread, in microseconds, from
 * /proc/<pid>/task/<pid>/stat fields 14 and 15 (clock ticks of USER_HZ = 100 on Linux). The main
 * thread is the one serving HTTP (uWS); nightgate's devnet, DUST sync and proving workers are
 * other threads and are not counted. CPU time per request is the figure a busy machine distorts
 * least: other processes steal wall time, not the server's own CPU time.
 */
export function cpuMicros(pid: number): number | undefined {
  return statCpuMicros(`/proc/${pid}/task/${pid}/stat`);
}

/** CPU time (user + system) of every thread of a process, in microseconds, from /proc/<pid>/stat. */
export function processCpuMicros(pid: number): number | undefined {
  return statCpuMicros(`/proc/${pid}/stat`);
}

/** CPU time of a process's threads other than its main one, µs (nightgate: everything but HTTP). */
export function backgroundCpuMicros(pid: number): number | undefined {
  const all = processCpuMicros(pid);
  const main = cpuMicros(pid);
  return all === undefined || main === undefined ? undefined : all - main;
}

function statCpuMicros(file: string): number | undefined {
  try {
    const stat = readFileSync(file, 'utf8');
    // The command name (field 2) may contain spaces; fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10_000 : undefined;
  } catch {
    return undefined;
  }
}
