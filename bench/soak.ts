/**
 * Soak run (not part of CI or `npm run bench`): the real server (`src/cli serve`, embedded devnet)
 * under mixed traffic for a bounded time, its RSS, open file descriptors and threads sampled from
 * /proc/<pid> at a fixed interval, and a linear regression over the samples after warm-up that
 * says whether they stay flat.
 *
 *   npx tsx bench/soak.ts --minutes 10              (or: npm run build && node dist/bench/soak.js --minutes 10)
 *
 * Traffic, from `--concurrency` clients capped at `--rate` requests/s overall: cached statistics
 * (every network), lookups over the whole chain (lookup-cache churn), /prove with new bodies
 * (result-cache churn) and with a repeated one, /verify, /prove-and-balance with distinct
 * transfers (DUST reservations, reclaimed after 5 minutes), refused requests (401, 404, 400),
 * clients that disconnect mid-request, and WebSocket subscribers that come and go.
 *
 * Output: one line per sample, a summary, and bench/results/soak-<time>-<commit>.json.
 * Every process it starts is stopped by pid.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request as undiciRequest } from 'undici';
import WebSocket from 'ws';
import { NETWORKS } from '../src/config.js';
import { getJson, request } from './lib/http.js';
import { commitInfo, machineInfo } from './lib/machine.js';
import { memoryMap, type MemoryMap } from './lib/memory-map.js';
import { baseEnv, benchKey, sponsorSeeds, startNightgate } from './lib/nightgate.js';
import { behindExternalDevnet, startExternalDevnet, type ExternalDevnet } from './lib/external-devnet.js';
import { RESULTS_DIR } from './lib/paths.js';
import { ProcessGroup, eachLine, portAfter, rssMiB } from './lib/processes.js';
import { buildProvingPayloads } from './lib/proving-payloads.js';
import type { DevnetNetwork } from './lib/scenario.js';
import { testAccountTransfers } from './lib/test-account-transfers.js';

const USAGE = `usage: npx tsx bench/soak.ts --minutes N [options]

  --minutes N           how long the traffic runs (required; the bound of the run)
  --sample-seconds N    sampling interval (default 10)
  --warmup-minutes N    samples before this are left out of the regression (default: a quarter of
                        the run, at most 2)
  --concurrency N       concurrent clients (default 8)
  --rate N              requests per second overall, at most (default 200)
  --max-rss-slope N     MiB per minute above which RSS is called growing (default 1)
  --max-fd-slope N      descriptors per minute above which fds are called growing (default 0.5)
  --lookup-cache N      entries of each network's lookup cache (default the server's, 10000):
                        lookups range over the whole chain, so with the default the cache fills
                        with the chain's height for hours; a small value fills it during a short
                        run, so the slope shows what grows beyond it
  --history-blocks N    blocks of history the server keeps in memory (devnet indexer and stats
                        ring; default theirs, 1000): a small value fills them during a short run,
                        so the slope shows what grows beyond them
  --block-time-ms N     block interval of the embedded devnets (default the server's, 6000); a
                        large value freezes the chains, so what grows is the gateway's own
  --no-aborts           leave out the clients that disconnect mid-request (a running task whose
                        client left gets prover.abortGraceMs, then its worker thread is ended)
  --node-flags "F …"    extra Node/V8 flags for the server (e.g. "--no-wasm-tier-up"), to test a
                        hypothesis about what grows
  --external-devnet     run the devnet as a process of its own (src/devnet/cli) and nightgate in
                        front of it as in production: its indexer elsewhere, proofs from an
                        upstream proof server (a loopback stand-in, bench/stand-in-prover.ts). The
                        verdict is on nightgate's process; the devnet's, whose chain state grows
                        with every block, is reported beside it
  --trace-gc            run the server with V8's --trace-gc and report, for each thread's heap
                        (isolate), its size after every full collection: live JS memory, apart
                        from garbage not collected yet

A series is called growing when its slope is above the limit AND the line explains it (r² ≥ 0.5);
a steep slope with a low r² is noise (garbage collection, connection churn).`;

interface Args {
  minutes: number;
  sampleS: number;
  warmupMin: number;
  concurrency: number;
  rate: number;
  maxRssSlope: number;
  maxFdSlope: number;
  blockTimeMs: number | undefined;
  historyBlocks: number | undefined;
  lookupCache: number | undefined;
  traceGc: boolean;
  aborts: boolean;
  nodeFlags: string[];
  externalDevnet: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const v = new Map<string, number>();
  let traceGc = false;
  let aborts = true;
  let externalDevnet = false;
  let nodeFlags: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--node-flags') {
      const text = argv[++i];
      if (text === undefined || !text.trim().startsWith('--')) throw new Error(`--node-flags needs flags such as "--no-wasm-tier-up", got '${text ?? ''}'`);
      nodeFlags = text.trim().split(/\s+/);
      continue;
    }
    if (argv[i] === '--trace-gc') {
      traceGc = true;
      continue;
    }
    if (argv[i] === '--external-devnet') {
      externalDevnet = true;
      continue;
    }
    if (argv[i] === '--no-aborts') {
      aborts = false;
      continue;
    }
    const [flag, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    if (flag === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const known = ['--minutes', '--sample-seconds', '--warmup-minutes', '--concurrency', '--rate', '--max-rss-slope', '--max-fd-slope', '--block-time-ms', '--history-blocks', '--lookup-cache'];
    if (!known.includes(flag)) throw new Error(`unknown option '${argv[i]}'\n${USAGE}`);
    const text = inline ?? argv[++i];
    const n = Number(text);
    if (text === undefined || !Number.isFinite(n) || n <= 0) throw new Error(`${flag} must be a positive number, got '${text ?? ''}'`);
    v.set(flag, n);
  }
  const minutes = v.get('--minutes');
  if (minutes === undefined) throw new Error(`--minutes is required: a soak run must have an explicit time bound\n${USAGE}`);
  return {
    minutes,
    sampleS: v.get('--sample-seconds') ?? 10,
    warmupMin: v.get('--warmup-minutes') ?? Math.min(2, minutes / 4),
    concurrency: Math.floor(v.get('--concurrency') ?? 8),
    rate: v.get('--rate') ?? 200,
    maxRssSlope: v.get('--max-rss-slope') ?? 1,
    maxFdSlope: v.get('--max-fd-slope') ?? 0.5,
    blockTimeMs: v.get('--block-time-ms'),
    historyBlocks: v.get('--history-blocks'),
    lookupCache: v.get('--lookup-cache'),
    traceGc,
    aborts,
    nodeFlags,
    externalDevnet,
  };
}

// --- the server process, from /proc ---------------------------------------------------------------

interface Sample {
  /** Minutes since the traffic started. */
  t: number;
  rssMiB: number;
  fds: number;
  threads: number;
  uptimeSeconds: number | null;
  requests: number;
  /** Chain height of the preview devnet (its in-memory chain grows with every block). */
  previewHeight: number | null;
  workerPool: { completed: number; failed: number; crashed: number; queueSize: number; abandoned?: { finished: number; cutShort: number }; threadsEnded?: number } | null;
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

