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
import { retryAfterSeconds, type RateLimitResult, type RateLimitStore } from '../pipeline/rate-limit.js';
import type { AuthThrottle } from '../pipeline/auth-throttle.js';
import type { BodyBudget } from '../pipeline/body-budget.js';
import { rateLimitSubject } from '../pipeline/cidr.js';
import { ClientAddress } from '../pipeline/client-address.js';
import { CorsPolicy, sameOrigin } from '../pipeline/cors.js';
import { headerLines } from './head.js';
import { clip } from '../log.js';
import { AccessLog } from './access-log.js';
import { RefusalFold } from './refusal-fold.js';
import { readBody, mediaType } from './body.js';
import { socketClosed } from './refusal.js';
import { addressText } from './remote-address.js';
import { Exchange, NO_HEADERS, UNMATCHED } from './exchange.js';
import { statusLine } from './status.js';
import type { Method, Reply, RouteDef } from './route.js';
import { JSON_TYPE } from './route.js';
import { LISTEN_EXCLUSIVE_PORT, type HttpRequest, type HttpResponse, type TemplatedApp, type Uws, type us_listen_socket, type WebSocket } from './uws.js';
import { ListenError, listenFailureCode } from './listen-failure.js';
import type { TopicDoc } from '../openapi.js';
import type { RequestMetrics } from '../metrics/request-metrics.js';

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
  /** CIDRs of the reverse proxies whose X-Forwarded-For is believed (client-address.ts). */
  trustedProxies: readonly string[];
  /** Failed authentications per client IP (auth-throttle.ts); undefined = not limited. */
  authFailures: AuthThrottle | undefined;
  /** RFC 6585 §5: refuse oversized header sections with 431. */
  maxHeaderBytes: number;
  maxHeaders: number;
  /** Which requests get an access-log line; `aggregate`: keyed and errors, the public rest counted (access-log.ts). */
  requestLog: 'all' | 'aggregate' | 'errors' | 'none';
  /** Origins whose pages may read the public routes and open the push WebSockets (cors.ts). */
  corsOrigins: readonly string[];
  /** Push WebSocket connections open at once per client IP (IPv6 by /64). */
  wsConnectionsPerIp: number;
  /** Request-body bytes in flight, for the whole server and per client; undefined: not bounded. */
  bodyBudget?: BodyBudget | undefined;
  /** Per-request counters for /metrics (src/metrics/request-metrics.ts); undefined: not counted. */
  metrics?: RequestMetrics | undefined;
  /**
   * In an HTTP worker thread (server.threads > 1, threads/): offered every routed request first;
   * true when it took the request (forwarded it to the main thread), false to serve it here.
   */
  front?: { take(route: RouteDef, index: number, res: HttpResponse, req: HttpRequest, head: boolean): boolean } | undefined;
}

export interface TopicRoute {
  url: string;
  /** The pub/sub topic for these path parameters, or the error to refuse the upgrade with (e.g. UNKNOWN_NETWORK). */
  topicFor(params: Record<string, string>): string | GatewayError;
  /** Its description in the OpenAPI document (openapi.ts). */
  doc?: TopicDoc;
  /** The parameter sets worth knowing in advance (e.g. each network): HTTP worker threads get their topics from these (threads/). */
  known?: ReadonlyArray<Record<string, string>>;
  /** Message sent to a new subscriber (the current state), if any; asked of the main thread from a worker thread. */
  welcome?(topic: string): string | undefined | Promise<string | undefined>;
}

let requestSeq = 0;
const bootId = randomBytes(4).toString('hex');

/*
 * The hot path allocates as little as it can: at 50k requests/s every object and closure per
 * request shows up as garbage-collector time. One Exchange per request is both the response
 * lifecycle and the handler's RequestContext; header counting uses a module-level callback;
 * rate-limit headers are written straight from the result with cached constant parts.
 */
let countedBytes = 0;
let countedFields = 0;
/** The current request's line, counted with its headers against `maxHeaderBytes`. */
let lineBytes = 0;
/**
 * The headers the pipeline itself reads, captured in the same pass (the first of each, as
 * `getHeader` answers): one `getHeader` is a native call that scans the header section again
 * (≈ 0.1 µs), and a request needs two to six of them. A route's own `readHeaders` still use it.
 */
