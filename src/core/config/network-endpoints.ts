/**
 * What a network's settings resolve to: its indexer and node RPC URLs, the credentials a hosted
 * provider wants with each request, its prover backend and proof server URL.
 */
import { PROJECT_ID_HEADER, PUBLIC_ENDPOINTS, type NetworkName, type ProverBackendName } from './networks.js';
import type { Config } from './schema.js';

/**
 * What a hosted provider wants with every request of one network: HTTP headers (indexer over
 * HTTP and on the WebSocket upgrade, node RPC) and the `connection_init` payload of the indexer's
 * GraphQL WebSocket. Values are secrets: never logged, never shown.
 */
export interface UpstreamCredentials {
  headers: Readonly<Record<string, string>>;
  initPayload: Readonly<Record<string, string>>;
}

export const NO_CREDENTIALS: UpstreamCredentials = Object.freeze({ headers: Object.freeze({}), initPayload: Object.freeze({}) });

export function isEmbedded(config: Config, n: NetworkName): boolean {
  return config.networks[n].indexer === 'embedded';
}

export function indexerUrlOf(config: Config, n: NetworkName): string | undefined {
  const v = config.networks[n].indexer;
  if (v === 'embedded') return undefined;
  return v === 'public' ? PUBLIC_ENDPOINTS[n].indexer : v;
}

/** The indexer's WebSocket: as set, the public one, or the HTTP URL's `…/ws` (`indexerWsUrl`). */
export function indexerWsUrlOf(config: Config, n: NetworkName): string | undefined {
  const net = config.networks[n];
  if (net.indexer === 'embedded') return undefined;
  if (net.indexerWs !== '') return net.indexerWs;
  return net.indexer === 'public' ? PUBLIC_ENDPOINTS[n].indexerWs : indexerWsUrl(net.indexer);
}

/**
 * An indexer URL's WebSocket when none is set: `/ws` at the end of the path, before any query
 * string (`…/graphql?apikey=X` → `…/graphql/ws?apikey=X`), the scheme ws/wss.
 */
function indexerWsUrl(httpUrl: string): string {
  const u = new URL(httpUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/$/, '')}/ws`;
  return u.toString();
}

/** The node RPC as configured; undefined when there is none here (an embedded network's is its devnet's). */
export function nodeRpcUrlOf(config: Config, n: NetworkName): string | undefined {
  const net = config.networks[n];
  if (net.nodeRpc === 'public' || (net.nodeRpc === '' && net.indexer === 'public')) return PUBLIC_ENDPOINTS[n].nodeRpc;
  return net.nodeRpc === '' ? undefined : net.nodeRpc;
}

export function credentialsOf(config: Config, n: NetworkName): UpstreamCredentials {
  const id = config.networks[n].projectId;
  if (id === '') return NO_CREDENTIALS;
  return Object.freeze({ headers: Object.freeze({ [PROJECT_ID_HEADER]: id }), initPayload: Object.freeze({ [PROJECT_ID_HEADER]: id }) });
}

export function proverBackendOf(config: Config, n: NetworkName): ProverBackendName {
  const b = config.networks[n].prover;
  if (b) return b;
  return isEmbedded(config, n) ? 'dev' : 'upstream';
}

export function proverUrlOf(config: Config, n: NetworkName): string {
  return config.networks[n].proverUrl || config.prover.upstreamUrl;
}
