/**
 * Where a network's chain data comes from: its embedded devnet, or a Midnight indexer
 * (configured URL or the public provider's), with the credentials it wants and the node RPC
 * beside it. Statistics, DUST sync and submissions all start from here.
 */
import type { AppContext } from '../app-context.js';
import {
  NO_CREDENTIALS,
  credentialsOf,
  indexerUrlOf,
  indexerWsUrlOf,
  isEmbedded,
  nodeRpcUrlOf,
  type NetworkName,
  type UpstreamCredentials,
} from '../../core/config/index.js';

export interface NetworkSource {
  httpUrl: string;
  wsUrl: string;
  /** `embedded-devnet` or `indexer:<host>`. */
  label: string;
  /** The ledger's network id, which addresses are encoded with. */
  networkId: string;
  embedded: boolean;
  /** What the indexer and node want with each request (a hosted provider's project id): secrets. */
  credentials: UpstreamCredentials;
  /** The node's JSON-RPC (submissions, epoch, D-parameter); undefined when there is none. */
  nodeRpcUrl: string | undefined;
}

/** Where a network's data comes from; undefined for an embedded network whose devnet is not running. */
export function sourceOf(ctx: AppContext, network: NetworkName): NetworkSource | undefined {
  if (isEmbedded(ctx.config, network)) {
    const d = ctx.devnet.get(network);
    if (!d) return undefined;
    const credentials = d.profile === 'public' ? credentialsOf(ctx.config, network) : NO_CREDENTIALS;
    return {
      httpUrl: d.graphqlUrl,
      wsUrl: d.graphqlWsUrl,
      label: 'embedded-devnet',
      networkId: d.networkId,
      embedded: true,
      credentials,
      nodeRpcUrl: nodeRpcUrlOf(ctx.config, network) ?? d.nodeRpcUrl,
    };
  }
  const httpUrl = indexerUrlOf(ctx.config, network)!;
  const wsUrl = indexerWsUrlOf(ctx.config, network)!;
  const networkId = ctx.config.networks[network].networkId || network;
  return {
    httpUrl,
    wsUrl,
    label: `indexer:${new URL(httpUrl).host}`,
    networkId,
    embedded: false,
    credentials: credentialsOf(ctx.config, network),
    nodeRpcUrl: nodeRpcUrlOf(ctx.config, network),
  };
}
