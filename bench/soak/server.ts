/**
 * The soak's server: nightgate (`src/cli serve`) on its embedded devnets, or with
 * --external-devnet in front of a devnet process and a stand-in proof server; ready once its
 * sponsor wallets have synced.
 */
import { NETWORKS } from '../../src/core/config/index.js';
import { behindExternalDevnet, startExternalDevnet, type ExternalDevnet } from '../lib/external-devnet.js';
import { getJson, request, sleep } from '../lib/http.js';
import { baseEnv, benchKey, sponsorSeeds, startNightgate } from '../lib/nightgate.js';
import { portAfter, type ProcessGroup, type Started } from '../lib/processes.js';
import type { DevnetNetwork } from '../lib/scenario.js';
import type { SoakArgs } from './args.js';
import { watchMajorGcs, type MajorGc } from './major-gcs.js';

/** With --external-devnet: the stand-in proof server's fixed proving time. */
const STAND_IN_DELAY_MS = 5;

export interface SoakServer {
  server: Started;
  /** With --external-devnet: the devnet process. */
  external: ExternalDevnet | undefined;
  key: string;
  /** `http://127.0.0.1:PORT`. */
  base: string;
  /** GET /health with the key: the details (devnet endpoints, sync) are shown to a key only. */
  health(): Promise<Record<string, unknown>>;
  preview: DevnetNetwork;
  /** With --trace-gc: every isolate's full collections so far. */
  majorGcs: Map<string, MajorGc[]> | undefined;
}

export async function startSoakServer(group: ProcessGroup, args: SoakArgs, log: (line: string) => void): Promise<SoakServer> {
  const key = benchKey();
  const where = args.externalDevnet ? 'in front of a devnet process and a stand-in proof server' : 'embedded devnet';
  log(
    `soak: starting nightgate (${where}${args.blockTimeMs ? `, a block every ${args.blockTimeMs}` + ` ms` : ''}` +
      `) for ${args.minutes}` +
      ` min of traffic, sampling every ${args.sampleS}` +
      ` s`,
  );
  let external: ExternalDevnet | undefined;
  let env: Record<string, string> = {
    ...baseEnv(key),
    NIGHTGATE_LOG_LEVEL: 'info',
    ...(args.historyBlocks ? { NIGHTGATE_STATS_RING_SIZE: String(Math.max(2, Math.round(args.historyBlocks))) } : {}),
    ...(args.lookupCache ? { NIGHTGATE_STATS_CACHE_SIZE: String(Math.round(args.lookupCache)) } : {}),
  };
  if (args.externalDevnet) {
    const seeds = sponsorSeeds(2);
    external = await startExternalDevnet(group, {
      sponsorSeeds: seeds,
      ...(args.blockTimeMs ? { blockTimeMs: args.blockTimeMs } : {}),
      ...(args.historyBlocks ? { retainBlocks: args.historyBlocks } : {}),
    });
    const standIn = await group.start({
      name: 'stand-in-prover',
      module: 'bench/stand-in-prover',
      args: ['--delay-ms', String(STAND_IN_DELAY_MS)],
      env: {},
      readyPort: portAfter('"standIn"'),
      timeoutMs: 30_000,
    });
    env = { ...env, ...behindExternalDevnet(external, `http://127.0.0.1:${standIn.port}`, seeds) };
  } else {
    env = {
      ...env,
      ...(args.blockTimeMs ? { NIGHTGATE_DEVNET_BLOCK_TIME_MS: String(Math.round(args.blockTimeMs)) } : {}),
      ...(args.historyBlocks ? { NIGHTGATE_DEVNET_RETAIN_BLOCKS: String(Math.round(args.historyBlocks)) } : {}),
    };
  }
  const nodeFlags = [...(args.traceGc ? ['--trace-gc'] : []), ...args.nodeFlags];
  const server = await startNightgate(group, 'nightgate', env, { probe: false, ...(nodeFlags.length > 0 ? { nodeFlags } : {}) });
  const majorGcs = args.traceGc && server.child.stdout ? watchMajorGcs(server.child.stdout) : undefined;
  const base = `http://127.0.0.1:${server.port}`;
  const health = async (): Promise<Record<string, unknown>> => (await getJson(`${base}/health`, 10_000, { 'x-api-key': key })).json as Record<string, unknown>;

  // The devnets' endpoints, and the sponsor wallets synced, before any traffic.
  const devnet: Record<string, DevnetNetwork> =
    external?.networks ?? ((await health())['components'] as Record<string, { networks?: Record<string, DevnetNetwork> }>)['devnet']?.networks ?? {};
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
  return { server, external, key, base, health, preview, majorGcs };
}
