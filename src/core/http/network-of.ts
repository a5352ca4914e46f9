/** Which network a keyed request is for: proving and sponsorship both name it the same way. */
import { NETWORKS, type NetworkName } from '../config/index.js';
import { GatewayError } from '../errors.js';
import type { RequestContext } from './route.js';

/** Routes that call `networkOf` list it in `readHeaders`. */
export const NETWORK_HEADER = 'x-midnight-network';

/** The network a request names (`X-Midnight-Network`, else `?network=`), else `fallback`; unknown → 400 INVALID_NETWORK. */
export function networkOf(ctx: RequestContext, fallback: NetworkName): NetworkName {
  const raw = ctx.headers[NETWORK_HEADER] ?? ctx.searchParams.get('network') ?? '';
  if (raw === '') return fallback;
  const n = raw.trim().toLowerCase();
  if (!(NETWORKS as readonly string[]).includes(n)) {
    throw new GatewayError('INVALID_NETWORK', `Unknown network "${raw.slice(0, 40)}": X-Midnight-Network (or ?network=) must be one of ${NETWORKS.join(', ')}`);
  }
  return n as NetworkName;
}