let hRequestId: string | undefined;
let hIfNoneMatch: string | undefined;
let hApiKey: string | undefined;
let hAuthorization: string | undefined;
let hClientId: string | undefined;
let hClientName: string | undefined;
let hContentType: string | undefined;
/** Every X-Forwarded-For line, joined: a proxy may add its own line rather than extend the client's. */
let hForwardedFor: string | undefined;
let hOrigin: string | undefined;
/** Every Accept-Encoding line, joined (compression.ts negotiates on it). */
let hAcceptEncoding: string | undefined;
/** Framing headers seen in the same pass: request smuggling hides in their repeats (RFC 9112 §6.3). */
let contentLengths = 0;
let firstContentLength = '';
let conflictingLength = false;
let transferEncoding = '';
const countHeader = (k: string, v: string): void => {
  countedBytes += k.length + v.length + 4;
  countedFields++;
  switch (k) {
    case 'content-length':
      if (contentLengths++ === 0) firstContentLength = v;
      else if (v.trim() !== firstContentLength.trim()) conflictingLength = true;
      break;
    case 'transfer-encoding':
      transferEncoding = transferEncoding ? `${transferEncoding},${v}` : v;
      break;
    case 'x-request-id':
      hRequestId ??= v;
      break;
    case 'if-none-match':
      hIfNoneMatch ??= v;
      break;
    case 'x-api-key':
      hApiKey ??= v;
      break;
    case 'authorization':
      hAuthorization ??= v;
      break;
    case 'x-client-id':
      hClientId ??= v;
      break;
    case 'x-client-name':
      hClientName ??= v;
      break;
    case 'content-type':
      hContentType ??= v;
      break;
    case 'accept-encoding':
      hAcceptEncoding = hAcceptEncoding === undefined ? v : `${hAcceptEncoding},${v}`;
      break;
    case 'origin':
      hOrigin ??= v;
      break;
    case 'x-forwarded-for':
      hForwardedFor = hForwardedFor === undefined ? v : `${hForwardedFor},${v}`;
      break;
  }
};

/** One pass over the request's headers: counts, framing and the captured values above. */
function scanHeaders(req: HttpRequest): void {
  countedBytes = 0;
  countedFields = 0;
  contentLengths = 0;
  firstContentLength = '';
  conflictingLength = false;
  transferEncoding = '';
  hRequestId = hIfNoneMatch = hApiKey = hAuthorization = hClientId = hClientName = hContentType = hForwardedFor = hOrigin = hAcceptEncoding = undefined;
  req.forEach(countHeader);
}

/** Keep a captured header on the exchange (absent, or empty where it first appears: not kept, as with `getHeader`). */
function keep(ex: Exchange, name: string, value: string | undefined): void {
  if (value === undefined || value === '') return;
  if (ex.headers === NO_HEADERS) ex.headers = {};
  ex.headers[name] = value;
}

function keepClient(ex: Exchange): void {
  keep(ex, 'x-client-id', hClientId);
  keep(ex, 'x-client-name', hClientName);
}

/**
 * RFC 9112 §6.3: a message with Content-Lengths that disagree, or a Transfer-Encoding other than
 * plain `chunked` (which uWS would still read as chunked), is framed differently by different
 * parsers: a proxy in front and nightgate would disagree where the next request starts.
 */
function smuggling(): string | undefined {
  if (conflictingLength) return 'conflicting Content-Length headers';
  if (transferEncoding && transferEncoding.trim().toLowerCase() !== 'chunked') return `unsupported Transfer-Encoding "${transferEncoding.slice(0, 40)}"`;
  if (transferEncoding && contentLengths > 0) return 'both Content-Length and Transfer-Encoding';
  return undefined;
}

export class HttpServer {
  readonly app: TemplatedApp;
  readonly log: Logger;
  closing = false;
  inFlight = 0;
  private listenSocket: us_listen_socket | undefined;
  private readonly byUrl = new Map<string, Set<string>>();
  /** Every route in the order added: a worker thread names a forwarded request's route by its index here. */
  readonly routeList: RouteDef[] = [];
  private drainWaiters: Array<() => void> = [];
  private readonly wsSockets = new Set<WebSocket<unknown>>();
  private readonly clientAddress: ClientAddress;
  private readonly cors: CorsPolicy;
  /** Open push WebSockets per client (rate-limit subject); entries leave at zero. */
  private readonly wsPerClient = new Map<string, number>();

