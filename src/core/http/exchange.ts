/**
 * One request/response pair for uWS (see pipeline.ts for the contract it honours): the single
 * completion, the abort signal, the corked write after an await, and the handler's view of the
 * request (it is the RequestContext too, so a request costs one object).
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { GatewayError, toGatewayError } from '../errors.js';
import type { AuthenticatedKey } from '../guards/auth.js';
import { policyField, rateLimitField, resetSeconds, retryAfterSeconds, type RateLimitResult } from '../guards/rate-limit.js';
import { fieldLine, headerLines } from './head.js';
import { negotiate, type Coding } from './compression.js';
import { refusalBody } from './refusal.js';
import { statusLine } from './status.js';
import { JSON_TYPE, errorReply, type Method, type RequestContext, type Reply, type RouteDef } from './route.js';
import type { HttpResponse } from './uws.js';

/** What an exchange needs from its server. */
export interface ExchangeHost {
  readonly log: Logger;
  readonly closing: boolean;
  /** The request went asynchronous: keep it for shutdown. */
  track(ex: Exchange): void;
  /** The response was written (or the client left): account and log it. */
  finished(ex: Exchange, status: number): void;
  /** The request has ended and no work holds its body: give back its charge to the body budget. */
  bodyReleased(ex: Exchange): void;
}

const JSON_TYPE_LINE = fieldLine('Content-Type', JSON_TYPE);
const VARY_LINE = '\r\nVary: Accept-Encoding';
const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
/** The headers of a request that sent none the route reads (most GETs): shared, never written. */
export const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The `X-RateLimit-Limit` and `RateLimit-Policy` lines depend on the policy only: rendered once
 * per policy, and the last one used is checked first (one policy serves most traffic).
 */