// --- V8 heaps, from --trace-gc --------------------------------------------------------------------

/** One full (mark-compact) collection of one isolate: the heap's size after it, MB as V8 prints. */
interface MajorGc {
  at: number;
  afterMB: number;
}

/** `[pid:0xISOLATE]  1234 ms: Mark-Compact (reduce) 120.5 (150.2) -> 80.1 (140.3) MB, …` */
const MARK_COMPACT = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/;

/** Every isolate's full collections, read from the server's stdout (`--trace-gc` prints there). */
function watchMajorGcs(stdout: NodeJS.ReadableStream): Map<string, MajorGc[]> {
  const byIsolate = new Map<string, MajorGc[]>();
  eachLine(stdout, (line) => {
    const m = MARK_COMPACT.exec(line);
    if (!m) return;
    const list = byIsolate.get(m[1]!) ?? [];
    list.push({ at: performance.now(), afterMB: Number(m[2]) });
    byIsolate.set(m[1]!, list);
  });
  return byIsolate;
}

/** The wallet-state series' fit, for the JSON (null without enough samples). */
function withStateFit(steady: readonly Sample[]): Fit | null {
  const xs = steady.filter((s) => s.walletStateKiB !== null);
  return xs.length >= 3 ? fit(xs.map((s) => ({ t: s.t, y: s.walletStateKiB! }))) : null;
}

// --- statistics ------------------------------------------------------------------------------------

interface Fit {
  slopePerMin: number;
  r2: number;
  first: number;
  last: number;
  min: number;
  max: number;
}