  /** The access log's lines (built by hand, batched: access-log.ts). */
  private readonly accessLog: AccessLog;
  /** Which refusals are counted rather than logged (`aggregate`: refusal-fold.ts). */
  private readonly refusals: RefusalFold;

  constructor(private readonly opts: HttpServerOptions) {
    this.app = opts.uws.App();
    this.log = opts.logger;
    this.accessLog = new AccessLog(opts.logger);
    this.refusals = new RefusalFold(() => opts.clock.now());
    this.clientAddress = new ClientAddress(opts.trustedProxies);
    this.cors = new CorsPolicy(opts.corsOrigins);
  }

  /**
   * Register a route record. Routes must all be added before `listen`. A trailing `/` names the
   * same resource: `/health/` is answered exactly as `/health` (no redirect; documented in openapi.ts).
   */
  add(route: RouteDef): void {
    const index = this.routeList.push(route) - 1;
    this.addAt(route.url, route, index);
    if (!route.url.endsWith('/')) this.addAt(`${route.url}/`, route, index);
  }

  private addAt(url: string, route: RouteDef, index: number): void {
    const front = this.opts.front;
    // In an HTTP worker thread the front is offered each request first (it forwards what it takes).
    const on = (head: boolean) => front === undefined
      ? (res: HttpResponse, req: HttpRequest): void => this.handle(route, res, req, head)
      : (res: HttpResponse, req: HttpRequest): void => void (front.take(route, index, res, req, head) || this.handle(route, res, req, head));
    const methods = this.byUrl.get(url) ?? new Set<string>();
    if (route.method === 'GET') {
      this.app.get(url, on(false));
      // RFC 9110 §9.3.2: HEAD is GET without the body (monitors probe /health with it).
      this.app.head(url, on(true));
      methods.add('HEAD');
      if (route.auth === 'none' && this.cors.enabled) {
        this.app.options(url, (res, req) => this.preflight(res, req, route));
        methods.add('OPTIONS');
      }
    } else {
      this.app.post(url, on(false));
    }
    methods.add(route.method);
    this.byUrl.set(url, methods);
  }

