/**
 * One request/response pair for uWS (see server.ts for the contract it honours): the single
 * completion, the abort signal, the corked write after an await, and the handler's view of the
 * request (it is the RequestContext too, so a request costs one object).
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { GatewayError, errorBody, toGatewayError, type ErrorStyle } from '../errors.js';
import type { AuthenticatedKey } from '../pipeline/auth.js';
import { policyField, rateLimitField, resetSeconds, retryAfterSeconds, type RateLimitResult } from '../pipeline/rate-limit.js';
import { refusalBody } from './refusal.js';
import { statusLine } from './status.js';
import { JSON_TYPE, type Method, type RequestContext, type Reply, type RouteDef } from './route.js';
import type { HttpResponse } from './uws.js';

/** What an exchange needs from its server. */
export interface ExchangeHost {
  readonly log: Logger;
  readonly closing: boolean;
  /** The request went asynchronous: keep it for shutdown. */
  track(ex: Exchange): void;
  /** The response was written (or the client left): account and log it. */
  finished(ex: Exchange, status: number): void;
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** `RateLimit-Policy` and `X-RateLimit-Limit` values depend on the policy only: build them once. */
const policyStrings = new Map<string, { policy: string; limit: string }>();
function policyOf(name: string, limit: number, windowMs: number): { policy: string; limit: string } {
  const k = `${name}|${limit}|${windowMs}`;
  let v = policyStrings.get(k);
  if (!v) {
    v = { policy: policyField(name, limit, windowMs), limit: String(limit) };
    if (policyStrings.size < 1024) policyStrings.set(k, v);
  }
  return v;
}

/** One request/response pair, its single completion, and the handler's view of the request. */
export class Exchange implements RequestContext {
  aborted = false;
  done = false;
  /** True while inside uWS's synchronous handler call, where the response is already corked. */
  sync = true;
  controller: AbortController | undefined;
  extraHeaders: Record<string, string> | undefined;
  keyId: string | undefined;
  /** A HEAD request: headers as for GET, no body. */
  head = false;
  /**
   * A refusal (bad framing, 413, 431): the connection ends with this response, so neither the rest
   * of the body nor anything pipelined behind it is read (refusal.ts).
   */
  closeAfter = false;
  readonly t0: number;
  // RequestContext
  query = '';
  params: Record<string, string> = EMPTY_PARAMS;
  headers: Record<string, string> = {};
  receivedAt = 0;
  key: AuthenticatedKey | undefined;
  body: Buffer | undefined;
  private sp: URLSearchParams | undefined;
  // Rate limit outcome, written as headers with the response.
  rl: RateLimitResult | undefined;
  rlName = 'ip';
  // The reply being written (kept for the corked write after an await).
  private reply: Reply | undefined;
  private status = 200;

  constructor(
    readonly server: ExchangeHost,
    readonly res: HttpResponse,
    readonly route: RouteDef,
    readonly style: ErrorStyle,
    readonly method: Method,
    readonly path: string,
    readonly requestId: string,
    readonly ip: string,
    timed: boolean,
  ) {
    this.t0 = timed ? performance.now() : 0;
  }

  get log(): Logger {
    return this.server.log;
  }

  get searchParams(): URLSearchParams {
    return (this.sp ??= new URLSearchParams(this.query));
  }

  get signal(): AbortSignal {
    this.watchAbort();
    return this.controller!.signal;
  }

  /** Attach the abort handler (idempotent). Must run in the synchronous part of the handler. */
  watchAbort(): void {
    if (this.controller) return;
    this.controller = new AbortController();
    this.server.track(this);
    this.res.onAborted(() => {
      this.aborted = true;
      this.controller!.abort(new GatewayError('CLIENT_ABORTED'));
      if (!this.done) {
        this.done = true;
        this.server.finished(this, 499);
      }
    });
  }

  addHeaders(h: Readonly<Record<string, string>>): void {
    this.extraHeaders = this.extraHeaders ? Object.assign(this.extraHeaders, h) : { ...h };
  }

  send(reply: Reply, ifNoneMatch?: string): void {
    if (this.done || this.aborted) return;
    this.done = true;
    let status = reply.status ?? 200;
    const etag = reply.headers?.['ETag'];
    if (status === 200 && etag !== undefined && ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) status = 304;
    this.reply = reply;
    this.status = status;
    if (this.sync) this.write();
    else this.res.cork(() => this.write());
    this.server.finished(this, status);
  }

  private write(): void {
    const res = this.res;
    const reply = this.reply!;
    const status = this.status;
    // A refusal ends the connection with its answer (refusal.ts); with no body to carry it, a
    // refused HEAD is dropped instead, so nothing read behind it is served.
    if (this.closeAfter && (this.head || status === 304)) {
      res.close();
      return;
    }
    res.writeStatus(statusLine(status));
    if (status !== 304) res.writeHeader('Content-Type', reply.contentType ?? JSON_TYPE);
    res.writeHeader('X-Request-Id', this.requestId);
    const rl = this.rl;
    if (rl) {
      const p = policyOf(this.rlName, rl.limit, rl.windowMs);
      const now = this.receivedAt;
      res.writeHeader('X-RateLimit-Limit', p.limit);
      res.writeHeader('X-RateLimit-Remaining', String(rl.remaining));
      res.writeHeader('X-RateLimit-Reset', String(resetSeconds(rl.resetAt)));
      res.writeHeader('RateLimit-Policy', p.policy);
      res.writeHeader('RateLimit', rateLimitField(this.rlName, rl.remaining, rl.resetAt, now));
      if (!rl.allowed) res.writeHeader('Retry-After', String(retryAfterSeconds(rl.resetAt, now)));
    }
    const extra = this.extraHeaders;
    if (extra) for (const k in extra) res.writeHeader(k, extra[k]!);
    const h = reply.headers;
    if (h) for (const k in h) res.writeHeader(k, h[k]!);
    const close = this.server.closing || this.closeAfter;
    // This uWS build aborts the process on endWithoutBody(n > 0) and on endWithoutBody(undefined,
    // true): a HEAD answer writes its own Content-Length; with the connection closing (shutdown)
    // only endWithoutBody(0, true) is safe, which reports a zero length.
    if (status === 304 || this.head) {
      if (close) res.endWithoutBody(0, true);
      else {
        if (this.head && status !== 304) res.writeHeader('Content-Length', String(typeof reply.body === 'string' ? Buffer.byteLength(reply.body) : reply.body.byteLength));
        res.endWithoutBody();
      }
    } else {
      res.end(this.closeAfter ? refusalBody(reply.body) : reply.body, close);
    }
  }

  fail(err: unknown): void {
    const e = toGatewayError(err);
    if (e.code === 'INTERNAL') this.server.log.error({ err: (e.cause ?? err) as Error, reqId: this.requestId, path: this.path }, 'unhandled error');
    this.send({ status: e.status, body: errorBody(e, this.style), contentType: JSON_TYPE, ...(e.headers ? { headers: e.headers } : {}) });
  }
}

/** RFC 9110 §13.1.2: If-None-Match is a list of entity tags (weak comparison) or `*`. */
function etagMatches(header: string, etag: string): boolean {
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

/** Routes of rejected requests (404/405 catch-alls) still need a record for the access log. */
export const UNMATCHED: RouteDef = {
  method: 'GET', url: '(unmatched)', style: 'prover', auth: 'none', rateLimit: 'none',
  schema: { summary: '', tags: [], response: {} },
  handler: () => {
    throw new GatewayError('NOT_FOUND');
  },
};