/** Growing: the slope is above the limit and the line explains the series (r² ≥ 0.5). */
const growing = (f: Fit, limit: number): boolean => f.slopePerMin > limit && f.r2 >= 0.5;

/** Least-squares line through (t, y). */
function fit(points: ReadonlyArray<{ t: number; y: number }>): Fit {
  const n = points.length;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const p of points) {
    sxy += (p.t - mt) * (p.y - my);
    sxx += (p.t - mt) ** 2;
    syy += (p.y - my) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const r2 = sxx === 0 || syy === 0 ? 0 : (sxy * sxy) / (sxx * syy);
  const ys = points.map((p) => p.y);
  return { slopePerMin: slope, r2, first: ys[0]!, last: ys[n - 1]!, min: Math.min(...ys), max: Math.max(...ys) };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// --- traffic ---------------------------------------------------------------------------------------

interface OpStats {
  count: number;
  statuses: Record<string, number>;
  latencies: number[];
}

/** With --external-devnet: the stand-in proof server's fixed proving time. */
const STAND_IN_DELAY_MS = 5;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`soak: ${(err as Error).message}\n`);
    return 2;
  }
  const group = new ProcessGroup();
  const stopAll = (): void => void group.stopAll().then(() => process.exit(130));
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
  try {
    return await soak(args, group);
  } finally {
    await group.stopAll();
  }
}

