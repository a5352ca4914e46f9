/** Command line of the soak run (bench/soak.ts), validated eagerly with exact messages. */
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
  --external-devnet     run the devnet as a process of its own (packages/devnet/src/cli) and
                        nightgate in front of it as in production: its indexer elsewhere, proofs
                        from an upstream proof server (a loopback stand-in, bench/stand-in-prover.ts).
                        The verdict is on nightgate's process; the devnet's, whose chain state grows
                        with every block, is reported beside it
  --trace-gc            run the server with V8's --trace-gc and report, for each thread's heap
                        (isolate), its size after every full collection: live JS memory, apart
                        from garbage not collected yet

A series is called growing when its slope is above the limit AND the line explains it (r² ≥ 0.5);
a steep slope with a low r² is noise (garbage collection, connection churn).`;

export interface SoakArgs {
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

export function parseArgs(argv: readonly string[]): SoakArgs {
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
    const known = [
      '--minutes',
      '--sample-seconds',
      '--warmup-minutes',
      '--concurrency',
      '--rate',
      '--max-rss-slope',
      '--max-fd-slope',
      '--block-time-ms',
      '--history-blocks',
      '--lookup-cache',
    ];
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
