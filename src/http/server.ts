/**
 * The uWS front: routing, the request pipeline (auth → rate limit → body → handler) and the
 * response lifecycle every route goes through. This folder is the only one that touches uWS.
 *
 * The uWS response contract (uWebSockets.js docs/index.d.ts, examples/):
 *  - an HttpRequest is valid only in the synchronous part of the handler: copy what we need first;
 *  - a response that is not finished synchronously must have `onAborted` attached before the
 *    handler returns, and must never be touched after the abort;
 *  - writes after an `await` go inside `res.cork` so status, headers and body leave in one syscall;
 *  - a response is finished exactly once.
 */
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { GatewayError, errorBody, toGatewayError, type ErrorStyle } from '../errors.js';
import type { Clock } from '../clock.js';
import type { KeyStore } from '../pipeline/auth.js';
import { presentedKey } from '../pipeline/auth.js';
import { rateLimitHeaders, type RateLimitResult, type RateLimitStore } from '../pipeline/rate-limit.js';
import { readBody, mediaType } from './body.js';
import { statusLine } from './status.js';
import type { RequestContext, Reply, RouteDef } from './route.js';
import { JSON_TYPE } from './route.js';
import type { HttpRequest, HttpResponse, TemplatedApp, Uws, us_listen_socket, WebSocket } from './uws.js';

export interface RateLimitOptions {
  enabled: boolean;
  limit: number;
  windowMs: number;
  publicEnabled: boolean;
  publicLimit: number;
  store: RateLimitStore;
}

export interface HttpServerOptions {
  uws: Uws;
  logger: Logger;
  clock: Clock;
  keys: KeyStore;
  rateLimit: RateLimitOptions;
  trustProxy: boolean;
  /** RFC 6585 §5: refuse oversized header sections with 431. */
  maxHeaderBytes: number;
  maxHeaders: number;
  /** Which requests get an access-log line. */
  requestLog: 'all' | 'errors' | 'none';
}

export interface TopicRoute {
  url: string;
  /** The pub/sub topic for these path parameters, or undefined for 404. */
  topicFor(params: Record<string, string>): string | undefined;
  /** Message sent to a new subscriber (the current state), if any. */
  welcome?(topic: string): string | undefined;
}

const BASE_HEADERS = ['x-request-id'] as const;
const KEY_HEADERS = ['x-api-key', 'authorization', 'x-client-id', 'x-client-name'] as const;
const BODY_HEADERS = ['content-type', 'content-length'] as const;
const GET_HEADERS = ['if-none-match'] as const;

let requestSeq = 0;
const bootId = randomBytes(4).toString('hex');

/** One request/response pair and its single completion. */
class Exchange {
  aborted = false;
  done = false;
  /** True while inside uWS's synchronous handler call, where the response is already corked. */
  sync = true;
  controller: AbortController | undefined;
  extraHeaders: Record<string, string> | undefined;
  keyId: string | undefined;
  /** Close the connection after this response (e.g. after a 413, so the rest of the body is never read). */
  closeAfter = false;
  readonly t0 = performance.now();

  constructor(
    readonly server: HttpServer,
    readonly res: HttpResponse,
    readonly route: RouteDef | undefined,
    readonly style: ErrorStyle,
    readonly method: string,
    readonly path: string,
    readonly requestId: string,
    readonly ip: string,
    readonly clientId: string | undefined,
    readonly clientName: string | undefined,
  ) {}

  /** Attach the abort handler (idempotent). Must run in the synchronous part of the handler. */
  watchAbort(): void {
    if (this.controller) return;
    this.controller = new AbortController();
    this.res.onAborted(() => {
      this.aborted = true;
      this.controller!.abort(new GatewayError('CLIENT_ABORTED'));
      if (!this.done) {
        this.done = true;
        this.server.finished(this, 499);
      }
    });
  }

  addHeaders(h: Record<string, string>): void {
    this.extraHeaders = this.extraHeaders ? Object.assign(this.extraHeaders, h) : h;
  }

