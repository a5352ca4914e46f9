/**
 * The soak's samples of the server process: RSS, open file descriptors and threads from
 * /proc/<pid>, resident memory by kind of mapping, and what GET /health says; one line each.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { NETWORKS } from '../../src/core/config/index.js';
import { sleep } from '../lib/http.js';
import { memoryMap, type MemoryMap } from '../lib/memory-map.js';
import { rssMiB } from '../lib/processes.js';

export interface Sample {
  /** Minutes since the traffic started. */
  t: number;
  rssMiB: number;
  fds: number;
  threads: number;
  uptimeSeconds: number | null;
  requests: number;
  /** Chain height of the preview devnet (its in-memory chain grows with every block). */
  previewHeight: number | null;
  workerPool: {
    completed: number;
    failed: number;
    crashed: number;
    queueSize: number;
    abandoned?: { finished: number; cutShort: number };
    threadsEnded?: number;
  } | null;
  proofCache: { entries: number; bytes: number } | null;
  dustReserved: number | null;
  /** Resident memory by kind of mapping (bench/lib/memory-map.ts). */
  memory: MemoryMap | null;
  /** The server DUST wallets' serialized state over all networks (each proving worker decodes it), KiB. */
  walletStateKiB: number | null;
  /** Entries in the lookup caches of all networks (bounded by --lookup-cache each). */
  lookupCacheEntries: number | null;
  /** With --external-devnet: the devnet process. */
  devnet: { rssMiB: number; memory: MemoryMap | null } | null;
}

export interface Sampling {
  pid: number;
  /** With --external-devnet: the devnet process's pid. */
  devnetPid: number | undefined;
  health(): Promise<Record<string, unknown>>;
  /** The traffic's request count, read; its lookup range, raised to the preview chain's height. */
  traffic: { readonly requests: number; tip: number };
  /** When the traffic started (performance.now()). */
  started: number;
  endAt: number;
  everyS: number;
  log(line: string): void;
}

function procStatus(pid: number): { rssMiB: number; threads: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  const threads = /^Threads:\s+(\d+)/m.exec(status);
  return { rssMiB: rss ? Number(rss[1]) / 1024 : NaN, threads: threads ? Number(threads[1]) : NaN };
}

/** The devnet process's memory; null once it is gone (its exit is reported by the traffic failing). */
function devnetSample(pid: number): Sample['devnet'] {
  const rss = rssMiB(pid);
  return rss === undefined ? null : { rssMiB: Math.round(rss * 10) / 10, memory: memoryMap(pid) ?? null };
}

function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

async function sample(s: Sampling): Promise<Sample> {
  const { rssMiB, threads } = procStatus(s.pid);
  const h = await s.health().catch(() => undefined);
  const comps = (h?.['components'] ?? {}) as Record<string, Record<string, unknown>>;
  const pool = comps['worker-pool'] as Sample['workerPool'] | undefined;
  const cache = (comps['prover']?.['cache'] ?? null) as { entries: number; bytes: number } | null;
  const wallets = (comps['sponsorship']?.['networks'] ?? {}) as Record<string, { utxos?: { reserved: number }; walletStateBytes?: number }>;
  const stateBytes = Object.values(wallets)
    .map((w) => w.walletStateBytes)
    .filter((b): b is number => typeof b === 'number');
  const height = ((comps['stats:preview'] ?? {}) as { latestHeight?: number }).latestHeight ?? null;
  const caches = NETWORKS.map((n) => ((comps[`stats:${n}`] ?? {}) as { cache?: { entries?: number } }).cache?.entries).filter(
    (e): e is number => typeof e === 'number',
  );
  if (height !== null) s.traffic.tip = Math.max(s.traffic.tip, height);
  return {
    t: (performance.now() - s.started) / 60_000,
    rssMiB: Math.round(rssMiB * 10) / 10,
    fds: fdCount(s.pid),
    threads,
    uptimeSeconds: (h?.['uptimeSeconds'] as number | undefined) ?? null,
    requests: s.traffic.requests,
    previewHeight: height,
    lookupCacheEntries: caches.length > 0 ? caches.reduce((a, b) => a + b, 0) : null,
    workerPool: pool
      ? {
          completed: pool.completed,
          failed: pool.failed,
          crashed: pool.crashed,
          queueSize: pool.queueSize,
          ...(pool.abandoned ? { abandoned: pool.abandoned } : {}),
          ...(pool.threadsEnded !== undefined ? { threadsEnded: pool.threadsEnded } : {}),
        }
      : null,
    proofCache: cache ? { entries: cache.entries, bytes: cache.bytes } : null,
    dustReserved: Object.values(wallets).reduce((a, w) => a + (w.utxos?.reserved ?? 0), 0),
    memory: memoryMap(s.pid) ?? null,
    walletStateKiB: stateBytes.length > 0 ? Math.round(stateBytes.reduce((a, b) => a + b, 0) / 102.4) / 10 : null,
    devnet: s.devnetPid !== undefined ? devnetSample(s.devnetPid) : null,
  };
}

/** A sample every `everyS` seconds from the start of the traffic to its end. */
export async function takeSamples(s: Sampling): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let next = s.started; next <= s.endAt + 1; next += s.everyS * 1000) {
    await sleep(Math.max(0, next - performance.now()));
    const x = await sample(s);
    samples.push(x);
    const m = x.memory;
    s.log(
      `  t=${x.t.toFixed(2).padStart(6)} min  rss ${x.rssMiB.toFixed(1).padStart(7)}` +
        ` MiB${m ? ` (wasm ${m.wasmMiB}` + ` anon ${m.anonMiB}` + ` brk ${m.brkMiB}` + ` file ${m.fileMiB}` + `)` : ''}` +
        `  fds ${String(x.fds).padStart(4)}` +
        `  threads ${String(x.threads).padStart(3)}` +
        `  requests ${String(x.requests).padStart(8)}` +
        `  height ${x.previewHeight ?? '–'}` +
        `${x.devnet ? `  devnet rss ${x.devnet.rssMiB.toFixed(1)}` + ` MiB (wasm ${x.devnet.memory?.wasmMiB ?? '–'}` + `)` : ''}` +
        `  reserved ${x.dustReserved ?? '–'}` +
        `  crashed ${x.workerPool?.crashed ?? '–'}`,
    );
  }
  return samples;
}
