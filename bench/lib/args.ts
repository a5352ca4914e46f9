/**
 * Command-line options of `npm run bench -- …`, validated eagerly with exact messages. Against a
 * deployment (`--url`) the run must be bounded in time: `--duration` is then required.
 */
import { NETWORKS } from '../../src/core/config/index.js';

export const USAGE = `usage: npm run bench -- [options]    (or: npx tsx bench/run.ts [options])

  --quick                 short runs (the whole bench within 2 minutes); like --only and --url, its
                          report goes beside its JSON in bench/results/, not over bench/RESULTS.md
  --url URL               load-test a deployed nightgate instead of starting one (requires --duration)
  --key KEY               API key for the proving and sponsorship routes of --url
  --duration SECONDS      length of every load run (required with --url)
  --connections N         connections of every load run (default: 1, 10 and 100 for cached routes)
  --rate N                cap every load run at N requests per second overall
  --network NAME          network for statistics and proving routes (default preview)
  --only IDS              run only these scenarios (comma-separated ids, e.g. cached-summary,baselines)
  --sponsor-wallets N     server DUST wallets per embedded network (default 2, the server's own; more = more distinct
                          /balance-only requests before reservations run out)
  --wrk-only              the cached summary and its baselines in the wrk rounds only (3 interleaved
                          rounds at 100 connections, tuned and defaults), without autocannon's levels;
                          its report goes beside its JSON
  --rounds N              interleaved wrk rounds (default 3; more for steadier medians on a busy machine)
  --no-devnet             start the local server without the embedded devnet
  --cpu-prof DIR          write V8 CPU profiles of the local nightgate (main thread and every
                          worker thread) into DIR, for chrome://inspect or speedscope
  --help                  this text`;

export interface BenchArgs {
  quick: boolean;
  url?: string;
  key?: string;
  durationS?: number;
  connections?: number;
  rate?: number;
  network: string;
  only?: ReadonlySet<string>;
  sponsorWallets: number;
  devnet: boolean;
  /** Only the wrk rounds of the cached summary and its baselines. */
  wrkOnly: boolean;
  /** wrk rounds (default: 3 in a full run). */
  rounds?: number;
  cpuProfDir?: string;
  help: boolean;
}

export class ArgsError extends Error {
  override name = 'ArgsError';
}

/**
 * The server's own default (2 DUST wallets a network, 33 UTXOs each, the pool keeper splitting
 * more when free ones run low): every wallet is replayed by the DUST sync on every block, and with
 * 6 a network that background (the sync of 18 wallets) alone put the cached summary's p99 at 100
 * connections over 5 ms for every server in the run, raw uWS included (f57363f: 5.08 ms raw, 5.28
 * nightgate; with 2: 4.76). More for sponsorship scenarios that need more at once.
 */
const DEFAULT_SPONSOR_WALLETS = 2;

const VALUE_FLAGS = new Set(['--url', '--key', '--duration', '--connections', '--rate', '--network', '--only', '--sponsor-wallets', '--cpu-prof', '--rounds']);
const BOOLEAN_FLAGS = new Set(['--quick', '--no-devnet', '--wrk-only', '--help']);

function positive(flag: string, text: string, integer: boolean): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new ArgsError(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got '${text}'`);
  }
  return n;
}

export function parseArgs(argv: readonly string[]): BenchArgs {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (BOOLEAN_FLAGS.has(name)) {
      flags.add(name);
    } else if (VALUE_FLAGS.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new ArgsError(`${name} needs a value`);
      values.set(name, value);
    } else {
      throw new ArgsError(`unknown option '${arg}'`);
    }
  }

  const url = values.get('--url');
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ArgsError(`--url must be an http(s) URL, got '${url}'`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ArgsError(`--url must be an http(s) URL, got '${url}'`);
    if (!values.has('--duration')) {
      throw new ArgsError('--duration is required with --url: a load test against a deployment must have an explicit time bound');
    }
  }
  const network = values.get('--network') ?? 'preview';
  if (!(NETWORKS as readonly string[]).includes(network)) throw new ArgsError(`--network must be one of ${NETWORKS.join(', ')}, got '${network}'`);
  const duration = values.get('--duration');
  const connections = values.get('--connections');
  const rate = values.get('--rate');
  const only = values.get('--only');
  const sponsors = values.get('--sponsor-wallets');

  return {
    quick: flags.has('--quick'),
    ...(url !== undefined ? { url: url.replace(/\/+$/, '') } : {}),
    ...(values.has('--key') ? { key: values.get('--key') as string } : {}),
    ...(duration !== undefined ? { durationS: positive('--duration', duration, false) } : {}),
    ...(connections !== undefined ? { connections: positive('--connections', connections, true) } : {}),
    ...(rate !== undefined ? { rate: positive('--rate', rate, false) } : {}),
    network,
    ...(only !== undefined
      ? {
          only: new Set(
            only
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          ),
        }
      : {}),
    sponsorWallets: sponsors !== undefined ? positive('--sponsor-wallets', sponsors, true) : DEFAULT_SPONSOR_WALLETS,
    devnet: !flags.has('--no-devnet'),
    wrkOnly: flags.has('--wrk-only'),
    ...(values.has('--rounds') ? { rounds: positive('--rounds', values.get('--rounds') as string, true) } : {}),
    ...(values.has('--cpu-prof') ? { cpuProfDir: values.get('--cpu-prof') as string } : {}),
    help: flags.has('--help'),
  };
}
