/**
 * What `npm run bench` measures: a deployment given by `--url`, or nightgate started here — the
 * main server (`src/cli serve`, embedded devnets) and, for the cached summary, two more reading
 * its devnets: one on the tuned settings and one on the shipped defaults.
 */
import { isEra } from '../../src/infra/ledger/index.js';
import type { BenchArgs } from './args.js';
import { getJson } from './http.js';
import { LoopDelayClient } from './loop-delay-client.js';
import { LOCAL_LOOKUP_CACHE_SIZE } from './lookups.js';
import { baseEnv, benchKey, closedPort, sponsorSeeds, startNightgate, withoutDevnet } from './nightgate.js';
import type { ProcessGroup, Started } from './processes.js';
import type { DevnetNetwork, Target } from './scenario.js';

const PROVER_THREADS = 2;

type Log = (line: string) => void;

/** The servers the run started here, each stopped (and taken out of the target) before a scenario that starts its own. */
export class LocalServers {
  main: Started | undefined;
  defaults: Started | undefined;
  tuned: Started | undefined;

  async stop(target: Target): Promise<void> {
    if (this.defaults) {
      await this.defaults.stop();
      this.defaults = undefined;
      delete target.defaults;
    }
    if (this.tuned) {
      await this.tuned.stop();
      this.tuned = undefined;
      delete target.tuned;
    }
    if (this.main) {
      await this.main.stop();
      this.main = undefined;
      // Its pid may be reused: no later run may read another process's CPU time as nightgate's.
      delete target.pid;
    }
  }
}

/**
 * Embedded devnet endpoints from GET /health (`components.devnet.networks`: shown with a key
 * only), each with the ledger era it runs (`components.ledger.networks`).
 */
async function devnetFromHealth(baseUrl: string, apiKey: string | undefined): Promise<Map<string, DevnetNetwork>> {
  const out = new Map<string, DevnetNetwork>();
  const { json } = await getJson(`${baseUrl}/health`, 10_000, apiKey ? { 'x-api-key': apiKey } : undefined).catch(() => ({ json: undefined }));
  const components = (
    json as
      | { components?: { devnet?: { networks?: Record<string, Partial<DevnetNetwork>> }; ledger?: { networks?: Record<string, { era?: unknown }> } } }
      | undefined
  )?.components;
  const networks = components?.devnet?.networks ?? {};
  for (const [name, n] of Object.entries(networks)) {
    if (typeof n.graphqlUrl === 'string' && typeof n.graphqlWsUrl === 'string' && typeof n.networkId === 'string') {
      const era = components?.ledger?.networks?.[name]?.era;
      out.set(name, { name, networkId: n.networkId, graphqlUrl: n.graphqlUrl, graphqlWsUrl: n.graphqlWsUrl, ...(isEra(era) ? { era } : {}) });
    }
  }
  return out;
}

interface LocalServer {
  server: Started;
  settings: Record<string, string>;
  notes: string[];
}

/** The main server under test; without a working devnet, the same server on no devnet (said loudly). */
async function startLocal(group: ProcessGroup, args: BenchArgs, apiKey: string, log: Log): Promise<LocalServer> {
  const env: Record<string, string> = {
    ...baseEnv(apiKey),
    NIGHTGATE_STATS_CACHE_SIZE: String(LOCAL_LOOKUP_CACHE_SIZE),
    NIGHTGATE_PROVER_THREADS: String(PROVER_THREADS),
    NIGHTGATE_DUST_WALLET_SEEDS: sponsorSeeds(args.sponsorWallets).join(','),
  };
  const shown = (e: Record<string, string>): Record<string, string> => ({
    ...e,
    NIGHTGATE_API_KEYS: '<bench key>',
    NIGHTGATE_DUST_WALLET_SEEDS: `<${args.sponsorWallets} bench seeds>`,
  });
  const noDevnet = async (): Promise<Record<string, string>> => {
    const port = await closedPort();
    return { ...env, ...withoutDevnet(port, `http://127.0.0.1:${port}`) };
  };
  if (!args.devnet) {
    const e = await noDevnet();
    return {
      server: await startNightgate(group, 'nightgate', e, { probe: true }),
      settings: shown(e),
      notes: ['--no-devnet: no embedded devnet; lookups and sponsorship are not measurable'],
    };
  }
  try {
    return { server: await startNightgate(group, 'nightgate', env, { probe: true }), settings: shown(env), notes: [] };
  } catch (err) {
    const reason = (err as Error).message.split('\n').slice(0, 4).join(' / ');
    log(`! nightgate did not start with its embedded devnet: ${reason}`);
    log('! falling back to a server without devnet (every network on a closed indexer port); results say so');
    const e = await noDevnet();
    return {
      server: await startNightgate(group, 'nightgate', e, { probe: true }),
      settings: shown(e),
      notes: [
        `FALLBACK: the server could not start with its embedded devnet (${reason}` +
          `); it ran without devnet, so lookups, sponsorship and block-production figures are not measured`,
      ],
    };
  }
}

/**
 * A nightgate apart from the main server, reading its embedded devnets as its indexers (no devnet
 * or DUST sync of its own, so the machine carries one chain, not two): the shipped defaults (access
 * log on, per-IP limit on, raised so nothing is refused), or with `tuned` the bench's tuned
 * settings (access log off). Undefined, with a note, when there is no devnet to read.
 */