  /** A WebSocket endpoint whose clients subscribe to one pub/sub topic (e.g. a network's summary). */
  addTopic(t: TopicRoute): void {
    const names = paramNames(t.url);
    this.app.ws<{ topic: string; client: string }>(t.url, {
      maxPayloadLength: 1024,
      idleTimeout: 120,
      maxBackpressure: 1 << 20,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => {
        // Upgrading a socket uWS has already closed crashes the process (refusal.ts).
        if (socketClosed(res.getRemoteAddress())) {
          res.close();
          return;
        }
        const params: Record<string, string> = {};
        names.forEach((n, i) => (params[n] = req.getParameter(i) ?? ''));
        const topic = t.topicFor(params);
        scanHeaders(req);
        const client = rateLimitSubject(this.clientIp(res.getRemoteAddress()));
        // RFC 6455 §10.2: a browser says which page opens the socket; pages of other origins may
        // not unless listed, this server's own pages may (a client that is no browser sends no
        // Origin). At most wsConnectionsPerIp per client.
        const refusal = this.closing ? 'SHUTTING_DOWN'
          : typeof topic !== 'string' ? topic
          : hOrigin !== undefined && !this.cors.allows(hOrigin) && !sameOrigin(hOrigin, req.getHeader('host')) ? 'ORIGIN_NOT_ALLOWED'
          : (this.wsPerClient.get(client) ?? 0) >= this.opts.wsConnectionsPerIp ? 'TOO_MANY_CONNECTIONS'
          : undefined;
        if (refusal !== undefined || typeof topic !== 'string') {
          const err = refusal instanceof GatewayError ? refusal : new GatewayError(refusal!, undefined, refusal === 'TOO_MANY_CONNECTIONS' ? { headers: { 'Retry-After': '10' } } : undefined);
          res.writeStatus(statusLine(err.status) + headerLines({ 'Content-Type': JSON_TYPE, ...err.headers })).end(errorBody(err, 'stats'));
          return;
        }
        this.wsPerClient.set(client, (this.wsPerClient.get(client) ?? 0) + 1);
        res.upgrade({ topic, client }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
      },
      open: (ws) => {
        this.wsSockets.add(ws as WebSocket<unknown>);
        const { topic } = ws.getUserData();
        ws.subscribe(topic);
        const hello = t.welcome?.(topic);
        if (hello instanceof Promise) {
          hello.then((text) => {
            if (text !== undefined && this.wsSockets.has(ws as WebSocket<unknown>)) ws.send(text, false);
          }, () => undefined);
        } else if (hello !== undefined) ws.send(hello, false);
      },
      close: (ws) => {
        this.wsSockets.delete(ws as WebSocket<unknown>);
        const { client } = ws.getUserData();
        const n = (this.wsPerClient.get(client) ?? 1) - 1;
        if (n > 0) this.wsPerClient.set(client, n);
        else this.wsPerClient.delete(client);
      },
    });
  }

  publish(topic: string, message: string): void {
    this.app.publish(topic, message, false);
  }

  /**
   * Register 405s for known paths and the JSON 404 catch-all; then listen. With `acceptor`
   * (server.threads > 1) that app holds the port and hands each new connection, round-robin, to
   * this app and the worker threads' apps (threads/).
   */
  listen(host: string, port: number, acceptor?: TemplatedApp): Promise<number> {
    this.addFallbacks();
    if (acceptor !== undefined) (acceptor as unknown as ChildApps).addChildAppDescriptor((this.app as unknown as ChildApps).getDescriptor());
    return listenExclusive(acceptor ?? this.app, host, port).then((socket) => {
      this.listenSocket = socket;
      return this.opts.uws.us_socket_local_port(socket as never);
    });
  }

  private fallbacksAdded = false;

  /** The 405s for known paths and the JSON 404 catch-all, once all routes are added (listen, or an HTTP worker thread's app). */
  addFallbacks(): void {
    if (this.fallbacksAdded) return;
    this.fallbacksAdded = true;
    for (const [url, methods] of this.byUrl) {
      const allow = [...methods].sort().join(', ');
      const style = url.startsWith('/api') ? 'stats' : 'prover';
      this.app.any(url, (res, req) => this.reject(res, req, new GatewayError('METHOD_NOT_ALLOWED', `${req.getMethod().toUpperCase()} is not allowed here; use ${allow}`, { headers: { Allow: allow } }), style));
    }
    this.app.any('/*', (res, req) => {
      const url = req.getUrl();
      this.reject(res, req, new GatewayError('NOT_FOUND', `No route for ${req.getMethod().toUpperCase()} ${clip(url, 256)}`), url.startsWith('/api') ? 'stats' : 'prover');
    });
  }

  /**
   * Fail fast when host:port cannot be listened on, before the app starts anything slow (the
   * embedded devnets): bind it exclusively from a throwaway app and let go at once. `listen`
   * binds exclusively too, so a program that takes the port in between is refused there.
   */
  async checkPort(host: string, port: number): Promise<void> {
    if (port === 0) return;
    this.opts.uws.us_listen_socket_close(await listenExclusive(this.opts.uws.App(), host, port));
  }

  /** Stop accepting connections; requests on kept-alive connections now get 503 and are closed. */
  beginShutdown(): void {
    if (this.closing) return;
    this.closing = true;
    this.accessLog.writeCounts();
    this.accessLog.flush();
    if (this.listenSocket) {
      this.opts.uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = undefined;
    }
    for (const ws of this.wsSockets) ws.end(1001, 'server shutting down');
  }

  /**
   * End every connection still open (kept-alive clients that sent nothing since the shutdown began,
   * WebSockets that did not close). Called once nothing is in flight: without it an idle kept-alive
   * client holds the process open until uWS's idle timeout, about 10 s (measured on both builds;
   * `app.close()` exists on both, test/reliability/uws-drops.test.ts).
   */
  closeConnections(): void {
    this.closing = true;
    const app = this.app as TemplatedApp & { close?: () => void };
    app.close?.();
  }

  /** Resolves when no request is in flight (or at once). */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** In-flight requests that went asynchronous (only those can outlive their handler call). */
  private readonly live = new Set<Exchange>();

  track(ex: Exchange): void {
    this.live.add(ex);
  }

  /** Abort every in-flight request's signal (the shutdown deadline passed). */
  abortAll(reason: GatewayError): void {
    for (const ex of this.live) {
      ex.controller?.abort(reason);
      if (!ex.done && !ex.aborted) ex.fail(reason);
    }
  }

  finished(ex: Exchange, status: number): void {
    this.inFlight--;
    if (ex.bodyHeld > 0) {
      this.opts.bodyBudget?.give(ex.bodyClient, ex.bodyHeld);
      ex.bodyHeld = 0;
    }
    if (ex.controller) this.live.delete(ex);
    this.opts.metrics?.observe(ex.route, status, ex.t0, ex.code);
    const mode = this.opts.requestLog;
    // aggregate: the public routes' answers below 400, and an address's repeated refusals, are counted: one line a second each (access-log.ts).
    if (mode === 'none' || !this.accessLog.enabled) {
      // no access log
    } else if (mode === 'aggregate' && status >= 400 && status < 500 && this.refusals.fold(rateLimitSubject(ex.ip), status, ex.code)) {
      this.accessLog.countRefusal(rateLimitSubject(ex.ip), ex.code ?? String(status));
    } else if (mode === 'all' || status >= 400 || (mode === 'aggregate' && ex.route.auth !== 'none')) {
      this.accessLog.write(
        ex.requestId,
        ex.method,
        ex.route.url,
        clip(ex.path, 256)!,
        status,
        Math.round((performance.now() - ex.t0) * 100) / 100,
        ex.ip,
        ex.keyId,
        clip(ex.headers['x-client-id']),
        clip(ex.headers['x-client-name']),
        ex.code,
      );
    } else if (mode === 'aggregate') {
      this.accessLog.count(ex.route.url, status);
    }
    // Shutting down: what the last requests logged or counted leaves now, before the process may exit.
    if (this.closing) {
      if (this.inFlight === 0) this.accessLog.writeCounts();
      this.accessLog.flush();
    }
    if (this.inFlight === 0 && this.drainWaiters.length > 0) {
      const w = this.drainWaiters;
      this.drainWaiters = [];
      for (const f of w) f();
    }
  }

  /** The client's address (after `scanHeaders`, which collects X-Forwarded-For). */
  private clientIp(remote: ArrayBuffer): string {
    return this.clientAddress.resolve(addressText(remote), hForwardedFor);
  }

  /** The request's exchange, or undefined (and dropped) if it was read behind a refusal that closed its socket. */
  private newExchange(res: HttpResponse, req: HttpRequest, route: RouteDef, style: ErrorStyle, method: Method): Exchange | undefined {
    const remote = res.getRemoteAddress();
    if (socketClosed(remote)) {
      res.close();
      return undefined;
    }
    scanHeaders(req);
    const given = hRequestId ?? '';
    const requestId = given !== '' && given.length <= 128 && /^[\x21-\x7e]+$/.test(given) ? given : `${bootId}-${(++requestSeq).toString(36)}`;
    const url = req.getUrl();
    const ex = new Exchange(this, res, route, style, method, url, requestId, this.clientIp(remote), this.opts.requestLog !== 'none' || (this.opts.metrics !== undefined && this.opts.metrics.timeNext(route)));
    ex.query = req.getQuery() ?? '';
    // The request line as sent: method, target (path and query) and ` HTTP/1.1\r\n`.
    lineBytes = method.length + url.length + (ex.query === '' ? 0 : ex.query.length + 1) + 11;
    this.inFlight++;
    return ex;
  }

  /**
   * A 404 or 405. It goes through the same door as a route — shutdown, header limits, framing — and
   * spends the client's per-IP quota, so unknown paths are no cheaper way to flood the server or
   * its log than real ones.
   */
  private reject(res: HttpResponse, req: HttpRequest, err: GatewayError, style: ErrorStyle): void {
    this.unrouted(res, req, UNMATCHED, style, () => (ex) => ex.fail(err));
  }

  /** An OPTIONS request to a public route: the CORS preflight (Fetch §3.2.2), 204. */
  private preflight(res: HttpResponse, req: HttpRequest, route: RouteDef): void {
    this.unrouted(res, req, route, route.style, () => {
      const headers = this.cors.preflight(hOrigin);
      return (ex) => ex.send({ status: 204, body: '', headers });
    });
  }

  /**
   * An answer that runs no route handler (404, 405, preflight). It goes through the same door as a
   * route — shutdown, header limits, framing — and spends the client's per-IP quota, so these are
   * no cheaper way to flood the server or its log than real routes. `answer` is called while the
   * request is valid and returns what to send once admitted.
   */
  private unrouted(res: HttpResponse, req: HttpRequest, route: RouteDef, style: ErrorStyle, answer: () => (ex: Exchange) => void): void {
    const ex = this.newExchange(res, req, route, style, req.getMethod().toUpperCase() as Method);
    if (!ex) return;
    if (this.opts.requestLog !== 'none') keepClient(ex);
    try {
      if (this.refusedAtTheDoor(ex)) return;
      const send = answer();
      const rl = this.opts.rateLimit;
      const now = this.opts.clock.now();
      ex.receivedAt = now;
      const limited = rl.publicEnabled ? rl.store.hit('ip', rateLimitSubject(ex.ip), rl.publicLimit, rl.windowMs, now) : undefined;
      if (limited instanceof Promise) {
        ex.watchAbort();
        limited.then((r) => this.unroutedAdmitted(ex, send, r), (e: unknown) => ex.fail(e));
      } else {
        this.unroutedAdmitted(ex, send, limited);
      }
    } catch (e) {
      ex.fail(e);
    } finally {
      ex.sync = false;
    }
  }

  private unroutedAdmitted(ex: Exchange, send: (ex: Exchange) => void, result: RateLimitResult | undefined): void {
    if (result) {
      ex.rl = result;
      if (!result.allowed) return ex.fail(new GatewayError('RATE_LIMITED', `Rate limit of ${result.limit} requests per ${Math.round(result.windowMs / 1000)} s exceeded`));
    }
    send(ex);
  }

  /** Shutdown, oversized header sections and ambiguous framing: answered before anything else. */
  private refusedAtTheDoor(ex: Exchange): boolean {
    if (this.closing) {
      ex.fail(new GatewayError('SHUTTING_DOWN', undefined, { headers: { 'Retry-After': '5' } }));
      return true;
    }
    // uWS itself accepts very long request lines: the line counts towards the same bound as the
    // header section, and a line alone beyond it is a URI too long (RFC 9112 §3, RFC 9110 §15.5.15).
    if (lineBytes > this.opts.maxHeaderBytes) {
      ex.closeAfter = true;
      ex.fail(new GatewayError('URI_TOO_LONG', `The request line exceeds ${this.opts.maxHeaderBytes} bytes`));
      return true;
    }
    // uWS itself accepts very large header sections; bound them here (RFC 6585 §5). Counted by
    // the pass in newExchange.
    if (lineBytes + countedBytes > this.opts.maxHeaderBytes || countedFields > this.opts.maxHeaders) {
      ex.closeAfter = true;
      ex.fail(new GatewayError('HEADERS_TOO_LARGE', `Request headers exceed ${this.opts.maxHeaderBytes} bytes or ${this.opts.maxHeaders} fields`));
      return true;
    }
    const framing = smuggling();
    if (framing !== undefined) {
      ex.closeAfter = true;
      ex.fail(new GatewayError('BAD_REQUEST', `Ambiguous message framing: ${framing}`));
      return true;
    }
    return false;
  }

  /**
   * A request an HTTP worker thread forwarded (threads/): `res` and `req` stand in for uWS's and
   * carry its answer back; it goes through the whole pipeline here, as if it had arrived here.
   */
  serveForwarded(index: number, res: HttpResponse, req: HttpRequest, head: boolean, onReply: (reply: Reply) => void): void {
    const route = this.routeList[index];
    if (route === undefined) return void res.close();
    this.handle(route, res, req, head, onReply);
  }

  private handle(route: RouteDef, res: HttpResponse, req: HttpRequest, head: boolean, onReply?: (reply: Reply) => void): void {
    const ex = this.newExchange(res, req, route, route.style, route.method);
    if (!ex) return;
    ex.head = head;
    ex.onReply = onReply;
    try {
      this.pipeline(ex, route, res, req);
    } catch (err) {
      ex.fail(err);
    }
    ex.sync = false;
  }

  private pipeline(ex: Exchange, route: RouteDef, res: HttpResponse, req: HttpRequest): void {
    if (this.refusedAtTheDoor(ex)) return;
    if (route.auth === 'none') ex.cors = this.cors.headLines(hOrigin);
    // Copy everything the handler may need while the HttpRequest is still valid.
    if (route.auth !== 'none') {
      keep(ex, 'x-api-key', hApiKey);
      keep(ex, 'authorization', hAuthorization);
      keepClient(ex);
    } else if (this.opts.requestLog !== 'none') keepClient(ex);
    if (route.body) {
      keep(ex, 'content-type', hContentType);
      if (contentLengths > 0) keep(ex, 'content-length', firstContentLength);
    }
    if (route.method === 'GET') {
      keep(ex, 'if-none-match', hIfNoneMatch);
      ex.acceptEncoding = hAcceptEncoding;
    }
    if (route.readHeaders) copyHeaders(req, ex, route.readHeaders);
    const headers = ex.headers;
    const names = paramNamesCached(route);
    if (names.length > 0) {
      const params: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) params[names[i]!] = req.getParameter(i) ?? '';
      ex.params = params;
    }
    const now = this.opts.clock.now();
    ex.receivedAt = now;

    // Auth.
    if (route.auth !== 'none') {
      const presented = presentedKey(headers['x-api-key'], headers['authorization']);
      const needed = route.auth === 'key' || presented !== undefined;
      const throttle = needed ? this.opts.authFailures : undefined;
      const subject = throttle === undefined ? '' : rateLimitSubject(ex.ip);
      const refused = throttle?.refused(subject, now);
      if (refused !== undefined) {
        ex.rl = refused;
        ex.rlName = 'auth';
        return ex.fail(new GatewayError('TOO_MANY_AUTH_FAILURES', `Too many failed authentications from this address; retry after ${retryAfterSeconds(refused.resetAt, now)} s`));
      }
      const key = this.opts.keys.authenticate(presented) ?? this.opts.keys.trustedKey(ex.ip);
      if (!key && needed) {
        throttle?.failed(subject, now);
        return ex.fail(new GatewayError('UNAUTHORIZED', undefined, { headers: { 'WWW-Authenticate': 'Bearer realm="nightgate"' } }));
      }
      ex.key = key;
      ex.keyId = key?.id;
    }

    // Rate limit.
    const rl = this.opts.rateLimit;
    let limited: RateLimitResult | Promise<RateLimitResult> | undefined;
    if (route.rateLimit === 'key' && ex.key && rl.enabled) {
      const pol = ex.key.rateLimit ?? rl;
      ex.rlName = 'key';
      limited = rl.store.hit('key', ex.key.id, pol.limit, pol.windowMs, now);
    } else if (route.rateLimit === 'ip' && rl.publicEnabled) {
      limited = rl.store.hit('ip', rateLimitSubject(ex.ip), rl.publicLimit, rl.windowMs, now);
    }
    if (limited instanceof Promise) {
      // A shared store answers asynchronously: from here on the response may outlive this call.
      ex.watchAbort();
      // uWS hands the body only to a reader attached before this call returns: it is read now,
      // while the store decides, and the handler runs once both are done.
      if (route.body) return this.withBody(ex, route, res, limited);
      limited.then((r) => this.admitted(ex, route, res, r), (err: unknown) => ex.fail(err));
    } else {
      this.admitted(ex, route, res, limited);
    }
  }

