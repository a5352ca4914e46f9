/**
 * Where a network's chain data comes from: its embedded devnet, or a Midnight indexer
 * (configured URL or the public host). Statistics and DUST sync both read from here.
 */
import type { AppContext } from '../app-context.js';
import { indexerUrlOf, isEmbedded, type NetworkName } from '../../core/config.js';

export interface NetworkSource {
  httpUrl: string;
  wsUrl: string;
  /** `embedded-devnet` or `indexer:<host>`. */
  label: string;
  /** The ledger's network id, which addresses are encoded with. */
  networkId: string;
  embedded: boolean;
}

/** Where a network's data comes from; undefined for an embedded network whose devnet is not running. */
export function sourceOf(ctx: AppContext, network: NetworkName): NetworkSource | undefined {
  if (isEmbedded(ctx.config, network)) {
    const d = ctx.devnet.get(network);
    return d && { httpUrl: d.graphqlUrl, wsUrl: d.graphqlWsUrl, label: 'embedded-devnet', networkId: d.networkId, embedded: true };
  }
  const httpUrl = indexerUrlOf(ctx.config, network)!;
  const wsUrl = ctx.config.networks[network].indexerWs || indexerWsUrl(httpUrl);
  const networkId = ctx.config.networks[network].networkId || network;
  return { httpUrl, wsUrl, label: `indexer:${new URL(httpUrl).host}`, networkId, embedded: false };
}

/**
 * config.ts: an empty indexerWs means the indexer URL's `…/graphql/ws` (LEDGER.md, "Indexer").
 * The `/ws` goes at the end of the path, before any query string (`…/graphql?apikey=X` →
 * `…/graphql/ws?apikey=X`), and the scheme becomes ws/wss.
 */
export function indexerWsUrl(httpUrl: string): string {
  const u = new URL(httpUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/$/, '')}/ws`;
  return u.toString();
}
