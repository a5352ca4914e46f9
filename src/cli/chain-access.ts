/**
 * Where the CLI reaches a network's chain, as the server does: its indexer (HTTP and WebSocket),
 * its node RPC and the credentials they want. A network served from an indexer is read from the
 * configuration (the same NIGHTGATE_CONFIG and environment as the server). A network served by
 * the embedded devnet lives inside the running server: its keyed GET /health lists the devnet's
 * endpoints (`components.devnet.networks`).
 */
import {
  credentialsOf,
  indexerUrlOf,
  indexerWsUrlOf,
  isEmbedded,
  nodeRpcUrlOf,
  NO_CREDENTIALS,
  type Config,
  type NetworkName,
  type UpstreamCredentials,
} from '../core/config/index.js';
import type { ExtrinsicFraming } from '../infra/ledger/index.js';

export class CliError extends Error {}

export interface ChainAccess {
  network: NetworkName;
  /** The ledger network id addresses and transactions are built for. */
  networkId: string;
  graphqlUrl: string;
  graphqlWsUrl: string;
  nodeRpcUrl: string | undefined;
  /** The deprecated relay, when configured. */
  relayUrl: string | undefined;
  framing: ExtrinsicFraming;
  credentials: UpstreamCredentials;
  /** The devnet's faucet, on an embedded network of the default profile. */
  faucetUrl: string | undefined;
  embedded: boolean;
}

interface DevnetEntry {
  networkId?: unknown;
  graphqlUrl?: unknown;
  graphqlWsUrl?: unknown;
  nodeRpcUrl?: unknown;
  faucetUrl?: unknown;
  profile?: unknown;
}

export function jsonOrUndefined(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function getText(url: string, headers: Record<string, string>, deadline: number): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
  return { status: res.status, text: await res.text() };
}

/** The running server's keyed /health, which lists its components (the devnet's endpoints among them). */
async function keyedHealth(base: string, key: string | undefined, deadline: number): Promise<Record<string, unknown>> {
  let res: { status: number; text: string };
  try {
    res = await getText(`${base}/health`, key === undefined ? {} : { 'x-api-key': key }, deadline);
  } catch (err) {
    throw new CliError(`cannot read ${base}/health (${(err as Error).message}): is nightgate running there? (--url)`);
  }
  if (res.status === 401) throw new CliError(`${base} refused the API key (401): pass a valid one with --key`);
  if (res.status !== 200) throw new CliError(`GET ${base}/health answered ${res.status}: ${res.text.slice(0, 300)}`);
  const health = jsonOrUndefined(res.text);
  if (health === undefined) throw new CliError(`GET ${base}/health answered no JSON object: ${res.text.slice(0, 300)}`);
  if (health['components'] === undefined) throw new CliError(`GET ${base}/health lists its components only to a key: pass one with --key`);
  return health;
}

export async function chainAccess(config: Config, network: NetworkName, base: string, key: string | undefined, deadline: number): Promise<ChainAccess> {
  const net = config.networks[network];
  const common = { network, relayUrl: net.submitUrl || undefined, framing: net.extrinsic };
  if (!isEmbedded(config, network)) {
    return {
      ...common,
      networkId: net.networkId || network,
      graphqlUrl: indexerUrlOf(config, network)!,
      graphqlWsUrl: indexerWsUrlOf(config, network)!,
      nodeRpcUrl: nodeRpcUrlOf(config, network),
      credentials: credentialsOf(config, network),
      faucetUrl: undefined,
      embedded: false,
    };
  }
  const health = await keyedHealth(base, key, deadline);
  const components = health['components'] as { devnet?: { networks?: Record<string, DevnetEntry> } };
  const d = components.devnet?.networks?.[network];
  if (d === undefined || typeof d.graphqlUrl !== 'string' || typeof d.graphqlWsUrl !== 'string' || typeof d.nodeRpcUrl !== 'string') {
    throw new CliError(
      `${network} is not served by an embedded devnet at ${base}` +
        `, though this configuration says it is (networks.${network}` +
        `.indexer): run the CLI with the server's configuration`,
    );
  }
  const isPublic = d.profile === 'public';
  return {
    ...common,
    networkId: typeof d.networkId === 'string' ? d.networkId : 'undeployed',
    graphqlUrl: d.graphqlUrl,
    graphqlWsUrl: d.graphqlWsUrl,
    nodeRpcUrl: nodeRpcUrlOf(config, network) ?? d.nodeRpcUrl,
    credentials: isPublic ? credentialsOf(config, network) : NO_CREDENTIALS,
    faucetUrl: !isPublic && typeof d.faucetUrl === 'string' ? d.faucetUrl : undefined,
    embedded: true,
  };
}
