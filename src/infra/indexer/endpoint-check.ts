/**
 * At start, each network served from a hosted indexer (`public`, or any https URL) is asked one
 * small question. An answer that
 * no retry changes stops the start with one line naming the setting: the host retired (410,
 * Midnight's ENDPOINT_DECOMMISSIONED) or the provider refused the project id (401/403). Anything
 * else (unreachable, slow, an error of its own) is left to the followers, which retry and report
 * it in /health and /readyz.
 */
import { ConfigError, NETWORKS, credentialsOf, indexerUrlOf, isEmbedded, type Config, type NetworkName } from '../../core/config/index.js';
import type { GatewayError } from '../../core/errors.js';
import { gql } from './document.js';
import { GraphqlHttpClient, isFinalRefusal, refusalSetting } from './graphql-http.js';

const PROBE = gql('NightgateProbe', 'query NightgateProbe { block { height } }');
/** Long enough for a hosted indexer across the world, short enough not to hold a start on a hung one. */
const PROBE_TIMEOUT_MS = 3_000;

/** A hosted indexer: the public provider's, or one reached over TLS (a loopback stub is not asked). */
const hosted = (config: Config, n: NetworkName): boolean => config.networks[n].indexer === 'public' || /^https:/.test(indexerUrlOf(config, n) ?? '');

export async function checkIndexers(config: Config, opts: { timeoutMs?: number; asked?: (config: Config, n: NetworkName) => boolean } = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS;
  const networks = NETWORKS.filter((n) => !isEmbedded(config, n) && (opts.asked ?? hosted)(config, n));
  const refusals = await Promise.all(networks.map((n) => refusalOf(config, n, Math.min(timeoutMs, config.stats.upstreamTimeoutMs))));
  const first = refusals.find((r) => r !== undefined);
  if (first) throw new ConfigError(first);
}

async function refusalOf(config: Config, network: NetworkName, timeoutMs: number): Promise<string | undefined> {
  const url = indexerUrlOf(config, network)!;
  const http = new GraphqlHttpClient(url, { timeoutMs, maxResponseBytes: 65_536, connections: 1, headers: credentialsOf(config, network).headers });
  try {
    await http.request(PROBE, {}, { partial: true });
    return undefined;
  } catch (err) {
    if (!isFinalRefusal(err)) return undefined;
    const e = err as GatewayError;
    return `the ${network} indexer at ${new URL(url).host}: ${e.message}; set ${refusalSetting(e, network)}`;
  } finally {
    await http.close();
  }
}
