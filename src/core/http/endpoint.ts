/**
 * What the pipeline runs for one registered path and method (fastify's route context). A route
 * is one; so is each answer that runs no route of its own — the 404 catch-all, a known path's
 * 405, a public route's CORS preflight — made here as an endpoint whose handler gives that
 * answer, so that it passes the same steps as a route (pipeline.ts): the door, the per-IP limit,
 * the access log and the request counts. Unknown paths are no cheaper way to flood the server or
 * its log than real ones.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { clip } from '../log/log.js';
import type { AuthThrottle } from '../guards/auth-throttle.js';
import type { KeyStore } from '../guards/auth.js';
import type { BodyBudget } from '../guards/body-budget.js';
import type { ClientAddress } from '../guards/client-address.js';
import type { CorsPolicy } from '../guards/cors.js';
import type { RateLimitStore } from '../guards/rate-limit.js';
import type { ExchangeHost } from './exchange.js';
import { methodNotAllowed, notFound } from './refusals.js';
import type { RequestCounter } from './request-counter.js';
import { errorReply, type Method, type RouteDef } from './route.js';

interface RateLimitOptions {
  enabled: boolean;
  limit: number;
  windowMs: number;
  publicEnabled: boolean;
  publicLimit: number;
  store: RateLimitStore;
}

/** The settings the pipeline reads (the server's options: server.ts). */
export interface PipelineOptions {
  clock: Clock;
  keys: KeyStore;
  rateLimit: RateLimitOptions;
  /** Failed authentications per client IP (auth-throttle.ts); undefined = not limited. */
  authFailures: AuthThrottle | undefined;
  /** RFC 6585 §5: refuse oversized header sections with 431. */
  maxHeaderBytes: number;
  maxHeaders: number;
  /** Which requests get an access-log line; `aggregate`: keyed and errors, the public rest counted (access-log.ts). */
  requestLog: 'all' | 'aggregate' | 'errors' | 'none';
  /** Request-body bytes in flight, for the whole server and per client; undefined: not bounded. */
  bodyBudget?: BodyBudget | undefined;
  /** Told of every answered request (the app plugs in the metrics' counter); undefined: not counted. */
  counter?: RequestCounter | undefined;
}

/** The server an endpoint belongs to, as the pipeline sees it. */
export interface PipelineHost extends ExchangeHost {
  readonly log: Logger;
  readonly opts: PipelineOptions;
  readonly cors: CorsPolicy;
  readonly clientAddress: ClientAddress;
  /** A request entered the pipeline (counted in flight until `finished`). */
  opened(): void;
}

export interface Endpoint {
  readonly server: PipelineHost;
  /** What runs: its auth, rate limit, body, the headers it reads, its admission and handler. */
  readonly def: RouteDef;
  /** What the request is counted and logged as, and the handler's `ctx.route`: `def` for a route. */
  readonly route: RouteDef;
  /** The exchange's method: the route's (HEAD is a GET without body), or undefined for the request's own. */
  readonly method: Method | undefined;
  /**
   * What CORS takes from the request head: `lines` for a public route's answers (cors.ts), `origin`
   * for the preflight, which answers for that origin; 404/405 and keyed routes carry none.
   */
  readonly cors: 'lines' | 'origin' | 'none';
  /** The path parameters' names, in order. */
  readonly params: readonly string[];
}

const NO_SCHEMA: RouteDef['schema'] = { summary: '', tags: [], response: {} };

/**
 * The 404 catch-all, and the record 405s are counted and logged under. Like every answer that
 * runs no route, it spends the client's per-IP quota.
 */
const UNMATCHED: RouteDef = {
  method: 'GET',
  url: '(unmatched)',
  auth: 'none',
  rateLimit: 'ip',
  schema: NO_SCHEMA,
  handler: (ctx) => errorReply(notFound(ctx.method, clip(ctx.path, 256)!)),
};

export function routeEndpoint(server: PipelineHost, route: RouteDef): Endpoint {
  return { server, def: route, route, method: route.method, cors: route.auth === 'none' ? 'lines' : 'none', params: paramNamesCached(route) };
}

export function notFoundEndpoint(server: PipelineHost): Endpoint {
  return { server, def: UNMATCHED, route: UNMATCHED, method: undefined, cors: 'none', params: [] };
}

/** A known path asked with another method; `allow` lists the methods it takes. */
export function methodNotAllowedEndpoint(server: PipelineHost, allow: string): Endpoint {
  const def: RouteDef = { ...UNMATCHED, handler: (ctx) => errorReply(methodNotAllowed(ctx.method, allow)) };
  return { server, def, route: UNMATCHED, method: undefined, cors: 'none', params: [] };
}

/** An OPTIONS request to a public route: the CORS preflight (Fetch §3.2.2), 204; counted as that route. */
export function preflightEndpoint(server: PipelineHost, route: RouteDef): Endpoint {
  const def: RouteDef = {
    method: route.method,
    url: route.url,
    auth: 'none',
    rateLimit: 'ip',
    schema: NO_SCHEMA,
    handler: (ctx) => ({ status: 204, body: '', headers: server.cors.preflight(ctx.headers['origin']) }),
  };
  return { server, def, route, method: undefined, cors: 'origin', params: [] };
}

/** The parameter names of a uWS pattern (`/api/v1/:network/summary` → `network`), in order. */
export function paramNames(url: string): string[] {
  return url
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
}

const namesCache = new WeakMap<RouteDef, string[]>();
/** A route's path parameter names, in order (computed once per route). */
export function paramNamesCached(route: RouteDef): string[] {
  let n = namesCache.get(route);
  if (!n) {
    n = paramNames(route.url);
    namesCache.set(route, n);
  }
  return n;
}