  send(reply: Reply, ifNoneMatch?: string): void {
    if (this.done || this.aborted) return;
    this.done = true;
    let status = reply.status ?? 200;
    const etag = reply.headers?.['ETag'];
    if (status === 200 && etag !== undefined && ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) status = 304;
    const closing = this.server.closing || this.closeAfter;
    const write = (): void => {
      const res = this.res;
      res.writeStatus(statusLine(status));
      if (status !== 304) res.writeHeader('Content-Type', reply.contentType ?? JSON_TYPE);
      res.writeHeader('X-Request-Id', this.requestId);
      if (this.extraHeaders) for (const k in this.extraHeaders) res.writeHeader(k, this.extraHeaders[k]!);
      if (reply.headers) for (const k in reply.headers) res.writeHeader(k, reply.headers[k]!);
      if (status === 304) res.endWithoutBody(0, closing);
      else res.end(reply.body, closing);
    };
    if (this.sync) write();
    else this.res.cork(write);
    this.server.finished(this, status);
  }

  fail(err: unknown): void {
    const e = toGatewayError(err);
    if (e.code === 'INTERNAL') this.server.log.error({ err: (e.cause ?? err) as Error, reqId: this.requestId, path: this.path }, 'unhandled error');
    this.send({ status: e.status, body: errorBody(e, this.style), contentType: JSON_TYPE, ...(e.headers ? { headers: { ...e.headers } } : {}) });
  }
}

/** RFC 9110 §13.1.2: If-None-Match is a list of entity tags (weak comparison) or `*`. */
function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

export class HttpServer {
  readonly app: TemplatedApp;
  readonly log: Logger;
  closing = false;
  inFlight = 0;
  private listenSocket: us_listen_socket | undefined;
  private readonly byUrl = new Map<string, Set<string>>();
  private drainWaiters: Array<() => void> = [];
  private readonly wsSockets = new Set<WebSocket<unknown>>();

  constructor(private readonly opts: HttpServerOptions) {
    this.app = opts.uws.App();
    this.log = opts.logger;
  }

  /** Register a route record. Routes must all be added before `listen`. */
  add(route: RouteDef): void {
    const handler = (res: HttpResponse, req: HttpRequest): void => this.handle(route, res, req);
    if (route.method === 'GET') this.app.get(route.url, handler);
    else this.app.post(route.url, handler);
    const methods = this.byUrl.get(route.url) ?? new Set<string>();
    methods.add(route.method);
    this.byUrl.set(route.url, methods);
  }