interface PolicyLines {
  name: string;
  limit: number;
  windowMs: number;
  lines: string;
}
const policies = new Map<string, PolicyLines>();
let lastPolicy: PolicyLines = { name: '', limit: -1, windowMs: -1, lines: '' };
function policyLines(name: string, limit: number, windowMs: number): string {
  const p = lastPolicy;
  if (p.limit === limit && p.windowMs === windowMs && p.name === name) return p.lines;
  const k = `${name}|${limit}|${windowMs}`;
  let v = policies.get(k);
  if (!v) {
    v = { name, limit, windowMs, lines: `\r\nX-RateLimit-Limit: ${limit}\r\nRateLimit-Policy: ${policyField(name, limit, windowMs)}` };
    if (policies.size < 1024) policies.set(k, v);
  }
  lastPolicy = v;
  return v.lines;
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
  /** The stable code of an error answer (access log level, /metrics), else undefined. */
  code: string | undefined;
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
  headers: Record<string, string> = NO_HEADERS;
  receivedAt = 0;
  key: AuthenticatedKey | undefined;
  body: Buffer | undefined;
  private sp: URLSearchParams | undefined;
  // Rate limit outcome, written as headers with the response.
  rl: RateLimitResult | undefined;
  rlName = 'ip';
  /** CORS head lines of a public route's answer (cors.ts), or ''. */
  cors = '';
  /** The request's Accept-Encoding (GET routes), for replies with compressed forms (compression.ts). */
  acceptEncoding: string | undefined;
  /** Who the body's bytes are counted for in the body budget (guards/body-budget.ts). */
  bodyClient = '';
  /** What the body was charged in the budget, given back when the request ends and no work holds the body. */
  bodyHeld = 0;
  /** Work holding the body that has not settled yet (`holdBody`). */
  bodyWork = 0;
  /** Told of the reply before it is written (a request forwarded from an HTTP worker thread: threads/). */
  onReply: ((reply: Reply) => void) | undefined;
  /** The coding chosen for a reply with compressed forms. */
  private coding: Coding = 'identity';
  // The reply being written (kept for the corked write after an await).
  private reply: Reply | undefined;
  private status = 200;

  constructor(
    readonly server: ExchangeHost,
    readonly res: HttpResponse,
    readonly route: RouteDef,
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

  holdBody(work: Promise<unknown>): void {
    if (this.bodyHeld === 0) return;
    this.bodyWork++;
    const settled = (): void => {
      if (--this.bodyWork === 0 && this.done) this.server.bodyReleased(this);
    };
    work.then(settled, settled);
  }

  addHeaders(h: Readonly<Record<string, string>>): void {
    this.extraHeaders = this.extraHeaders ? Object.assign(this.extraHeaders, h) : { ...h };
  }

  send(reply: Reply, ifNoneMatch?: string): void {
    if (this.done || this.aborted) return;
    this.done = true;
    if (reply.code !== undefined) this.code = reply.code;
    if (this.onReply !== undefined) this.onReply(reply);
    let status = reply.status ?? 200;
    let etag = reply.headers?.['ETag'];
    const encoded = reply.encoded;
    if (encoded !== undefined && status === 200) {
      // The representation this client gets, and its own tag (compression.ts).
      this.coding = encoded.choose(negotiate(this.acceptEncoding));
      etag = encoded.etagFor(this.coding);
    }
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
    // The status line and every header in one native call (head.ts).
    let head = statusLine(status);
    if (status !== 304 && status !== 204)
      head += reply.contentType === undefined || reply.contentType === JSON_TYPE ? JSON_TYPE_LINE : fieldLine('Content-Type', reply.contentType);
    head += '\r\nX-Request-Id: ' + this.requestId;
    const rl = this.rl;
    if (rl) {
      const now = this.receivedAt;
      head +=
        policyLines(this.rlName, rl.limit, rl.windowMs) +
        '\r\nX-RateLimit-Remaining: ' +
        rl.remaining +
        '\r\nX-RateLimit-Reset: ' +
        resetSeconds(rl.resetAt) +
        '\r\nRateLimit: ' +
        rateLimitField(this.rlName, rl.remaining, rl.resetAt, now);
      if (!rl.allowed) head += '\r\nRetry-After: ' + retryAfterSeconds(rl.resetAt, now);
    }
    if (this.cors !== '') head += this.cors;
    if (this.extraHeaders) head += headerLines(this.extraHeaders);
    if (reply.headLines !== undefined) head += reply.headLines;
    else if (reply.headers) head += headerLines(reply.headers);
    let body = reply.body;
    const encoded = reply.encoded;
    if (encoded !== undefined && (status === 200 || status === 304)) {
      // Its head lines leave these to the exchange: they depend on the coding chosen in send().
      head += '\r\nETag: ' + encoded.etagFor(this.coding);
      if (encoded.compressible) head += VARY_LINE;
      if (this.coding !== 'identity') head += '\r\nContent-Encoding: ' + this.coding;
      body = encoded.bodyFor(this.coding);
    }
    const close = this.server.closing || this.closeAfter;
    // RFC 9110 §15.3.5, §15.4.5: 204 and 304 have no content.
    const bodiless = status === 304 || status === 204 || this.head;
    // A HEAD answer states the GET body's length itself (see below), unless the connection closes.
    if (this.head && !bodilessStatus(status) && !close) head += '\r\nContent-Length: ' + (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    res.writeStatus(head);
    // This uWS build aborts the process on endWithoutBody(n > 0) and on endWithoutBody(undefined,
    // true): a HEAD answer writes its own Content-Length; with the connection closing (shutdown)
    // only endWithoutBody(0, true) is safe, which reports a zero length.
    if (bodiless) {
      if (close) res.endWithoutBody(0, true);
      else res.endWithoutBody();
    } else {
      res.end(this.closeAfter ? refusalBody(body) : body, close);
    }
  }

  fail(err: unknown): void {
    const e = toGatewayError(err);
    this.code = e.code;
    if (e.code === 'INTERNAL') this.server.log.error({ err: (e.cause ?? err) as Error, reqId: this.requestId, path: this.path }, 'unhandled error');
    this.send(errorReply(e));
  }
}

function bodilessStatus(status: number): boolean {
  return status === 304 || status === 204;
}

/** RFC 9110 §13.1.2: If-None-Match is a list of entity tags (weak comparison) or `*`. */
function etagMatches(header: string, etag: string): boolean {
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}
