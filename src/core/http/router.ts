/**
 * Routing: each route record registered on the uWS app for its method (GET with HEAD, and the
 * CORS preflight for public GETs), its path with and without a trailing `/`; once all are added,
 * a 405 for every known path and the 404 catch-all. Every handler registered here enters the one
 * pipeline (pipeline.ts) with its endpoint (endpoint.ts).
 */
import { methodNotAllowedEndpoint, notFoundEndpoint, preflightEndpoint, routeEndpoint, type Endpoint, type PipelineHost } from './endpoint.js';
import { serve } from './pipeline.js';
import type { Reply, RouteDef } from './route.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from './uws.js';

/**
 * In an HTTP worker thread (server.threads > 1, threads/): offered every routed request first;
 * true when it took the request (forwarded it to the main thread), false to serve it here.
 */
export interface Front {
  take(route: RouteDef, index: number, res: HttpResponse, req: HttpRequest, head: boolean): boolean;
}

type Handler = (res: HttpResponse, req: HttpRequest) => void;

export class Router {
  /** Every route in the order added: a worker thread names a forwarded request's route by its index here. */
  readonly routeList: RouteDef[] = [];
  private readonly endpoints: Endpoint[] = [];
  /** The methods each path answers, for its 405's `Allow`. */
  private readonly byUrl = new Map<string, Set<string>>();
  private fallbacksAdded = false;

  constructor(
    private readonly app: TemplatedApp,
    private readonly server: PipelineHost,
    private readonly front: Front | undefined,
  ) {}

  /**
   * Register a route record. Routes must all be added before the fallbacks. A trailing `/` names
   * the same resource: `/health/` is answered exactly as `/health` (no redirect; documented in openapi.ts).
   */
  add(route: RouteDef): void {
    const index = this.routeList.push(route) - 1;
    const ep = routeEndpoint(this.server, route);
    this.endpoints.push(ep);
    const preflight = route.method === 'GET' && route.auth === 'none' && this.server.cors.enabled ? preflightEndpoint(this.server, route) : undefined;
    this.addAt(route.url, ep, index, preflight);
    if (!route.url.endsWith('/')) this.addAt(`${route.url}/`, ep, index, preflight);
  }

  private addAt(url: string, ep: Endpoint, index: number, preflight: Endpoint | undefined): void {
    const methods = this.byUrl.get(url) ?? new Set<string>();
    if (ep.def.method === 'GET') {
      this.app.get(url, this.handler(ep, index, false));
      // RFC 9110 §9.3.2: HEAD is GET without the body (monitors probe /health with it).
      this.app.head(url, this.handler(ep, index, true));
      methods.add('HEAD');
      if (preflight !== undefined) {
        this.app.options(url, (res, req) => serve(preflight, res, req, false));
        methods.add('OPTIONS');
      }
    } else {
      this.app.post(url, this.handler(ep, index, false));
    }
    methods.add(ep.def.method);
    this.byUrl.set(url, methods);
  }

  /** In an HTTP worker thread the front is offered each request first (it forwards what it takes). */
  private handler(ep: Endpoint, index: number, head: boolean): Handler {
    const front = this.front;
    if (front === undefined) return (res, req) => serve(ep, res, req, head);
    return (res, req) => void (front.take(ep.def, index, res, req, head) || serve(ep, res, req, head));
  }

  /** The 405s for known paths and the JSON 404 catch-all, once all routes are added (listen, or an HTTP worker thread's app). */
  addFallbacks(): void {
    if (this.fallbacksAdded) return;
    this.fallbacksAdded = true;
    for (const [url, methods] of this.byUrl) {
      const ep = methodNotAllowedEndpoint(this.server, [...methods].sort().join(', '));
      this.app.any(url, (res, req) => serve(ep, res, req, false));
    }
    const notFound = notFoundEndpoint(this.server);
    this.app.any('/*', (res, req) => serve(notFound, res, req, false));
  }

  /**
   * A request an HTTP worker thread forwarded (threads/): `res` and `req` stand in for uWS's and
   * carry its answer back; it goes through the whole pipeline here, as if it had arrived here.
   */
  serveForwarded(index: number, res: HttpResponse, req: HttpRequest, head: boolean, onReply: (reply: Reply) => void): void {
    const ep = this.endpoints[index];
    if (ep === undefined) return void res.close();
    serve(ep, res, req, head, onReply);
  }
}
