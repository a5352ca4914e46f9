/**
 * The uWS front, assembled: one uWS app with its routes (router.ts), the request pipeline every
 * request passes (pipeline.ts, endpoint.ts, request-head.ts, pipeline-body.ts), push WebSockets
 * (topics.ts), the access log (request-log.ts), listen and shutdown (lifecycle.ts). This folder
 * is the only one that touches uWS; the response contract it honours is written in pipeline.ts.
 */
import type { Logger } from 'pino';
import type { GatewayError } from '../errors.js';
import { ClientAddress } from '../guards/client-address.js';
import { CorsPolicy } from '../guards/cors.js';
import type { PipelineHost, PipelineOptions } from './endpoint.js';
import type { Exchange } from './exchange.js';
import { InFlight, joinAcceptor, listenExclusive } from './lifecycle.js';
import { RequestLog } from './request-log.js';
import type { Reply, RouteDef } from './route.js';
import { Router, type Front } from './router.js';
import { Topics, type TopicRoute } from './topics.js';
import type { HttpRequest, HttpResponse, TemplatedApp, Uws, us_listen_socket } from './uws.js';

export type { TopicRoute } from './topics.js';

interface HttpServerOptions extends PipelineOptions {
  uws: Uws;
  logger: Logger;
  /** CIDRs of the reverse proxies whose X-Forwarded-For is believed (client-address.ts). */
  trustedProxies: readonly string[];
  /** Origins whose pages may read the public routes and open the push WebSockets (cors.ts). */
  corsOrigins: readonly string[];
  /** Push WebSocket connections open at once per client IP (IPv6 by /64). */
  wsConnectionsPerIp: number;
  /** In an HTTP worker thread (server.threads > 1): offered every routed request first (router.ts). */
  front?: Front | undefined;
}

export class HttpServer implements PipelineHost {
  readonly app: TemplatedApp;
  readonly log: Logger;
  closing = false;
  readonly cors: CorsPolicy;
  readonly clientAddress: ClientAddress;
  private listenSocket: us_listen_socket | undefined;
  private readonly router: Router;
  private readonly topics: Topics;
  private readonly requestLog: RequestLog;
  private readonly flight = new InFlight();

  constructor(readonly opts: HttpServerOptions) {
    this.app = opts.uws.App();
    this.log = opts.logger;
    this.cors = new CorsPolicy(opts.corsOrigins);
    this.clientAddress = new ClientAddress(opts.trustedProxies);
    this.requestLog = new RequestLog(opts.logger, () => opts.clock.now(), opts.requestLog);
    this.router = new Router(this.app, this, opts.front);
    this.topics = new Topics(this.app, this, opts.wsConnectionsPerIp);
  }

  /** Requests between entering the pipeline and their answer. */
  get inFlight(): number {
    return this.flight.count;
  }

  /** Every route in the order added: a worker thread names a forwarded request's route by its index here. */
  get routeList(): readonly RouteDef[] {
    return this.router.routeList;
  }

  /** Register a route record (router.ts). Routes must all be added before `listen`. */
  add(route: RouteDef): void {
    this.router.add(route);
  }

  /** A WebSocket endpoint whose clients subscribe to one pub/sub topic (e.g. a network's summary). */
  addTopic(t: TopicRoute): void {
    this.topics.add(t);
  }

  publish(topic: string, message: string): void {
    this.topics.publish(topic, message);
  }

  /** The 405s for known paths and the JSON 404 catch-all, once all routes are added (listen, or an HTTP worker thread's app). */
  addFallbacks(): void {
    this.router.addFallbacks();
  }

  /** A request an HTTP worker thread forwarded (threads/): through the whole pipeline here (router.ts). */
  serveForwarded(index: number, res: HttpResponse, req: HttpRequest, head: boolean, onReply: (reply: Reply) => void): void {
    this.router.serveForwarded(index, res, req, head, onReply);
  }

  /**
   * Register 405s for known paths and the JSON 404 catch-all; then listen. With `acceptor`
   * (server.threads > 1) that app holds the port and hands each new connection, round-robin, to
   * this app and the worker threads' apps (threads/).
   */
  listen(host: string, port: number, acceptor?: TemplatedApp): Promise<number> {
    this.addFallbacks();
    if (acceptor !== undefined) joinAcceptor(acceptor, this.app);
    return listenExclusive(acceptor ?? this.app, host, port).then((socket) => {
      this.listenSocket = socket;
      return this.opts.uws.us_socket_local_port(socket as never);
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
    this.requestLog.flushAll();
    if (this.listenSocket) {
      this.opts.uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = undefined;
    }
    this.topics.endAll();
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
    return this.flight.drained();
  }

  /** Abort every in-flight request's signal (the shutdown deadline passed). */
  abortAll(reason: GatewayError): void {
    this.flight.abortAll(reason);
  }

  opened(): void {
    this.flight.opened();
  }

  track(ex: Exchange): void {
    this.flight.track(ex);
  }

  /**
   * The response was written (or the client left): count and log it, and give back its body's
   * charge unless work that took the body still runs (`bodyReleased` does then).
   */
  finished(ex: Exchange, status: number): void {
    this.flight.ended(ex);
    if (ex.bodyWork === 0) this.bodyReleased(ex);
    this.opts.counter?.observe(ex.route, status, ex.t0, ex.code);
    this.requestLog.record(ex, status);
    // Shutting down: what the last requests logged or counted leaves now, before the process may exit.
    if (this.closing) {
      if (this.flight.count === 0) this.requestLog.flushAll();
      else this.requestLog.flush();
    }
    this.flight.settle();
  }

  bodyReleased(ex: Exchange): void {
    if (ex.bodyHeld === 0) return;
    this.opts.bodyBudget?.give(ex.bodyClient, ex.bodyHeld);
    ex.bodyHeld = 0;
  }
}
