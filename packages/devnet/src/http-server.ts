// One loopback HTTP server per network:
//   POST /api/v4/graphql       indexer-compatible GraphQL (JSON body {query, variables, operationName})
//   GET  /api/v4/graphql/ws    GraphQL subscriptions over WebSocket, subprotocol graphql-transport-ws
//   POST /submit               a finalized transaction (application/octet-stream) for the next block
//   POST /faucet               JSON {address, amount}: NIGHT from the treasury in the next block
//   GET  /health
// Errors answer JSON `{error, code}`; 404 and 405 are JSON too.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { graphql, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';
import type { GraphQLContext } from './graphql-context.js';
import type { DevnetLogger } from './logger.js';

export const GRAPHQL_PATH = '/api/v4/graphql';
export const GRAPHQL_WS_PATH = '/api/v4/graphql/ws';
export const SUBMIT_PATH = '/submit';
export const FAUCET_PATH = '/faucet';
export const HEALTH_PATH = '/health';

/** The indexer's own request limit (LEDGER.md); a transaction may be larger. */
const GRAPHQL_BODY_LIMIT = 1024 * 1024;
const SUBMIT_BODY_LIMIT = 8 * 1024 * 1024;
const CONNECTION_INIT_TIMEOUT_MS = 30_000;

export interface DevnetEndpoint {
  context(): GraphQLContext;
  submit(bytes: Uint8Array): object;
  faucet(body: unknown): object;
  health(): object;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length });
  res.end(bytes);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new DevnetError(DevnetErrorCode.BODY_TOO_LARGE, 413, `request body exceeds ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new DevnetError(DevnetErrorCode.BAD_REQUEST, 400, `invalid JSON: ${reasonOf(err)}`);
  }
}

const ROUTES: Record<string, string> = {
  [GRAPHQL_PATH]: 'POST',
  [SUBMIT_PATH]: 'POST',
  [FAUCET_PATH]: 'POST',
  [HEALTH_PATH]: 'GET',
};

export class DevnetHttpServer {
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #disposeWs: () => void | Promise<void>;
  readonly #endpoint: DevnetEndpoint;
  readonly #schema: GraphQLSchema;
  readonly #log: DevnetLogger;

  constructor(endpoint: DevnetEndpoint, schema: GraphQLSchema, log: DevnetLogger) {
    this.#endpoint = endpoint;
    this.#schema = schema;
    this.#log = log;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => this.#fail(res, err));
    });
    this.#wss = new WebSocketServer({ noServer: true });
    // A busy worker (several networks producing blocks) may read a client's connection_init late;
    // the 3 s default would drop clients that did nothing wrong.
    const disposable = useServer({ schema, context: () => endpoint.context(), connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS }, this.#wss);
    this.#disposeWs = () => disposable.dispose();
    this.#server.on('upgrade', (req, socket, head) => {
      if (new URL(req.url ?? '/', 'http://devnet').pathname !== GRAPHQL_WS_PATH) {
        socket.destroy();
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#wss.emit('connection', ws, req));
    });
  }

  /** Binds to loopback only: the devnet has no authentication, and its faucet mints test value. */
  async listen(port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    // Terminate first: a polite close would wait up to 30 s for each client's closing handshake.
    for (const client of this.#wss.clients) client.terminate();
    await this.#disposeWs();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://devnet').pathname;
    const method = ROUTES[path];
    if (!method) throw new DevnetError(DevnetErrorCode.NOT_FOUND, 404, `no route ${path}`);
    if (req.method !== method) {
      res.setHeader('allow', method);
      throw new DevnetError(DevnetErrorCode.METHOD_NOT_ALLOWED, 405, `${path} accepts ${method} only`);
    }
    switch (path) {
      case HEALTH_PATH:
        send(res, 200, this.#endpoint.health());
        return;
      case SUBMIT_PATH:
        send(res, 202, this.#endpoint.submit(new Uint8Array(await readBody(req, SUBMIT_BODY_LIMIT))));
        return;
      case FAUCET_PATH:
        send(res, 202, this.#endpoint.faucet(parseJson(await readBody(req, GRAPHQL_BODY_LIMIT))));
        return;
      default:
        await this.#graphql(req, res);
    }
  }

  async #graphql(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseJson(await readBody(req, GRAPHQL_BODY_LIMIT)) as { query?: unknown; variables?: unknown; operationName?: unknown };
    if (typeof body?.query !== 'string') throw new DevnetError(DevnetErrorCode.BAD_REQUEST, 400, 'body.query must be a string');
    const result = await graphql({
      schema: this.#schema,
      source: body.query,
      variableValues: (body.variables ?? undefined) as Record<string, unknown> | undefined,
      operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
      contextValue: this.#endpoint.context(),
    });
    send(res, 200, result);
  }

  #fail(res: ServerResponse, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof DevnetError) {
      send(res, err.status, { error: err.message, code: err.code, ...err.details });
      return;
    }
    this.#log.error({ err: reasonOf(err) }, 'devnet request failed');
    send(res, 500, { error: reasonOf(err), code: DevnetErrorCode.INTERNAL });
  }
}