  private admitted(ex: Exchange, route: RouteDef, res: HttpResponse, result: RateLimitResult | undefined): void {
    if (result) {
      ex.rl = result;
      if (!result.allowed) return ex.fail(new GatewayError('RATE_LIMITED', `Rate limit of ${result.limit} requests per ${Math.round(result.windowMs / 1000)} s exceeded`));
    }
    if (route.body) return this.withBody(ex, route, res);
    this.run(ex, route);
  }

  private withBody(ex: Exchange, route: RouteDef, res: HttpResponse, limited?: Promise<RateLimitResult>): void {
    const spec = route.body!;
    const type = mediaType(ex.headers['content-type']);
    if (!spec.contentTypes.includes(type)) {
      return ex.fail(new GatewayError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${spec.contentTypes.join(' or ')}${type ? `, got ${type}` : ''}`));
    }
    const cl = ex.headers['content-length'];
    // RFC 9110 §8.6: Content-Length is 1*DIGIT; no sign, no hex, no list.
    if (cl !== undefined && !/^\d{1,15}$/.test(cl.trim())) {
      ex.closeAfter = true;
      return ex.fail(new GatewayError('BAD_REQUEST', 'Invalid Content-Length'));
    }
    const declared = cl === undefined ? undefined : Number(cl.trim());
    // Refused before a byte is read: the connection closes with the answer, so the body never is.
    const refused = declared !== undefined && declared > spec.limit ? undefined : admission(route, ex) ?? this.takeDeclared(ex, declared);
    if (refused !== undefined) {
      ex.closeAfter = true;
      return ex.fail(refused);
    }
    ex.watchAbort();
    readBody(res, spec.limit, declared, (outcome) => {
      if (ex.aborted) return;
      if (!outcome.ok) {
        // Close the connection after the refusal so the rest of the body is never read.
        ex.closeAfter = true;
        ex.fail(outcome.reason === 'refused' ? outcome.error : new GatewayError('PAYLOAD_TOO_LARGE', `Request body exceeds ${spec.limit} bytes`));
        return;
      }
      ex.body = outcome.body;
      if (limited === undefined) return this.run(ex, route);
      limited.then((r) => {
        if (ex.aborted) return;
        ex.rl = r;
        if (!r.allowed) return ex.fail(new GatewayError('RATE_LIMITED', `Rate limit of ${r.limit} requests per ${Math.round(r.windowMs / 1000)} s exceeded`));
        this.run(ex, route);
      }, (err: unknown) => ex.fail(err));
    }, this.opts.bodyBudget === undefined ? undefined : (n) => this.take(ex, n));
  }

  /** A declared body's bytes, taken from the budget before it is read; the refusal if they cannot be. */
  private takeDeclared(ex: Exchange, declared: number | undefined): GatewayError | undefined {
    if (this.opts.bodyBudget === undefined) return undefined;
    ex.bodyClient = bodyClientOf(ex);
    return declared === undefined || declared === 0 ? undefined : this.take(ex, declared);
  }

  private take(ex: Exchange, bytes: number): GatewayError | undefined {
    const budget = this.opts.bodyBudget!;
    const refusal = budget.take(ex.bodyClient, bytes);
    if (refusal !== undefined) return budget.refusal(refusal);
    ex.bodyHeld += bytes;
    return undefined;
  }

  private run(ex: Exchange, route: RouteDef): void {
    let out: Reply | Promise<Reply>;
    try {
      out = route.handler(ex);
    } catch (err) {
      return ex.fail(err);
    }
    const inm = ex.headers['if-none-match'];
    if (out instanceof Promise) {
      ex.watchAbort();
      out.then((reply) => ex.send(reply, inm), (err: unknown) => ex.fail(err));
    } else {
      ex.send(out, inm);
    }
  }
}

/** What the 20.57 build adds to an app for several threads on one port (not in the typings; the 20.30 build lacks it). */
export interface ChildApps {
  getDescriptor(): number;
  addChildAppDescriptor(descriptor: number): void;
  removeChildAppDescriptor(descriptor: number): void;
}

/** An exclusive listen socket on host:port (uws.ts, LISTEN_EXCLUSIVE_PORT), or a ListenError saying why not. */
function listenExclusive(app: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  // The typings omit the (host, port, options, cb) form the native listen accepts.
  const listen = app.listen as unknown as (h: string, p: number, options: number, cb: (s: us_listen_socket | false) => void) => TemplatedApp;
  return new Promise((resolve, reject) => {
    listen.call(app, host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket) return resolve(socket);
      void listenFailureCode(host, port).then((code) => reject(new ListenError(code, host, port)));
    });
  });
}

/** The route's own refusal before its body is read, if it has one (a throw is one too). */
function admission(route: RouteDef, ex: Exchange): GatewayError | undefined {
  try {
    return route.admit?.(ex);
  } catch (err) {
    return toGatewayError(err);
  }
}

/**
 * Whose share of the body budget a request spends: its API key's, or its address's when it has no
 * key of its own (a client of `auth.trustedNetworks` shares its network's id with every other).
 */
function bodyClientOf(ex: Exchange): string {
  const key = ex.key;
  return key !== undefined && key.source !== 'trusted-network' ? `key:${key.id}` : `ip:${rateLimitSubject(ex.ip)}`;
}

/** Copy the named headers that are present; the exchange gets its own record at the first one. */
function copyHeaders(req: HttpRequest, ex: Exchange, names: readonly string[]): void {
  for (let i = 0; i < names.length; i++) {
    const n = names[i]!;
    const v = req.getHeader(n);
    if (v !== '') {
      if (ex.headers === NO_HEADERS) ex.headers = {};
      ex.headers[n] = v;
    }
  }
}

function paramNames(url: string): string[] {
  return url.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
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
