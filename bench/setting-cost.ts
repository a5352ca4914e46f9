/**
 * What one setting costs the cached routes: two nightgate processes behind one external devnet,
 * identical but for the environment given to each side, measured with wrk in interleaved rounds
 * (the order alternates each round, so drift on a shared machine falls on both alike). Reports
 * each round's requests/s, p99, main-thread and whole-process CPU time per request (CPU time is
 * what a loaded machine distorts least: others steal wall time, not the server's CPU time; with
 * several HTTP threads the main thread is no longer the only one serving, so read the process
 * figure), then B over A from the medians, with each round's ratio and their spread.
 *
 *   npm run build && node dist/bench/setting-cost.js --b NIGHTGATE_METRICS_ENABLED=false [--a NAME=VALUE,...]
 *     [--rounds 5] [--seconds 5] [--connections 100] [--route summary] [--wrk-threads 1]
 *
 * Side A is the shipped defaults (plus `--a`), side B the same plus `--b`. Both keep the bench's
 * limits raised so nothing is answered 429 (bench/lib/nightgate.ts) and the access log at its
 * default; their balancing is off (no DUST sync): only the statistics routes are measured.
 * Examples: the metrics (`--b NIGHTGATE_METRICS_ENABLED=false`), the access log
 * (`--b NIGHTGATE_LOG_REQUESTS=none`), the per-IP limit (`--b NIGHTGATE_PUBLIC_RATE_LIMIT_ENABLED=false`),
 * HTTP threads (`--b NIGHTGATE_SERVER_THREADS=2`, Node 22/24 only: uWS 20.57).
 */
import { cpus } from 'node:os';
import { CACHED_ROUTES, cachedPath } from './lib/cached-routes.js';
import { getJson, pollUntil } from './lib/http.js';
import { baseEnv, benchKey, startNightgate } from './lib/nightgate.js';
import { behindExternalDevnet, startExternalDevnet } from './lib/external-devnet.js';
import { ProcessGroup, cpuMicros, processCpuMicros } from './lib/processes.js';
import { arg, medianOf as median } from './lib/script.js';
import { runWrk, wrkVersion } from './lib/wrk.js';

/** `A=1,B=2` → { A: '1', B: '2' }. */
function envList(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',').filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`expected NAME=VALUE, got "${part}"`);
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

const spread = (xs: readonly number[]): number => Math.max(...xs) - Math.min(...xs);
const fmt = (xs: readonly number[], digits: number): string => xs.map((x) => x.toFixed(digits)).join(', ');

type Side = 'a' | 'b';

async function main(): Promise<void> {
  const a = envList(arg('a', ''));
  const b = envList(arg('b', ''));
  if (Object.keys(b).length === 0) throw new Error('--b NAME=VALUE[,…]: what side B changes');
  const rounds = Number(arg('rounds', '5'));
  const seconds = Number(arg('seconds', '5'));
  const connections = Number(arg('connections', '100'));
  const wrkThreads = Number(arg('wrk-threads', '1'));
  const route = arg('route', 'summary') as (typeof CACHED_ROUTES)[number];
  if (!CACHED_ROUTES.includes(route)) throw new Error(`--route must be one of ${CACHED_ROUTES.join(', ')}`);
  const wrk = wrkVersion();
  if (!wrk) throw new Error('wrk is not installed (Debian package wrk)');

  const group = new ProcessGroup();
  process.once('exit', () => group.killAllNow());
  try {
    const devnet = await startExternalDevnet(group, { sponsorSeeds: [] });
    // The bench's settings but the access log, which stays at its default unless a side sets it.
    const { NIGHTGATE_LOG_REQUESTS: _tuned, ...bench } = baseEnv(benchKey());
    const common = {
      ...bench,
      ...behindExternalDevnet(devnet, 'http://127.0.0.1:9', []),
      NIGHTGATE_DUST_WALLET_SEEDS: '',
      NIGHTGATE_BALANCING_ENABLED: 'false',
      ...a,
    };
    const servers = {
      a: await startNightgate(group, 'side-a', common, { probe: false }),
      b: await startNightgate(group, 'side-b', { ...common, ...b }, { probe: false }),
    };
    const path = cachedPath('preview', route);
    for (const s of Object.values(servers)) {
      const ok = await pollUntil(async () => ((await getJson(`http://127.0.0.1:${s.port}${path}`)).status === 200 ? true : undefined), {
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      if (!ok) throw new Error(`${path} never answered 200 on port ${s.port}`);
    }
    const show = (env: Record<string, string>): string =>
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || 'defaults';
    console.log(`A: ${show(a)}; B: ${show({ ...a, ...b })}`);
    console.log(
      `${wrk}, ${wrkThreads} wrk thread(s); ${cpus().length} cores (${cpus()[0]?.model ?? '?'}` +
        `), Node ${process.version}` +
        `; ${rounds}` +
        ` rounds of ${seconds}` +
        ` s, ${connections}` +
        ` connections, GET ${path}`,
    );
    const rps: Record<Side, number[]> = { a: [], b: [] };
    const p99: Record<Side, number[]> = { a: [], b: [] };
    const mainCpu: Record<Side, number[]> = { a: [], b: [] };
    const allCpu: Record<Side, number[]> = { a: [], b: [] };
    for (let r = 0; r < rounds; r++) {
      const order: Side[] = r % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
      for (const side of order) {
        const s = servers[side];
        const m0 = cpuMicros(s.pid) ?? NaN;
        const p0 = processCpuMicros(s.pid) ?? NaN;
        const run = await runWrk({ url: `http://127.0.0.1:${s.port}${path}`, connections, durationS: seconds, timeoutS: 5, threads: wrkThreads });
        rps[side].push(run.responses / run.durationS);
        p99[side].push(run.latencyMs.p99);
        mainCpu[side].push(((cpuMicros(s.pid) ?? NaN) - m0) / run.responses);
        allCpu[side].push(((processCpuMicros(s.pid) ?? NaN) - p0) / run.responses);
      }
      const line = (x: Side): string =>
        `${Math.round(rps[x].at(-1)!)} req/s, p99 ${p99[x].at(-1)!.toFixed(2)} ms, ${mainCpu[x].at(-1)!.toFixed(2)} / ${allCpu[x].at(-1)!.toFixed(2)} us/req`;
      console.log(`round ${r + 1}: A ${line('a')}; B ${line('b')}`);
    }
    const ratio = (xs: Record<Side, number[]>): number[] => xs.b.map((v, i) => v / xs.a[i]!);
    const report = (name: string, xs: Record<Side, number[]>, digits: number): void => {
      const per = ratio(xs);
      console.log(
        `${name}: A ${median(xs.a).toFixed(digits)} (${fmt(xs.a, digits)}` +
          `), B ${median(xs.b).toFixed(digits)}` +
          ` (${fmt(xs.b, digits)}` +
          `); B/A per round ${fmt(per, 3)}` +
          `, median ${median(per).toFixed(3)}` +
          ` (spread ${spread(per).toFixed(3)}` +
          `)`,
      );
    };
    report('req/s', rps, 0);
    report('p99 ms', p99, 2);
    report('main-thread CPU us/req', mainCpu, 2);
    report('process CPU us/req', allCpu, 2);
  } finally {
    await group.stopAll();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
