/**
 * Push WebSockets: an endpoint whose clients each subscribe to one pub/sub topic (e.g. a
 * network's summary), with the upgrade's refusals (shutdown, an unknown topic, a foreign page's
 * origin, too many sockets from one address), a welcome message with the current state, and the
 * sockets to end when the server shuts down.
 */
import { errorBody, type GatewayError } from '../errors.js';
import { rateLimitSubject } from '../config/cidr.js';
import type { ClientAddress } from '../guards/client-address.js';
import { sameOrigin, type CorsPolicy } from '../guards/cors.js';
import type { TopicDoc } from './openapi.js';
import { paramNames } from './endpoint.js';
import { headerLines } from './head.js';
import { socketClosed } from './refusal.js';
import { upgradeRefused } from './refusals.js';
import { clientIp, origin, scanHeaders } from './request-head.js';
import { JSON_TYPE } from './route.js';
import { statusLine } from './status.js';
import type { HttpRequest, HttpResponse, TemplatedApp, WebSocket, us_socket_context_t } from './uws.js';

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

/** What the topics read of their server. */
interface TopicsHost {
  readonly closing: boolean;
  readonly cors: CorsPolicy;
  readonly clientAddress: ClientAddress;
}

interface Subscriber {
  topic: string;
  client: string;
}

export class Topics {
  private readonly sockets = new Set<WebSocket<unknown>>();
  /** Open push WebSockets per client (rate-limit subject); entries leave at zero. */
  private readonly perClient = new Map<string, number>();

  constructor(
    private readonly app: TemplatedApp,
    private readonly host: TopicsHost,
    private readonly perClientMax: number,
  ) {}

  add(t: TopicRoute): void {
    const names = paramNames(t.url);
    this.app.ws<Subscriber>(t.url, {
      maxPayloadLength: 1024,
      idleTimeout: 120,
      maxBackpressure: 1 << 20,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => this.upgrade(t, names, res, req, context),
      open: (ws) => this.open(t, ws),
      close: (ws) => this.close(ws),
    });
  }

  publish(topic: string, message: string): void {
    this.app.publish(topic, message, false);
  }

  /** Tell every open socket the server is going away (RFC 6455 §7.4.1: 1001). */
  endAll(): void {
    for (const ws of this.sockets) ws.end(1001, 'server shutting down');
  }

  private upgrade(t: TopicRoute, names: readonly string[], res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
    // Upgrading a socket uWS has already closed crashes the process (refusal.ts).
    if (socketClosed(res.getRemoteAddress())) {
      res.close();
      return;
    }
    const params: Record<string, string> = {};
    names.forEach((n, i) => (params[n] = req.getParameter(i) ?? ''));
    const topic = t.topicFor(params);
    scanHeaders(req);
    const client = rateLimitSubject(clientIp(this.host.clientAddress, res.getRemoteAddress()));
    const refusal = this.refusal(topic, client, req);
    if (refusal !== undefined) {
      res.writeStatus(statusLine(refusal.status) + headerLines({ 'Content-Type': JSON_TYPE, ...refusal.headers })).end(errorBody(refusal));
      return;
    }
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    const subscriber: Subscriber = { topic: topic as string, client };
    res.upgrade(subscriber, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
  }

  /**
   * Why the upgrade is refused, if it is. RFC 6455 §10.2: a browser says which page opens the
   * socket; pages of other origins may not unless listed, this server's own pages may (a client
   * that is no browser sends no Origin). At most `perClientMax` per client.
   */
  private refusal(topic: string | GatewayError, client: string, req: HttpRequest): GatewayError | undefined {
    if (this.host.closing) return upgradeRefused('SHUTTING_DOWN');
    if (typeof topic !== 'string') return topic;
    const from = origin();
    if (from !== undefined && !this.host.cors.allows(from) && !sameOrigin(from, req.getHeader('host'))) return upgradeRefused('ORIGIN_NOT_ALLOWED');
    if ((this.perClient.get(client) ?? 0) >= this.perClientMax) return upgradeRefused('TOO_MANY_CONNECTIONS');
    return undefined;
  }

  private open(t: TopicRoute, ws: WebSocket<Subscriber>): void {
    this.sockets.add(ws as WebSocket<unknown>);
    const { topic } = ws.getUserData();
    ws.subscribe(topic);
    const hello = t.welcome?.(topic);
    // A welcome asked of another thread comes later; the socket may have closed meanwhile.
    if (hello instanceof Promise) {
      hello.then(
        (text) => {
          if (text !== undefined && this.sockets.has(ws as WebSocket<unknown>)) ws.send(text, false);
        },
        () => undefined,
      );
    } else if (hello !== undefined) ws.send(hello, false);
  }

  private close(ws: WebSocket<Subscriber>): void {
    this.sockets.delete(ws as WebSocket<unknown>);
    const { client } = ws.getUserData();
    const n = (this.perClient.get(client) ?? 1) - 1;
    if (n > 0) this.perClient.set(client, n);
    else this.perClient.delete(client);
  }
}
