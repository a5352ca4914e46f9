/** What the soak leaves behind: bench/results/soak-<time>-<commit>.json and its summary on the console. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitInfo, machineInfo } from '../lib/machine.js';
import { RESULTS_DIR } from '../lib/paths.js';
import type { SoakArgs } from './args.js';
import type { Fit } from './fit.js';
import type { Regression } from './regression.js';
import type { Sample } from './samples.js';
import type { Traffic } from './traffic.js';

export interface SoakRun {
  args: SoakArgs;
  traffic: Traffic;
  samples: Sample[];
  regression: Regression;
  /** The graceful stop after the traffic: the server's exit code and how long it took. */
  shutdown: { exitCode: number | null; ms: number };
}

export function writeReport({ args, traffic, samples, regression: g, shutdown }: SoakRun, log: (line: string) => void): void {
  const { requests, failures, wsOpened, wsMessages } = traffic;
  const byOp = traffic.byOp();
  const commit = commitInfo();
  const result = {
    kind: 'soak',
    at: new Date().toISOString(),
    commit,
    machine: machineInfo(),
    settings: args,
    traffic: {
      requests,
      clientErrors: failures,
      perSecond: Math.round(requests / (args.minutes * 60)),
      websocket: { opened: wsOpened, messages: wsMessages },
      byOp,
    },
    samples,
    regression: {
      afterMinutes: args.warmupMin,
      samples: g.steady.length,
      rssMiB: { ...g.rss, flat: g.rssFlat, maxSlopePerMin: args.maxRssSlope },
      fds: { ...g.fds, flat: g.fdsFlat, maxSlopePerMin: args.maxFdSlope },
      threads: g.threads,
      rssByKindMiB: g.byKind,
      walletStateKiB: g.walletState,
      devnetProcessRssMiB: g.devnetRss,
      heapsAfterFullGc: g.heaps,
      previewBlocksPerMin: g.blocksPerMin,
    },
    shutdown,
  };
  const file = join(RESULTS_DIR, `soak-${result.at.replace(/[:.]/g, '-').slice(0, 19)}Z-${commit.commit.slice(0, 7)}${commit.dirty ? '-dirty' : ''}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);

  const f = (x: Fit, unit: string): string =>
    `${x.first.toFixed(1)} → ${x.last.toFixed(1)} ${unit} (min ${x.min.toFixed(1)}` +
    `, max ${x.max.toFixed(1)}` +
    `), slope ${x.slopePerMin >= 0 ? '+' : ''}` +
    `${x.slopePerMin.toFixed(3)}` +
    ` ${unit}` +
    `/min, r² ${x.r2.toFixed(2)}`;
  log('');
  log(`soak: ${requests} requests in ${args.minutes} min (${result.traffic.perSecond}/s), ${failures} client-side errors, ${wsOpened} WebSocket subscribers`);
  for (const [name, o] of Object.entries(byOp))
    log(`  ${name.padEnd(24)} ${String(o.count).padStart(8)}  p50 ${o.p50Ms} ms  p99 ${o.p99Ms} ms  ${JSON.stringify(o.statuses)}`);
  log(`after ${args.warmupMin} min of warm-up, ${g.steady.length} samples:`);
  log(`  RSS      ${f(g.rss, 'MiB')}  → ${g.rssFlat ? 'flat' : 'GROWING'} (limit +${args.maxRssSlope} MiB/min)`);
  log(`  fds      ${f(g.fds, 'fds')}  → ${g.fdsFlat ? 'flat' : 'GROWING'} (limit +${args.maxFdSlope}/min)`);
  log(`  threads  ${f(g.threads, '')}`);
  if (g.byKind) for (const [kind, x] of Object.entries(g.byKind)) log(`    RSS in ${kind.padEnd(5)} ${f(x, 'MiB')}`);
  const cacheSeries = g.steady.filter((s) => s.lookupCacheEntries !== null);
  if (cacheSeries.length > 1)
    log(
      `    lookup caches (all networks): ${cacheSeries[0]!.lookupCacheEntries}` +
        ` → ${cacheSeries.at(-1)!.lookupCacheEntries}` +
        ` entries${args.lookupCache ? ` (at most ${args.lookupCache}` + ` per network)` : ''}`,
    );
  if (g.walletState) log(`    server DUST wallet state (all networks, decoded by every worker) ${f(g.walletState, 'KiB')}`);
  const lastMap = g.steady.at(-1)?.memory;
  if (lastMap) log(`    WebAssembly memories at the end (MiB each): ${lastMap.wasmEachMiB.filter((m) => m > 0).join(', ')}`);
  if (g.heaps) {
    log(`  JS heaps after full collections (one line per thread's isolate):`);
    for (const h of g.heaps)
      log(
        `    ${h.isolate.padEnd(16)} ${String(h.fullCollections).padStart(4)}` +
          ` full GCs, ${h.firstMB ?? '–'}` +
          ` → ${h.lastMB ?? '–'}` +
          ` MB after warm-up${
            h.fit ? `, slope ${h.fit.slopePerMin >= 0 ? '+' : ''}` + `${h.fit.slopePerMin.toFixed(3)}` + ` MB/min, r² ${h.fit.r2.toFixed(2)}` : ''
          }`,
      );
  }
  if (g.devnetRss) log(`  the devnet's own process (not nightgate): RSS ${f(g.devnetRss, 'MiB')}`);
  if (g.blocksPerMin !== null) log(`  the preview devnet grew by ${g.blocksPerMin.toFixed(1)} blocks/min meanwhile (its chain is kept in memory)`);
  const pool = samples.at(-1)?.workerPool;
  const abandoned = pool?.abandoned;
  if (abandoned) {
    const ended = pool?.threadsEnded;
    const split =
      ended === undefined ? "the thread ended, or the task left piscina's queue unstarted" : `worker threads ended during the run: ${ended}, crashes included`;
    log(
      `  running tasks whose client left: ${abandoned.finished}` +
        ` ended within the grace period (thread kept), ${abandoned.cutShort}` +
        ` cut short at its end (${split}` +
        `)`,
    );
  }
  log(`  graceful stop: exit ${shutdown.exitCode} after ${shutdown.ms} ms`);
  log(`written ${file}`);
}
