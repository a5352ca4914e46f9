/**
 * wrk (C, epoll; Debian package `wrk`) as a second load generator for the cached summary and its
 * baselines. autocannon runs in JavaScript and needs about a core of its own for the rate the uWS
 * servers can serve, so on two cores it caps every fast server at the rate it can drive: raw uWS
 * served 22–25 k req/s under autocannon and 65–90 k under wrk on the same machine. The wrk round
 * shows what the servers do when the generator is not the limit. One wrk thread, as the runner
 * itself is one process.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_DIR } from './paths.js';

const SCRIPT = join(BENCH_DIR, 'lib', 'wrk-report.lua');
const MARK = 'NIGHTGATE-BENCH ';
const HARD_STOP_SLACK_S = 15;

/** wrk's version line (`wrk debian/4.1.0-3+b2 [epoll] …`), or undefined when it is not installed. */
export function wrkVersion(): string | undefined {
  const r = spawnSync('wrk', ['-v'], { encoding: 'utf8', timeout: 5000 });
  if (r.error) return undefined;
  const line = `${r.stdout}${r.stderr}`.split('\n')[0]?.trim() ?? '';
  return /^wrk\s/.test(line) ? line.replace(/\s+Copyright.*$/, '') : undefined;
}

/** What one run of either load generator (autocannon in load.ts, wrk here) comes to. */
/** wrk counts responses only as "2xx or 3xx" and the rest; these are the status keys of its rows. */
export const WRK_OK = '2xx/3xx';
export const WRK_NOT_OK = 'not 2xx/3xx';

/** What one run of either load generator (autocannon in load.ts, wrk here) comes to. */
export interface GeneratorRun {
  durationS: number;
  responses: number;
  status: Record<string, number>;
  /** Connection, read and write errors. */
  errors: number;
  timeouts: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
}

interface WrkReport {
  requests: number;
  durationUs: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  timeouts: number;
  statusErrors: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  meanUs: number;
}

/** Reads the report line the Lua script prints; throws with wrk's own output when there is none. */
export function parseWrkOutput(stdout: string, stderr = ''): GeneratorRun {
  const line = stdout.split('\n').find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`wrk printed no report: ${`${stderr}${stdout}`.trim().split('\n').slice(0, 3).join(' / ') || 'no output'}`);
  let r: WrkReport;
  try {
    r = JSON.parse(line.slice(MARK.length)) as WrkReport;
  } catch (err) {
    throw new Error(`wrk's report line is not JSON (${(err as Error).message}): ${line.slice(0, 200)}`);
  }
  const ms = (us: number): number => us / 1000;
  const notOk = Math.min(r.statusErrors, r.requests);
  return {
    durationS: r.durationUs / 1e6,
    responses: r.requests,
    status: { ...(r.requests > notOk ? { [WRK_OK]: r.requests - notOk } : {}), ...(notOk > 0 ? { [WRK_NOT_OK]: notOk } : {}) },
    errors: r.connectErrors + r.readErrors + r.writeErrors,
    timeouts: r.timeouts,
    latencyMs: { p50: ms(r.p50Us), p90: ms(r.p90Us), p99: ms(r.p99Us), max: ms(r.maxUs), mean: ms(r.meanUs) },
  };
}

export interface WrkSpec {
  url: string;
  connections: number;
  durationS: number;
  timeoutS: number;
  /** Kill wrk after this many seconds (default: duration + timeout + 15 s). */
  hardStopS?: number;
  /** wrk's own threads (default 1). */
  threads?: number;
}

/** One wrk run of GET `url`, bounded by its duration and a hard stop after it. */
export function runWrk(spec: WrkSpec): Promise<GeneratorRun> {
  const args = [
    `-t${spec.threads ?? 1}`,
    `-c${spec.connections}`,
    `-d${Math.max(1, Math.round(spec.durationS))}s`,
    `--timeout`,
    `${spec.timeoutS}s`,
    '-s',
    SCRIPT,
    spec.url,
  ];
  const hardStopS = spec.hardStopS ?? spec.durationS + spec.timeoutS + HARD_STOP_SLACK_S;
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const hardStop = setTimeout(() => {
      stopped = true;
      child.kill('SIGKILL');
    }, hardStopS * 1000);
    child.once('error', (err) => {
      clearTimeout(hardStop);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(hardStop);
      if (stopped) return reject(new Error(`wrk did not finish within ${hardStopS} s and was killed`));
      if (signal) return reject(new Error(`wrk ended by ${signal}`));
      try {
        resolve(parseWrkOutput(stdout, stderr));
      } catch (err) {
        reject(code === 0 ? err : new Error(`wrk exited ${code}: ${(err as Error).message}`));
      }
    });
  });
}
