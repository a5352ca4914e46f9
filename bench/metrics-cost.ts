/**
 * What /metrics costs the cached routes (issue 19): two nightgate processes, identical but for
 * NIGHTGATE_METRICS_ENABLED, behind one external devnet, measured with wrk in interleaved rounds
 * (the order alternates each round, so drift on a shared machine falls on both alike). Reports
 * each round's requests/s and main-thread CPU time per request (the figure a loaded machine
 * distorts least: others steal wall time, not the server's CPU time), and the ratios of the
 * medians, metrics on over off.
 *
 *   node --import tsx bench/metrics-cost.ts [--rounds 7] [--seconds 5] [--connections 50] [--route summary] [--log-requests none] [--off-first]
 *
 * Both servers run the tuned bench settings (bench/lib/nightgate.ts: access log off, limits out of
 * the way; `--log-requests aggregate` for the shipped default), so the per-request counting is
 * the only difference on the request path. The servers'
 * balancing is off (no DUST sync): only the statistics routes are measured.
 */
import { CACHED_ROUTES, cachedPath } from './lib/cached-routes.js';
import { getJson, pollUntil } from './lib/http.js';
import { baseEnv, benchKey, startNightgate } from './lib/nightgate.js';
import { behindExternalDevnet, startExternalDevnet } from './lib/external-devnet.js';
import { ProcessGroup, cpuMicros } from './lib/processes.js';
import { arg, medianOf as median } from './lib/script.js';
import { runWrk, wrkVersion } from './lib/wrk.js';


async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '7'));
  const seconds = Number(arg('seconds', '5'));
  const connections = Number(arg('connections', '50'));
  const route = arg('route', 'summary') as (typeof CACHED_ROUTES)[number];
  const logRequests = arg('log-requests', 'none');
  if (!CACHED_ROUTES.includes(route)) throw new Error(`--route must be one of ${CACHED_ROUTES.join(', ')}`);
  const wrk = wrkVersion();
  if (!wrk) throw new Error('wrk is not installed (Debian package wrk)');

  const group = new ProcessGroup();
  process.once('exit', () => group.killAllNow());
  try {
    const devnet = await startExternalDevnet(group, { sponsorSeeds: [] });
    const key = benchKey();
    const common = { ...baseEnv(key), ...behindExternalDevnet(devnet, 'http://127.0.0.1:9', []), NIGHTGATE_DUST_WALLET_SEEDS: '', NIGHTGATE_BALANCING_ENABLED: 'false', NIGHTGATE_LOG_REQUESTS: logRequests };
    // --off-first: start the server without metrics first (a check that the start order is not what is measured).
    const offFirst = process.argv.includes('--off-first');
    const startOn = (): ReturnType<typeof startNightgate> => startNightgate(group, 'metrics-on', { ...common, NIGHTGATE_METRICS_ENABLED: 'true' }, { probe: false });
    const startOff = (): ReturnType<typeof startNightgate> => startNightgate(group, 'metrics-off', { ...common, NIGHTGATE_METRICS_ENABLED: 'false' }, { probe: false });
    const off = offFirst ? await startOff() : undefined;
    const on = await startOn();
    const offServer = off ?? (await startOff());
    const path = cachedPath('preview', route);
    for (const s of [on, offServer]) {
      const ok = await pollUntil(async () => ((await getJson(`http://127.0.0.1:${s.port}${path}`)).status === 200 ? true : undefined), { timeoutMs: 120_000, intervalMs: 500 });
      if (!ok) throw new Error(`${path} never answered 200 on port ${s.port}`);
    }
    console.log(`${wrk}; ${rounds} rounds of ${seconds} s, ${connections} connections, GET ${path}, log.requests=${logRequests}`);
    const rps: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const cpu: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const which of order) {
        const s = which === 'on' ? on : offServer;
        const c0 = cpuMicros(s.pid) ?? NaN;
        const run = await runWrk({ url: `http://127.0.0.1:${s.port}${path}`, connections, durationS: seconds, timeoutS: 5 });
        rps[which].push(run.responses / run.durationS);
        cpu[which].push(((cpuMicros(s.pid) ?? NaN) - c0) / run.responses);
      }
      console.log(`round ${r + 1}: on ${Math.round(rps.on.at(-1)!)} req/s ${cpu.on.at(-1)!.toFixed(2)} us/req, off ${Math.round(rps.off.at(-1)!)} req/s ${cpu.off.at(-1)!.toFixed(2)} us/req`);
    }
    const scrape = await fetch(`http://127.0.0.1:${on.port}/metrics`).then((r) => r.text());
    const counted = new RegExp(`^nightgate_http_requests_total\\{route="/api/v1/:network/${route}",method="GET",status_class="2xx"\\} (\\d+)`, 'm').exec(scrape)?.[1];
    const mOn = median(rps.on);
    const mOff = median(rps.off);
    console.log(`median: metrics on ${Math.round(mOn)} req/s, off ${Math.round(mOff)} req/s, ratio on/off ${(mOn / mOff).toFixed(3)}`);
    const cOn = median(cpu.on);
    const cOff = median(cpu.off);
    console.log(`median main-thread CPU per request: on ${cOn.toFixed(2)} us, off ${cOff.toFixed(2)} us, ratio on/off ${(cOn / cOff).toFixed(3)}`);
    console.log(`requests the metrics server counted on that route: ${counted ?? 'none'}`);
  } finally {
    await group.stopAll();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
