/**
 * An HTTP proxy in front of the fake indexer's GraphQL endpoint that injects the faults the
 * fake itself has no mode for: an HTTP 500 page, GraphQL `errors` with a 200, a body cut short,
 * a body larger than `stats.maxResponseBytes`, a body that trickles slower than the timeout.
 * The WebSocket subscription goes to the fake directly.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { Socket } from 'node:net';

export type ProxyMode = 'pass' | 'http500' | 'graphql-errors' | 'truncated' | 'oversized' | 'trickle';

export class IndexerProxy {
  mode: ProxyMode = 'pass';
  /** Bytes of the oversized answer. */
  oversizedBytes = 2 * 1024 * 1024;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    readonly target: URL,
    public port = 0,
  ) {}

  static async start(targetUrl: string): Promise<IndexerProxy> {
    const target = new URL(targetUrl);
    let proxy!: IndexerProxy;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        switch (proxy.mode) {
          case 'http500':
            res.writeHead(500, { 'content-type': 'text/html' });
            return void res.end('<html><body>500 Internal Server Error</body></html>');
          case 'graphql-errors':
            res.writeHead(200, { 'content-type': 'application/graphql-response+json' });
            return void res.end(JSON.stringify({ data: null, errors: [{ message: 'database connection lost' }] }));
          case 'truncated':
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
            res.write('{"data":{"block":{"height":');
            return void res.socket?.destroy();
          case 'oversized':
            res.writeHead(200, { 'content-type': 'application/json' });
            return void res.end(`{"data":{"pad":"${'x'.repeat(proxy.oversizedBytes)}"}}`);
          case 'trickle': {
            res.writeHead(200, { 'content-type': 'application/json' });
            const timer = setInterval(() => res.write(' '), 50);
            proxy.timers.add(timer);
            res.on('close', () => {
              clearInterval(timer);
              proxy.timers.delete(timer);
            });
            return;
          }
          default: {
            const up = httpRequest(
              {
                host: target.hostname,
                port: target.port,
                path: req.url,
                method: req.method,
                headers: { ...req.headers, host: target.host, 'content-length': String(body.length) },
              },
              (r) => {
                res.writeHead(r.statusCode ?? 502, r.headers);
                r.pipe(res);
              },
            );
            up.on('error', () => res.destroy());
            up.end(body);
          }
        }
      });
    });
    server.on('connection', (s) => {
      proxy.sockets.add(s);
      s.on('close', () => proxy.sockets.delete(s));
    });
    proxy = new IndexerProxy(server, target);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy.port = (server.address() as { port: number }).port;
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${this.target.pathname}`;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
