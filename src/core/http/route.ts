/**
 * A route is declared once, as data: method, URL, schema, handler. The same record feeds the
 * router (src/core/http/router.ts), the request pipeline (auth, rate limit) and the OpenAPI document.
 */
import type { TSchema, TObject } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { errorBody, type GatewayError } from '../errors.js';
import type { AuthenticatedKey } from '../guards/auth.js';
import type { Encoded } from './compression.js';

export type Method = 'GET' | 'POST';

export interface ResponseDoc {
  description: string;
  /** JSON schema of the body; omitted for non-JSON or empty bodies. */
  schema?: TSchema;
  /** Defaults to application/json. */
  contentType?: string;
  /** Response headers worth documenting (name → description). */
  headers?: Record<string, string>;
}

export interface RouteSchema {
  summary: string;
  description?: string;
  tags: string[];
  params?: TObject;
  querystring?: TObject;
  /** Request headers worth documenting (name → description); auth headers are implied by `auth`. */
  headers?: Record<string, string>;
  body?: { contentType: string; description: string; schema?: TSchema };
  response: Record<number, ResponseDoc>;
}

export interface Reply {
  status?: number;
  /** Pre-serialized body: routes render once and hand bytes to the socket. */
  body: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * `headers` already rendered by `headerLines` (head.ts), for replies served many times: the
   * owner keeps it in step with `headers`, which stays the record the exchange reads (ETag).
   */
  headLines?: string;
  /**
   * A body served many times, with its gzip and brotli forms made once (compression.ts): the
   * exchange picks one per request and writes ETag (tagged per coding), Vary and Content-Encoding
   * itself, so `headLines` must leave ETag out; `body` is its identity form.
   */
  encoded?: Encoded;
  /** The stable code of an error answer a route builds itself (access-log level, /metrics), as `GatewayError` carries it. */
  code?: string;
  /** Rendered ahead and re-rendered in place, each re-render reported to `liveReplies.changed`. */
  readonly live?: boolean;
}

export interface RequestContext {
  readonly route: RouteDef;
  readonly method: Method;
  readonly path: string;
  /** Raw query string, without '?'. */
  readonly query: string;
  /** Parsed lazily from `query`. */
  readonly searchParams: URLSearchParams;
  readonly params: Readonly<Record<string, string>>;
  /** Lower-cased request headers: those the route declares in `readHeaders`, plus the pipeline's. */
  readonly headers: Readonly<Record<string, string>>;
  readonly ip: string;
  readonly requestId: string;
  /** Wall-clock ms at arrival, from the app's injected clock. */
  readonly receivedAt: number;
  /** Aborted when the client goes away or the server gives up on the request. */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** The authenticated key, on routes with `auth: 'key'`. */
  key: AuthenticatedKey | undefined;
  /** Request body, on routes that declare one. */
  body: Buffer | undefined;
  /**
   * Keep the body charged to the body budget until `work` settles: work that took the body (a
   * worker task it moved to) may run on after the request ended, for a client that left or for
   * others sharing its result. The charge is given back when the request has ended and every such
   * work has settled.
   */
  holdBody?(work: Promise<unknown>): void;
}

export interface RouteDef {
  method: Method;
  /** uWS pattern: `/api/v1/:network/summary`; OpenAPI gets `{network}`. */
  url: string;
  /** `optional`: anonymous is let in; a presented key must be valid (401 otherwise), and then `ctx.key` is set. */
  auth: 'none' | 'key' | 'optional';
  /** `key`: per API key; `ip`: per client IP (public routes); `none`. */
  rateLimit: 'key' | 'ip' | 'none';
  /**
   * `cost`: bytes of memory one byte of the body costs while it is in flight, charged to the body
   * budget (guards/body-budget.ts); default 1, the buffer it is read into.
   */
  body?: { limit: number; contentTypes: readonly string[]; cost?: number };
  /**
   * Asked after auth and before the body is read: a refusal (e.g. the queue the handler would wait
   * in is full) is answered at once, so a body that would only be turned away is never received.
   * Sees the request's headers, parameters and query; not its body.
   */
  admit?(ctx: RequestContext): GatewayError | undefined;
  /** Extra request headers the handler reads (lower-case); copied before any await. */
  readHeaders?: readonly string[];
  schema: RouteSchema;
  /** Sync or async; an async handler gets `ctx.signal` aborted when the client leaves. */
  handler(ctx: RequestContext): Reply | Promise<Reply>;
  /** Hidden from the OpenAPI document (e.g. proof-server compatibility aliases documented on /docs). */
  hidden?: boolean;
}

/**
 * A reply rendered ahead of requests and re-rendered in place (src/features/stats/rendered-reply.ts) says
 * so with `live: true` and reports every re-render to `liveReplies.changed`: with `server.threads` above 1 the main
 * thread copies such replies to the HTTP worker threads and keeps their copies current
 * (src/core/http/threads/), so that those threads answer them without asking the main thread.
 */
export const liveReplies = {
  listeners: new Set<(reply: Reply) => void>(),
  changed(reply: Reply): void {
    for (const f of this.listeners) f(reply);
  },
};

export const JSON_TYPE = 'application/json; charset=utf-8';
export const OCTET = 'application/octet-stream';

export function json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return headers ? { status, body: JSON.stringify(body), contentType: JSON_TYPE, headers } : { status, body: JSON.stringify(body), contentType: JSON_TYPE };
}

/** The answer to a catalogued error: its status and headers, the one error body (errors.ts) and its code. */
export function errorReply(err: GatewayError): Reply {
  const reply: Reply = { status: err.status, body: errorBody(err), contentType: JSON_TYPE, code: err.code };
  if (err.headers) reply.headers = err.headers;
  return reply;
}
