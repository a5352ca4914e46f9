/**
 * The server process at rest while its embedded devnets produce blocks: RSS (VmRSS from
 * /proc/<pid>/status) and its worker threads, and the main thread's event-loop delay over a window
 * spanning block production. The delay is measured inside the real server process by the
 * preloaded probe (bench/probes/loop-delay.ts, perf_hooks.monitorEventLoopDelay), not inferred
 * from outside; the /health round trip timed from here during the same window is kept beside it.
 */
import { createHistogram } from 'node:perf_hooks';
import { postGraphql, request, sleep } from '../lib/http.js';
import { rssMiB } from '../lib/processes.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';

const HEALTH_EVERY_MS = 50;

async function heights(ctx: ScenarioContext): Promise<number> {
  let sum = 0;
  for (const net of ctx.target.devnet.values()) {
    const data = await postGraphql<{ block: { height: number } | null }>(net.graphqlUrl, '{ block { height } }').catch(() => undefined);
    sum += data?.block?.height ?? 0;
  }
  return sum;
}

/** Times GET /health every HEALTH_EVERY_MS until `until`, one request at a time. */
async function healthRoundTrips(url: string, until: number): Promise<{ p99Ms: number; maxMs: number; count: number }> {
  const hist = createHistogram();
  const limit = Math.ceil((until - Date.now()) / HEALTH_EVERY_MS) + 1;
  for (let i = 0; i < limit && Date.now() < until; i++) {
    const t = performance.now();
    await request(url, { timeoutMs: 5000 }).catch(() => undefined);
    hist.record(Math.max(1, Math.round((performance.now() - t) * 1000)));
    await sleep(HEALTH_EVERY_MS);
  }
  return { p99Ms: hist.percentile(99) / 1000, maxMs: hist.max / 1000, count: hist.count };
}

export const scenario: Scenario = {
  id: 'idle-process',
  title: 'process: idle RSS, worker threads, event-loop delay during block production',
  localOnly: true,
  async run(ctx) {
    const { pid, probe } = ctx.target;
    if (pid === undefined || !probe) return [{ scenario: 'idle-process', variant: 'idle', target: 'process', skipped: 'no local server process' }];
    const windowMs = ctx.settings.idleWindowS * 1000;
    const before = await heights(ctx);
    await probe.reset();
    const health = await healthRoundTrips(`${ctx.target.baseUrl}/health`, Date.now() + windowMs);
    const delay = await probe.read();
    const blocks = (await heights(ctx)) - before;
    const workers = await probe.workers();
    const rss = rssMiB(pid);
    const notes: string[] = [];
    if (ctx.target.devnet.size === 0) notes.push('no embedded devnet: the loop delay was measured without block production');
    else if (blocks === 0) notes.push('no block was produced during the window');
    return [
      {
        scenario: 'idle-process',
        variant: 'idle',
        target: 'process',
        figures: {
          rssMiB: rss ?? null,
          workerThreads: workers,
          windowS: ctx.settings.idleWindowS,
          blocksProduced: blocks,
          loopDelayP50Ms: delay.p50Ms,
          loopDelayP99Ms: delay.p99Ms,
          loopDelayMaxMs: delay.maxMs,
          loopDelaySamples: delay.samples,
          healthRoundTripP99Ms: health.p99Ms,
          healthRoundTripMaxMs: health.maxMs,
        },
        ...(notes.length ? { notes } : {}),
      },
    ];
  },
};
