/**
 * The server under test: the real process entry (`src/cli serve`) in its own process on a free
 * loopback port, configured only through its environment. The port comes from the start-up log
 * line "nightgate listening on" (pino JSON, field `port`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { NETWORKS } from '../../src/core/config/index.js';
import { portAfter, type ProcessGroup, type Started } from './processes.js';

const START_TIMEOUT_MS = 180_000;

/** A raw API key for this run (development keys, `NIGHTGATE_API_KEYS`). */
export function benchKey(): string {
  return `ngk_bench_${randomBytes(16).toString('hex')}`;
}

/** Deterministic server DUST wallet seeds, so a run's sponsor capacity is known in advance. */
export function sponsorSeeds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => createHash('sha256').update(`nightgate-bench-sponsor-${i}`).digest('hex'));
}

/** A loopback port that was free a moment ago and has nothing listening on it. */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Settings every bench server gets: port 0, the bench key, no access log (pino at `info` only so the
 * "listening" line — logged at info — is printed; request lines are off), rate limits far above
 * what a load run sends so they never answer 429, a DUST budget that never runs out and no cap on
 * the DUST UTXOs one key holds reserved (dust.maxReservationsPerKey, 16 a network by default).
 */
/**
 * A local `serve` on a free loopback port with the keys of `configFile` and the server's defaults
 * otherwise; at `info`, so the "listening" line and the devnet's "dropped at block time" lines are
 * printed, without an access log.
 */
export function localServeEnv(configFile: string): Record<string, string> {
  return { NIGHTGATE_HOST: '127.0.0.1', NIGHTGATE_PORT: '0', NIGHTGATE_CONFIG: configFile, NIGHTGATE_LOG_LEVEL: 'info', NIGHTGATE_LOG_REQUESTS: 'none' };
}

/** Settings that leave only `network` an embedded devnet: the others point at `closedPort`, where nothing listens. */
export function onlyDevnetOf(network: string, closedPort: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const n of NETWORKS.filter((x) => x !== network)) {
    const N = n.toUpperCase();
    env[`NIGHTGATE_${N}_INDEXER`] = `http://127.0.0.1:${closedPort}/api/v4/graphql`;
    env[`NIGHTGATE_${N}_PROVER`] = 'upstream';
    env[`NIGHTGATE_${N}_PROVER_URL`] = `http://127.0.0.1:${closedPort}`;
  }
  return env;
}

export function baseEnv(apiKey: string): Record<string, string> {
  return {
    NIGHTGATE_HOST: '127.0.0.1',
    NIGHTGATE_PORT: '0',
    NIGHTGATE_API_KEYS: apiKey,
    NIGHTGATE_LOG_LEVEL: 'info',
    NIGHTGATE_LOG_REQUESTS: 'none',
    NIGHTGATE_RATE_LIMIT: '100000000',
    NIGHTGATE_PUBLIC_RATE_LIMIT: '100000000',
    NIGHTGATE_DUST_BUDGET: '1' + '0'.repeat(39),
    // One key holds every reservation of a run (the runs answer and never submit): no per-key cap.
    NIGHTGATE_DUST_MAX_RESERVATIONS_PER_KEY: '1000000',
  };
}

/** Every network served from an indexer URL where nothing listens: no embedded devnet starts. */
export function withoutDevnet(indexerPort: number, proverUrl: string): Record<string, string> {
  return Object.fromEntries(
    NETWORKS.flatMap((n) => {
      const N = n.toUpperCase();
      return [
        [`NIGHTGATE_${N}_INDEXER`, `http://127.0.0.1:${indexerPort}/api/v4/graphql`],
        [`NIGHTGATE_${N}_PROVER`, 'upstream'],
        [`NIGHTGATE_${N}_PROVER_URL`, proverUrl],
      ];
    }),
  );
}

let profileDir: string | undefined;

/** `--cpu-prof DIR`: every nightgate started from now on writes V8 CPU profiles into DIR. */
export function profileInto(dir: string | undefined): void {
  profileDir = dir;
}

export function startNightgate(
  group: ProcessGroup,
  name: string,
  env: Record<string, string>,
  opts: { probe: boolean; nodeFlags?: readonly string[] },
): Promise<Started> {
  const nodeFlags = [...(profileDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(opts.nodeFlags ?? [])];
  return group.start({
    ...(nodeFlags.length > 0 ? { nodeFlags } : {}),
    name,
    // With the probe, its entry runs first and then imports src/cli itself.
    module: opts.probe ? 'bench/probes/loop-delay' : 'src/cli',
    args: ['serve'],
    ipc: opts.probe,
    env,
    readyPort: portAfter('nightgate listening on'),
    timeoutMs: START_TIMEOUT_MS,
  });
}