  /** A WebSocket endpoint whose clients subscribe to one pub/sub topic (e.g. a network's summary). */
  addTopic(t: TopicRoute): void {
    const names = paramNames(t.url);
    this.app.ws<{ topic: string }>(t.url, {
      maxPayloadLength: 1024,
      idleTimeout: 120,
      maxBackpressure: 1 << 20,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => {
        const params: Record<string, string> = {};
        names.forEach((n, i) => (params[n] = req.getParameter(i) ?? ''));
        const topic = t.topicFor(params);
        if (this.closing || topic === undefined) {
          const err = new GatewayError(this.closing ? 'SHUTTING_DOWN' : 'NOT_FOUND');
          res.writeStatus(statusLine(err.status)).writeHeader('Content-Type', JSON_TYPE).end(errorBody(err, 'stats'));
          return;
        }
        res.upgrade({ topic }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
      },
      open: (ws) => {
        this.wsSockets.add(ws as WebSocket<unknown>);
        const { topic } = ws.getUserData();
        ws.subscribe(topic);
        const hello = t.welcome?.(topic);
        if (hello !== undefined) ws.send(hello, false);
      },
      close: (ws) => {
        this.wsSockets.delete(ws as WebSocket<unknown>);
      },
    });
  }

  publish(topic: string, message: string): void {
    this.app.publish(topic, message, false);
  }

  /** Register 405s for known paths and the JSON 404 catch-all; then listen. */
  listen(host: string, port: number): Promise<number> {
    for (const [url, methods] of this.byUrl) {
      const allow = [...methods].sort().join(', ');
      const style = url.startsWith('/api') ? 'stats' : 'prover';
      this.app.any(url, (res, req) => this.reject(res, req, new GatewayError('METHOD_NOT_ALLOWED', `${req.getMethod().toUpperCase()} is not allowed here; use ${allow}`, { headers: { Allow: allow } }), style));
    }
    this.app.any('/*', (res, req) => {
      const url = req.getUrl();
      this.reject(res, req, new GatewayError('NOT_FOUND', `No route for ${req.getMethod().toUpperCase()} ${url}`), url.startsWith('/api') ? 'stats' : 'prover');
    });
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (address in use or not permitted)`));
        this.listenSocket = socket;
        resolve(this.opts.uws.us_socket_local_port(socket as never));
      });
    });
  }

  /** Stop accepting connections; requests on kept-alive connections now get 503 and are closed. */
  beginShutdown(): void {
    if (this.closing) return;
    this.closing = true;
    if (this.listenSocket) {
      this.opts.uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = undefined;
    }
    for (const ws of this.wsSockets) ws.end(1001, 'server shutting down');
  }

  /** Resolves when no request is in flight (or at once). */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Abort every in-flight request's signal (the shutdown deadline passed). */
  private readonly live = new Set<Exchange>();
  abortAll(reason: GatewayError): void {
    for (const ex of this.live) {
      ex.controller?.abort(reason);
      if (!ex.done && !ex.aborted) ex.fail(reason);
    }
  }

  finished(ex: Exchange, status: number): void {
    this.inFlight--;
    this.live.delete(ex);
    const mode = this.opts.requestLog;
    if (mode === 'all' || (mode === 'errors' && status >= 400)) {
      this.log.info(
        {
          reqId: ex.requestId,
          method: ex.method,
          route: ex.route?.url,
          path: ex.path,
          status,
          ms: Math.round((performance.now() - ex.t0) * 100) / 100,
          ip: ex.ip,
          keyId: ex.keyId,
          clientId: ex.clientId,
          clientName: ex.clientName,
        },
        'request',
      );
    }
    if (this.inFlight === 0 && this.drainWaiters.length > 0) {
      const w = this.drainWaiters;
      this.drainWaiters = [];
      for (const f of w) f();
    }
  }

  private clientIp(res: HttpResponse, req: HttpRequest): string {
    if (this.opts.trustProxy) {
      const xff = req.getHeader('x-forwarded-for');
      if (xff) return xff.split(',')[0]!.trim();
    }
    return Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
  }

  private newExchange(res: HttpResponse, req: HttpRequest, route: RouteDef | undefined, style: ErrorStyle): Exchange {
    const given = req.getHeader('x-request-id');
    const requestId = given && given.length <= 128 && /^[\x21-\x7e]+$/.test(given) ? given : `${bootId}-${(++requestSeq).toString(36)}`;
    const ex = new Exchange(
      this, res, route, style, req.getMethod().toUpperCase(), req.getUrl(), requestId, this.clientIp(res, req),
      req.getHeader('x-client-id') || undefined, req.getHeader('x-client-name') || undefined,
    );
    this.inFlight++;
    this.live.add(ex);
    return ex;
  }

  private reject(res: HttpResponse, req: HttpRequest, err: GatewayError, style: ErrorStyle): void {
    const ex = this.newExchange(res, req, undefined, style);
    ex.fail(err);
    ex.sync = false;
  }

  private handle(route: RouteDef, res: HttpResponse, req: HttpRequest): void {
    const ex = this.newExchange(res, req, route, route.style);
    try {
      this.pipeline(ex, route, res, req);
    } catch (err) {
      ex.fail(err);
    }
    ex.sync = false;
  }

  private pipeline(ex: Exchange, route: RouteDef, res: HttpResponse, req: HttpRequest): void {
    if (this.closing) return ex.fail(new GatewayError('SHUTTING_DOWN', undefined, { headers: { 'Retry-After': '5' } }));
    // uWS itself accepts very large header sections; bound them here (RFC 6585 §5).
    let headerBytes = 0;
    let headerCount = 0;
    req.forEach((k, v) => {
      headerBytes += k.length + v.length + 4;
      headerCount++;
    });
    if (headerBytes > this.opts.maxHeaderBytes || headerCount > this.opts.maxHeaders) {
      ex.closeAfter = true;
      return ex.fail(new GatewayError('HEADERS_TOO_LARGE', `Request headers exceed ${this.opts.maxHeaderBytes} bytes or ${this.opts.maxHeaders} fields`));
    }
    // Copy everything the handler may need while the HttpRequest is still valid.
    const headers: Record<string, string> = {};
    const copy = (names: readonly string[]): void => {
      for (const n of names) {
        const v = req.getHeader(n);
        if (v !== '') headers[n] = v;
      }
    };
    copy(BASE_HEADERS);
    if (route.auth === 'key') copy(KEY_HEADERS);
    if (route.body) copy(BODY_HEADERS);
    if (route.method === 'GET') copy(GET_HEADERS);
    if (route.readHeaders) copy(route.readHeaders);
    const params: Record<string, string> = {};
    const names = paramNamesCached(route);
    for (let i = 0; i < names.length; i++) params[names[i]!] = req.getParameter(i) ?? '';
    const query = req.getQuery() ?? '';
    const now = this.opts.clock.now();

    // Auth.
    let key = undefined;
    if (route.auth === 'key') {
      key = this.opts.keys.authenticate(presentedKey(headers['x-api-key'], headers['authorization'])) ?? this.opts.keys.trustedKey(ex.ip);
      if (!key) return ex.fail(new GatewayError('UNAUTHORIZED', undefined, { headers: { 'WWW-Authenticate': 'Bearer realm="nightgate"' } }));
      ex.keyId = key.id;
    }

    // Rate limit.
    const rl = this.opts.rateLimit;
    let limited: RateLimitResult | Promise<RateLimitResult> | undefined;
    if (route.rateLimit === 'key' && key && rl.enabled) {
      const pol = key.rateLimit ?? rl;
      limited = rl.store.hit(`k:${key.id}`, pol.limit, pol.windowMs, now);
    } else if (route.rateLimit === 'ip' && rl.publicEnabled) {
      limited = rl.store.hit(`ip:${ex.ip}`, rl.publicLimit, rl.windowMs, now);
    }

    const ctx: RequestContext = {
      route,
      method: route.method,
      path: ex.path,
      query,
      get searchParams() {
        const sp = new URLSearchParams(query);
        Object.defineProperty(this, 'searchParams', { value: sp });
        return sp;
      },
      params,
      headers,
      ip: ex.ip,
      requestId: ex.requestId,
      receivedAt: now,
      get signal() {
        ex.watchAbort();
        return ex.controller!.signal;
      },
      log: this.log,
      key,
      body: undefined,
    };

    const proceed = (result: RateLimitResult | undefined): void => {
      if (result) {
        ex.addHeaders(rateLimitHeaders(result, route.rateLimit === 'key' ? 'key' : 'ip', now));
        if (!result.allowed) return ex.fail(new GatewayError('RATE_LIMITED', `Rate limit of ${result.limit} requests per ${Math.round(result.windowMs / 1000)} s exceeded`));
      }
      if (route.body) return this.withBody(ex, route, ctx, res);
      this.run(ex, route, ctx);
    };

    if (limited instanceof Promise) {
      // A shared store answers asynchronously: from here on the response may outlive this call.
      ex.watchAbort();
      limited.then(proceed, (err: unknown) => ex.fail(err));
    } else {
      proceed(limited);
    }
  }

  private withBody(ex: Exchange, route: RouteDef, ctx: RequestContext, res: HttpResponse): void {
    const spec = route.body!;
    const type = mediaType(ctx.headers['content-type']);
    if (!spec.contentTypes.includes(type)) {
      return ex.fail(new GatewayError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${spec.contentTypes.join(' or ')}${type ? `, got ${type}` : ''}`));
    }
    const cl = ctx.headers['content-length'];
    const declared = cl === undefined ? undefined : Number(cl);
    if (declared !== undefined && !Number.isSafeInteger(declared)) return ex.fail(new GatewayError('BAD_REQUEST', 'Invalid Content-Length'));
    ex.watchAbort();
    readBody(res, spec.limit, declared, (outcome) => {
      if (ex.aborted) return;
      if (!outcome.ok) {
        // Close the connection after the 413 so the rest of the body is never read.
        ex.closeAfter = true;
        ex.fail(new GatewayError('PAYLOAD_TOO_LARGE', `Request body exceeds ${spec.limit} bytes`));
        return;
      }
      ctx.body = outcome.body;
      this.run(ex, route, ctx);
    });
  }

  private run(ex: Exchange, route: RouteDef, ctx: RequestContext): void {
    let out: Reply | Promise<Reply>;
    try {
      out = route.handler(ctx);
    } catch (err) {
      return ex.fail(err);
    }
    const inm = ctx.headers['if-none-match'];
    if (out instanceof Promise) {
      ex.watchAbort();
      out.then((reply) => ex.send(reply, inm), (err: unknown) => ex.fail(err));
    } else {
      ex.send(out, inm);
    }
  }
}

function paramNames(url: string): string[] {
  return url.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
}

const namesCache = new WeakMap<RouteDef, string[]>();
function paramNamesCached(route: RouteDef): string[] {
  let n = namesCache.get(route);
  if (!n) {
    n = paramNames(route.url);
    namesCache.set(route, n);
  }
  return n;
}
