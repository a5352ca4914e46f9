/**
 * `metrics.listen`: /metrics alone on its own address and port, through the same HTTP front as
 * the main server (uWS, header limits, framing checks), without keys, rate limits or access log.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { HttpServer } from '../../core/http/server.js';
import type { Uws } from '../../core/http/uws.js';
import type { KeyStore } from '../../core/guards/auth.js';
import { MemoryRateLimitStore } from '../../core/guards/rate-limit.js';
import type { Metrics } from './metrics.js';
import { metricsRoute, parseListen } from './route.js';

export interface MetricsListener {
  /** Resolves to the bound port. */
  listen(): Promise<number>;
  close(): void;
}

export function metricsListener(opts: {
  uws: Uws;
  logger: Logger;
  clock: Clock;
  keys: KeyStore;
  metrics: Metrics;
  listen: string;
  maxHeaderBytes: number;
  maxHeaders: number;
}): MetricsListener {
  const at = parseListen(opts.listen)!;
  const server = new HttpServer({
    uws: opts.uws,
    logger: opts.logger,
    clock: opts.clock,
    keys: opts.keys,
    trustedProxies: [],
    authFailures: undefined,
    maxHeaderBytes: opts.maxHeaderBytes,
    maxHeaders: opts.maxHeaders,
    requestLog: 'none',
    corsOrigins: [],
    wsConnectionsPerIp: 1,
    rateLimit: { enabled: false, limit: 1, windowMs: 1_000, publicEnabled: false, publicLimit: 1, store: new MemoryRateLimitStore('fixed', 16) },
  });
  server.add(metricsRoute(opts.metrics, {}));
  return {
    listen: async () => {
      const port = await server.listen(at.host, at.port);
      opts.logger.info({ host: at.host, port }, `metrics on http://${at.host.includes(':') ? `[${at.host}]` : at.host}:${port}/metrics`);
      return port;
    },
    close: () => server.beginShutdown(),
  };
}
