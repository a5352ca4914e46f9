/**
 * GET /metrics: the Prometheus exposition text (version 0.0.4). Who may read it:
 *  - `metrics.listen` empty (default): on the main port, clients inside `metrics.allow` (default
 *    loopback only) or presenting an API key whose id is in `metrics.keyIds`; anyone else gets
 *    403 FORBIDDEN. Behind a reverse proxy on the same host set `server.trustedProxies`, or the
 *    proxy's loopback address would let every client in (the shipped nginx.conf and haproxy.cfg
 *    set X-Forwarded-For and tell nightgate to trust them: a client through them is judged by its
 *    own address);
 *  - `metrics.listen` = host:port: only there, to anyone who reaches it (bind it to a private
 *    interface), and not on the main port.
 */
import { GatewayError } from '../../core/errors.js';
import type { RouteDef } from '../../core/http/route.js';
import { CidrList } from '../../core/config/cidr.js';
import { METRICS_CONTENT_TYPE, type Metrics } from './metrics.js';

interface MetricsAccess {
  /** CIDRs that may scrape without a key; undefined: anyone (the separate listener). */
  allow?: readonly string[];
  /** API key ids that may scrape from anywhere. */
  keyIds?: readonly string[];
}

export function metricsRoute(metrics: Metrics, access: MetricsAccess): RouteDef {
  const allow = access.allow ? new CidrList([...access.allow]) : undefined;
  const keyIds = new Set(access.keyIds ?? []);
  return {
    method: 'GET',
    url: '/metrics',
    auth: allow ? 'optional' : 'none',
    rateLimit: 'none',
    schema: {
      summary: 'Prometheus metrics (text format 0.0.4)',
      description:
        'HTTP requests and latency by route, cache decisions, proving queue and times, DUST pool per network and wallet, ' +
        'sponsorships by outcome, fees, follower lag, worker pool, event-loop delay. Served on the main port to `metrics.allow` ' +
        '(default loopback) and to keys listed in `metrics.keyIds`, or only on `metrics.listen` when that is set.',
      tags: ['meta'],
      response: {
        200: { description: 'Exposition text', contentType: METRICS_CONTENT_TYPE },
        401: { description: 'A key was sent and is not valid (UNAUTHORIZED)' },
        403: { description: 'The client is neither in metrics.allow nor holding a key listed in metrics.keyIds (FORBIDDEN)' },
      },
    },
    handler: async (ctx) => {
      if (allow && allow.match(ctx.ip) === undefined && !(ctx.key && keyIds.has(ctx.key.id))) {
        throw new GatewayError('FORBIDDEN', 'Metrics are served to metrics.allow networks and metrics.keyIds keys only');
      }
      return { body: await metrics.render(), contentType: METRICS_CONTENT_TYPE, headers: { 'Cache-Control': 'no-store' } };
    },
  };
}

/** `host:port` of `metrics.listen` (IPv6 in brackets), or undefined for empty. */
export function parseListen(text: string): { host: string; port: number } | undefined {
  if (text === '') return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`"${text}" is not host:port (e.g. 127.0.0.1:9464 or [::1]:9464)`);
  return { host: (m[1] ?? m[2])!, port };
}