async function startApart(
  group: ProcessGroup,
  apiKey: string,
  devnet: ReadonlyMap<string, DevnetNetwork>,
  notes: string[],
  tuned = false,
): Promise<{ started: Started; settings: Record<string, string> } | undefined> {
  if (devnet.size === 0) {
    notes.push(`no devnet to read: the ${tuned ? 'tuned' : 'defaults'} configuration was not measured apart`);
    return undefined;
  }
  const { NIGHTGATE_LOG_REQUESTS: logRequests, ...env } = baseEnv(apiKey);
  if (tuned) Object.assign(env, { NIGHTGATE_LOG_REQUESTS: logRequests });
  const prover = `http://127.0.0.1:${await closedPort()}`;
  for (const n of devnet.values()) {
    const N = n.name.toUpperCase();
    Object.assign(env, {
      [`NIGHTGATE_${N}_INDEXER`]: n.graphqlUrl,
      [`NIGHTGATE_${N}_INDEXER_WS`]: n.graphqlWsUrl,
      [`NIGHTGATE_${N}_PROVER`]: 'upstream',
      [`NIGHTGATE_${N}_PROVER_URL`]: prover,
    });
  }
  const started = await startNightgate(group, tuned ? 'nightgate-tuned' : 'nightgate-defaults', env, { probe: false });
  // Its follower reads the devnet over the network: wait (bounded) for its first summary.
  const url = `http://127.0.0.1:${started.port}/api/v1/preview/summary`;
  for (const t0 = Date.now(); Date.now() - t0 < 60_000; ) {
    const { status } = await getJson(url, 5000).catch(() => ({ status: 0 }));
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const shown = { ...env, NIGHTGATE_API_KEYS: '<bench key>' };
  return { started, settings: shown };
}

export interface OpenedTarget {
  target: Target;
  servers: LocalServers;
  /** The main local server's environment as the results show it (keys and seeds masked); empty against a deployment. */
  settings: Record<string, string>;
}

/** Reaches the deployment, or starts the local servers; what the results must say about them goes into `notes`. */
export async function openTarget(group: ProcessGroup, args: BenchArgs, notes: string[], log: Log): Promise<OpenedTarget> {
  const servers = new LocalServers();
  if (args.url) {
    const health = await getJson(`${args.url}/health`).catch((err: Error) => ({ status: 0, json: err.message }));
    if (health.status === 0) throw new Error(`cannot reach ${args.url}/health: ${String(health.json)}`);
    const target: Target = {
      kind: 'remote',
      baseUrl: args.url,
      ...(args.key ? { apiKey: args.key } : {}),
      network: args.network,
      devnet: await devnetFromHealth(args.url, args.key),
    };
    log(`target: ${args.url} (deployment)`);
    return { target, servers, settings: {} };
  }
  const apiKey = benchKey();
  log('▶ starting nightgate (src/cli serve) …');
  const t0 = performance.now();
  const local = await startLocal(group, args, apiKey, log);
  const main = local.server;
  servers.main = main;
  notes.push(...local.notes);
  const devnet = await devnetFromHealth(`http://127.0.0.1:${main.port}`, apiKey);
  const target: Target = {
    kind: 'local',
    baseUrl: `http://127.0.0.1:${main.port}`,
    apiKey,
    network: args.network,
    pid: main.pid,
    probe: new LoopDelayClient(main.child),
    devnet,
    ...(devnet.size > 0 ? { sponsorWallets: args.sponsorWallets } : {}),
    proverThreads: PROVER_THREADS,
  };
  log(
    `✓ nightgate pid ${main.pid} on port ${main.port} in ${((performance.now() - t0) / 1000).toFixed(1)}` +
      ` s; devnet networks: ${[...devnet.keys()].join(', ') || 'none'}`,
  );
  if (!args.only || args.only.has('cached-summary')) {
    log('▶ starting nightgate on the tuned settings apart from the devnets, reading them …');
    const tuned = await startApart(group, apiKey, devnet, notes, true);
    if (tuned) {
      target.tuned = { baseUrl: `http://127.0.0.1:${tuned.started.port}`, pid: tuned.started.pid };
      servers.tuned = tuned.started;
      notes.push(
        `the \`nightgate\` rows of the cached summary: a nightgate on the tuned settings apart from the one hosting the devnets ` +
          `and the DUST sync (whose CPU every server here shares), reading its devnets as its indexers, as the defaults server ` +
          `does; settings: ${Object.entries(tuned.settings)
            .map(([k, v]) => `\`${k}=${v}\``)
            .join(', ')}`,
      );
      log(`✓ nightgate (tuned, apart) pid ${tuned.started.pid} on port ${tuned.started.port}`);
    }
    log('▶ starting nightgate on the defaults (access log on), reading the devnets above …');
    const d = await startApart(group, apiKey, devnet, notes);
    if (d) {
      target.defaults = { baseUrl: `http://127.0.0.1:${d.started.port}`, pid: d.started.pid };
      servers.defaults = d.started;
      notes.push(
        `the \`nightgate, defaults\` rows: a second nightgate on the shipped defaults (access log \`all\` to a pipe the runner ` +
          `drains, per-IP limit on) but for the limits raised so nothing is refused, reading the first one's devnets as its ` +
          `indexers; settings: ${Object.entries(d.settings)
            .map(([k, v]) => `\`${k}=${v}\``)
            .join(', ')}`,
      );
      log(`✓ nightgate (defaults) pid ${d.started.pid} on port ${d.started.port}`);
    }
  }
  return { target, servers, settings: local.settings };
}