async function soak(args: Args, group: ProcessGroup): Promise<number> {
  const key = benchKey();
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  const where = args.externalDevnet ? 'in front of a devnet process and a stand-in proof server' : 'embedded devnet';
  log(`soak: starting nightgate (${where}${args.blockTimeMs ? `, a block every ${args.blockTimeMs} ms` : ''}) for ${args.minutes} min of traffic, sampling every ${args.sampleS} s`);
  let external: ExternalDevnet | undefined;
  let env: Record<string, string> = {
    ...baseEnv(key),
    NIGHTGATE_LOG_LEVEL: 'info',
    ...(args.historyBlocks ? { NIGHTGATE_STATS_RING_SIZE: String(Math.max(2, Math.round(args.historyBlocks))) } : {}),
    ...(args.lookupCache ? { NIGHTGATE_STATS_CACHE_SIZE: String(Math.round(args.lookupCache)) } : {}),
  };
  if (args.externalDevnet) {
    const seeds = sponsorSeeds(2);
    external = await startExternalDevnet(group, { sponsorSeeds: seeds, ...(args.blockTimeMs ? { blockTimeMs: args.blockTimeMs } : {}), ...(args.historyBlocks ? { retainBlocks: args.historyBlocks } : {}) });
    const standIn = await group.start({ name: 'stand-in-prover', module: 'bench/stand-in-prover', args: ['--delay-ms', String(STAND_IN_DELAY_MS)], env: {}, readyPort: portAfter('"standIn"'), timeoutMs: 30_000 });
    env = { ...env, ...behindExternalDevnet(external, `http://127.0.0.1:${standIn.port}`, seeds) };
  } else {
    env = { ...env, ...(args.blockTimeMs ? { NIGHTGATE_DEVNET_BLOCK_TIME_MS: String(Math.round(args.blockTimeMs)) } : {}), ...(args.historyBlocks ? { NIGHTGATE_DEVNET_RETAIN_BLOCKS: String(Math.round(args.historyBlocks)) } : {}) };
  }
  const nodeFlags = [...(args.traceGc ? ['--trace-gc'] : []), ...args.nodeFlags];
  const server = await startNightgate(group, 'nightgate', env, { probe: false, ...(nodeFlags.length > 0 ? { nodeFlags } : {}) });
  const majorGcs = args.traceGc && server.child.stdout ? watchMajorGcs(server.child.stdout) : undefined;
  const base = `http://127.0.0.1:${server.port}`;
  // The details (devnet endpoints, sync) are shown to a key only.
  const health = async (): Promise<Record<string, unknown>> => (await getJson(`${base}/health`, 10_000, { 'x-api-key': key })).json as Record<string, unknown>;

  // The devnets' endpoints, and the sponsor wallets synced, before any traffic.
  const devnet: Record<string, DevnetNetwork> = external?.networks ?? ((await health())['components'] as Record<string, { networks?: Record<string, DevnetNetwork> }>)['devnet']?.networks ?? {};
  const preview = devnet['preview'];
  if (!preview) throw new Error('no preview devnet: not in /health, not started apart');
  const syncDeadline = Date.now() + 180_000;
  for (;;) {
    const ws = await request(`${base}/wallet-status`, { headers: { 'x-api-key': key } }).catch(() => undefined);
    const nets = ws?.status === 200 ? (JSON.parse(ws.body.toString('utf8')) as Record<string, { sync: { phase: string } }>) : undefined;
    if (nets && NETWORKS.every((n) => nets[n]?.sync.phase === 'synced')) break;
    if (Date.now() > syncDeadline) throw new Error('the server DUST wallets did not sync within 180 s');
    await sleep(1000);
  }
  const payloads = await buildProvingPayloads();
  // Distinct /prove bodies, cycled: by the time one comes round again its cached result (30 s) has expired.
  const distinct = payloads.distinctProve(2_000);
  const transfers = await testAccountTransfers(preview, Math.ceil(args.minutes * 60 * 2), 'unproven');
  log(`soak: ready (pid ${server.pid}, port ${server.port}); ${transfers.length} distinct transfers for /prove-and-balance`);

  const agent = new Agent({ connections: args.concurrency * 2, keepAliveTimeout: 10_000 });
  const keyed = { 'x-api-key': key, 'content-type': 'application/octet-stream' };
  let tip = 1;
  let proveSeq = 0;
  let transferSeq = 0;
  type Op = { name: string; weight: number; run(signal?: AbortSignal): Promise<number> };
  const send = async (path: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: Uint8Array; signal?: AbortSignal } = {}): Promise<number> => {
    const r = await undiciRequest(`${base}${path}`, { dispatcher: agent, method: init.method ?? 'GET', ...(init.headers ? { headers: init.headers } : {}), ...(init.body ? { body: init.body } : {}), ...(init.signal ? { signal: init.signal } : {}) });
    await r.body.dump();
    return r.statusCode;
  };
  const cached = ['summary', 'latest-block', 'block-time', 'blocks-produced', 'uptime', 'epoch', 'd-parameter', 'night-supply', 'recent-transactions'];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
  const ops: Op[] = [
    { name: 'cached stats', weight: 50, run: () => send(`/api/v1/${pick(NETWORKS)}/${pick(cached)}`) },
    { name: 'lookup block', weight: 10, run: () => send(`/api/v1/${pick(NETWORKS)}/block?height=${Math.floor(Math.random() * tip)}`) },
    { name: 'search height', weight: 4, run: () => send(`/api/v1/preview/search?q=${Math.floor(Math.random() * tip)}`) },
    { name: 'recent limit', weight: 3, run: () => send(`/api/v1/preview/recent-transactions?limit=${1 + Math.floor(Math.random() * 100)}`) },
    { name: 'prove new', weight: 8, run: () => send('/prove', { method: 'POST', headers: keyed, body: distinct[proveSeq++ % distinct.length]! }) },
    { name: 'prove repeat', weight: 6, run: () => send('/prove', { method: 'POST', headers: keyed, body: payloads.prove }) },
    { name: 'verify', weight: 4, run: () => send('/verify', { method: 'POST', headers: keyed, body: payloads.check }) },
    { name: 'prove-and-balance', weight: 2, run: () => send('/prove-and-balance', { method: 'POST', headers: { ...keyed, 'x-midnight-network': 'preview' }, body: transfers[transferSeq++ % transfers.length]! }) },
    { name: 'refused (401/404/400)', weight: 6, run: () => pick([() => send('/prove', { method: 'POST', headers: { ...keyed, 'x-api-key': 'wrong-key-0123456789' }, body: payloads.prove }), () => send('/no/such/route'), () => send('/api/v1/preview/block?height=x')])() },
    {
      name: 'client disconnects',
      weight: args.aborts ? 3 : 0,
      run: async () => {
        const body = distinct[proveSeq++ % distinct.length]!;
        try {
          return await send(pick(['/prove', '/prove-and-balance']), { method: 'POST', headers: keyed, body: Math.random() < 0.5 ? body : transfers[transferSeq++ % transfers.length]!, signal: AbortSignal.timeout(1 + Math.floor(Math.random() * 30)) });
        } catch {
          return 499;
        }
      },
    },
  ];
  const totalWeight = ops.reduce((a, o) => a + o.weight, 0);
  const stats = new Map<string, OpStats>(ops.map((o) => [o.name, { count: 0, statuses: {}, latencies: [] }]));
  let requests = 0;
  let failures = 0;
  const started = performance.now();
  const endAt = started + args.minutes * 60_000;
  const perClientGapMs = (1000 * args.concurrency) / args.rate;

  const client = async (): Promise<void> => {
    while (performance.now() < endAt) {
      const t0 = performance.now();
      let r = Math.random() * totalWeight;
      const op = ops.find((o) => (r -= o.weight) < 0) ?? ops[0]!;
      const s = stats.get(op.name)!;
      try {
        const status = await op.run();
        s.statuses[status] = (s.statuses[status] ?? 0) + 1;
      } catch (err) {
        failures++;
        const code = (err as { code?: string }).code ?? 'error';
        s.statuses[code] = (s.statuses[code] ?? 0) + 1;
      }
      const ms = performance.now() - t0;
      s.count++;
      if (s.latencies.length < 200_000) s.latencies.push(ms);
      requests++;
      if (ms < perClientGapMs) await sleep(perClientGapMs - ms);
    }
  };
  // WebSocket subscribers: one connects every 5 s, waits for its first summary, and leaves.
  let wsOpened = 0;
  let wsMessages = 0;
  const subscribers = async (): Promise<void> => {
    while (performance.now() < endAt) {
      await new Promise<void>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/v1/${pick(NETWORKS)}/ws`);
        const done = (): void => {
          ws.terminate();
          resolve();
        };
        const timer = setTimeout(done, 10_000);
        ws.on('open', () => wsOpened++);
        ws.on('message', () => {
          wsMessages++;
          clearTimeout(timer);
          done();
        });
        ws.on('error', () => {
          clearTimeout(timer);
          done();
        });
      });
      await sleep(5_000);
    }
  };

  const samples: Sample[] = [];
  const sample = async (): Promise<Sample> => {
    const { rssMiB, threads } = procStatus(server.pid);
    const h = await health().catch(() => undefined);
    const comps = (h?.['components'] ?? {}) as Record<string, Record<string, unknown>>;
    const pool = comps['worker-pool'] as Sample['workerPool'] | undefined;
    const cache = (comps['prover']?.['cache'] ?? null) as { entries: number; bytes: number } | null;
    const wallets = (comps['sponsorship']?.['networks'] ?? {}) as Record<string, { utxos?: { reserved: number }; walletStateBytes?: number }>;
    const stateBytes = Object.values(wallets).map((w) => w.walletStateBytes).filter((b): b is number => typeof b === 'number');
    const height = ((comps['stats:preview'] ?? {}) as { latestHeight?: number }).latestHeight ?? null;
    const caches = NETWORKS.map((n) => ((comps[`stats:${n}`] ?? {}) as { cache?: { entries?: number } }).cache?.entries).filter((e): e is number => typeof e === 'number');
    if (height !== null) tip = Math.max(tip, height);
    return {
      t: (performance.now() - started) / 60_000,
      rssMiB: Math.round(rssMiB * 10) / 10,
      fds: fdCount(server.pid),
      threads,
      uptimeSeconds: (h?.['uptimeSeconds'] as number | undefined) ?? null,
      requests,
      previewHeight: height,
      lookupCacheEntries: caches.length > 0 ? caches.reduce((a, b) => a + b, 0) : null,
      workerPool: pool ? { completed: pool.completed, failed: pool.failed, crashed: pool.crashed, queueSize: pool.queueSize, ...(pool.abandoned ? { abandoned: pool.abandoned } : {}), ...(pool.threadsEnded !== undefined ? { threadsEnded: pool.threadsEnded } : {}) } : null,
      proofCache: cache ? { entries: cache.entries, bytes: cache.bytes } : null,
      dustReserved: Object.values(wallets).reduce((a, w) => a + (w.utxos?.reserved ?? 0), 0),
      memory: memoryMap(server.pid) ?? null,
      walletStateKiB: stateBytes.length > 0 ? Math.round(stateBytes.reduce((a, b) => a + b, 0) / 102.4) / 10 : null,
      devnet: external ? devnetSample(external.started.pid) : null,
    };
  };
  const sampler = async (): Promise<void> => {
    for (let next = started; next <= endAt + 1; next += args.sampleS * 1000) {
      await sleep(Math.max(0, next - performance.now()));
      const s = await sample();
      samples.push(s);
      const m = s.memory;
      log(`  t=${s.t.toFixed(2).padStart(6)} min  rss ${s.rssMiB.toFixed(1).padStart(7)} MiB${m ? ` (wasm ${m.wasmMiB} anon ${m.anonMiB} brk ${m.brkMiB} file ${m.fileMiB})` : ''}  fds ${String(s.fds).padStart(4)}  threads ${String(s.threads).padStart(3)}  requests ${String(s.requests).padStart(8)}  height ${s.previewHeight ?? '–'}${s.devnet ? `  devnet rss ${s.devnet.rssMiB.toFixed(1)} MiB (wasm ${s.devnet.memory?.wasmMiB ?? '–'})` : ''}  reserved ${s.dustReserved ?? '–'}  crashed ${s.workerPool?.crashed ?? '–'}`);
    }
  };

  await Promise.all([sampler(), subscribers(), ...Array.from({ length: args.concurrency }, client)]);
  await agent.close();

  // Regression over the samples after warm-up.
  const steady = samples.filter((s) => s.t >= args.warmupMin);
  if (steady.length < 3) throw new Error(`only ${steady.length} samples after the ${args.warmupMin} min warm-up: run longer or sample more often`);
  const rss = fit(steady.map((s) => ({ t: s.t, y: s.rssMiB })));
  const fds = fit(steady.map((s) => ({ t: s.t, y: s.fds })));
  const threads = fit(steady.map((s) => ({ t: s.t, y: s.threads })));
  // The RSS slope by kind of mapping: which part grows.
  const withMap = steady.filter((s) => s.memory !== null);
  const byKind = withMap.length < 3 ? null : {
    wasm: fit(withMap.map((s) => ({ t: s.t, y: s.memory!.wasmMiB }))),
    brk: fit(withMap.map((s) => ({ t: s.t, y: s.memory!.brkMiB }))),
    anon: fit(withMap.map((s) => ({ t: s.t, y: s.memory!.anonMiB }))),
    file: fit(withMap.map((s) => ({ t: s.t, y: s.memory!.fileMiB }))),
  };
  const walletState = withStateFit(steady);
  const devnetSamples = steady.filter((s) => s.devnet !== null);
  const devnetRss = devnetSamples.length >= 3 ? fit(devnetSamples.map((s) => ({ t: s.t, y: s.devnet!.rssMiB }))) : null;
  // Each thread's JS heap after its full collections (with --trace-gc): live memory, not garbage.
  const heaps = majorGcs === undefined ? null : [...majorGcs].map(([isolate, gcs]) => {
    const after = gcs.filter((g) => (g.at - started) / 60_000 >= args.warmupMin).map((g) => ({ t: (g.at - started) / 60_000, y: g.afterMB }));
    return { isolate, fullCollections: gcs.length, afterWarmup: after.length, firstMB: after[0]?.y ?? null, lastMB: after.at(-1)?.y ?? null, fit: after.length >= 3 ? fit(after) : null };
  });
  const heights = steady.map((s) => s.previewHeight).filter((h): h is number => h !== null);
  const blocksPerMin = heights.length > 1 ? (heights.at(-1)! - heights[0]!) / (steady.at(-1)!.t - steady[0]!.t) : null;
  const rssFlat = !growing(rss, args.maxRssSlope);
  const fdsFlat = !growing(fds, args.maxFdSlope);

  // A graceful stop, timed: the server must still shut down cleanly after the soak.
  const stopStarted = performance.now();
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  await server.stop();
  const exitCode = await exited;
  const stopMs = Math.round(performance.now() - stopStarted);

  const byOp = Object.fromEntries(
    [...stats].map(([name, s]) => {
      const sorted = [...s.latencies].sort((a, b) => a - b);
      return [name, { count: s.count, statuses: s.statuses, p50Ms: Math.round(percentile(sorted, 50) * 100) / 100, p99Ms: Math.round(percentile(sorted, 99) * 100) / 100 }];
    }),
  );
  const commit = commitInfo();
  const result = {
    kind: 'soak',
    at: new Date().toISOString(),
    commit,
    machine: machineInfo(),
    settings: args,
    traffic: { requests, clientErrors: failures, perSecond: Math.round(requests / (args.minutes * 60)), websocket: { opened: wsOpened, messages: wsMessages }, byOp },
    samples,
    regression: {
      afterMinutes: args.warmupMin,
      samples: steady.length,
      rssMiB: { ...rss, flat: rssFlat, maxSlopePerMin: args.maxRssSlope },
      fds: { ...fds, flat: fdsFlat, maxSlopePerMin: args.maxFdSlope },
      threads,
      rssByKindMiB: byKind,
      walletStateKiB: walletState,
      devnetProcessRssMiB: devnetRss,
      heapsAfterFullGc: heaps,
      previewBlocksPerMin: blocksPerMin,
    },
    shutdown: { exitCode, ms: stopMs },
  };
  const file = join(RESULTS_DIR, `soak-${result.at.replace(/[:.]/g, '-').slice(0, 19)}Z-${commit.commit.slice(0, 7)}${commit.dirty ? '-dirty' : ''}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);

  const f = (x: Fit, unit: string): string => `${x.first.toFixed(1)} → ${x.last.toFixed(1)} ${unit} (min ${x.min.toFixed(1)}, max ${x.max.toFixed(1)}), slope ${x.slopePerMin >= 0 ? '+' : ''}${x.slopePerMin.toFixed(3)} ${unit}/min, r² ${x.r2.toFixed(2)}`;
  log('');
  log(`soak: ${requests} requests in ${args.minutes} min (${result.traffic.perSecond}/s), ${failures} client-side errors, ${wsOpened} WebSocket subscribers`);
  for (const [name, o] of Object.entries(byOp)) log(`  ${name.padEnd(24)} ${String(o.count).padStart(8)}  p50 ${o.p50Ms} ms  p99 ${o.p99Ms} ms  ${JSON.stringify(o.statuses)}`);
  log(`after ${args.warmupMin} min of warm-up, ${steady.length} samples:`);
  log(`  RSS      ${f(rss, 'MiB')}  → ${rssFlat ? 'flat' : 'GROWING'} (limit +${args.maxRssSlope} MiB/min)`);
  log(`  fds      ${f(fds, 'fds')}  → ${fdsFlat ? 'flat' : 'GROWING'} (limit +${args.maxFdSlope}/min)`);
  log(`  threads  ${f(threads, '')}`);
  if (byKind) for (const [kind, x] of Object.entries(byKind)) log(`    RSS in ${kind.padEnd(5)} ${f(x, 'MiB')}`);
  const cacheSeries = steady.filter((s) => s.lookupCacheEntries !== null);
  if (cacheSeries.length > 1) log(`    lookup caches (all networks): ${cacheSeries[0]!.lookupCacheEntries} → ${cacheSeries.at(-1)!.lookupCacheEntries} entries${args.lookupCache ? ` (at most ${args.lookupCache} per network)` : ''}`);
  if (walletState) log(`    server DUST wallet state (all networks, decoded by every worker) ${f(walletState, 'KiB')}`);
  const lastMap = steady.at(-1)?.memory;
  if (lastMap) log(`    WebAssembly memories at the end (MiB each): ${lastMap.wasmEachMiB.filter((m) => m > 0).join(', ')}`);
  if (heaps) {
    log(`  JS heaps after full collections (one line per thread's isolate):`);
    for (const h of heaps) log(`    ${h.isolate.padEnd(16)} ${String(h.fullCollections).padStart(4)} full GCs, ${h.firstMB ?? '–'} → ${h.lastMB ?? '–'} MB after warm-up${h.fit ? `, slope ${h.fit.slopePerMin >= 0 ? '+' : ''}${h.fit.slopePerMin.toFixed(3)} MB/min, r² ${h.fit.r2.toFixed(2)}` : ''}`);
  }
  if (devnetRss) log(`  the devnet's own process (not nightgate): RSS ${f(devnetRss, 'MiB')}`);
  if (blocksPerMin !== null) log(`  the preview devnet grew by ${blocksPerMin.toFixed(1)} blocks/min meanwhile (its chain is kept in memory)`);
  const pool = samples.at(-1)?.workerPool;
  const abandoned = pool?.abandoned;
  if (abandoned) {
    const ended = pool?.threadsEnded;
    const split = ended === undefined ? "the thread ended, or the task left piscina's queue unstarted" : `worker threads ended during the run: ${ended}, crashes included`;
    log(`  running tasks whose client left: ${abandoned.finished} ended within the grace period (thread kept), ${abandoned.cutShort} cut short at its end (${split})`);
  }
  log(`  graceful stop: exit ${exitCode} after ${stopMs} ms`);
  log(`written ${file}`);
  return rssFlat && fdsFlat && exitCode === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`soak: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
