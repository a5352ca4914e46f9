// One loopback HTTP server per network:
//   POST /api/v4/graphql       indexer-compatible GraphQL (JSON body {query, variables, operationName})
//   GET  /api/v4/graphql/ws    GraphQL subscriptions over WebSocket, subprotocol graphql-transport-ws
//   POST /submit               a finalized transaction (application/octet-stream) for the next block
//   POST /faucet               JSON {address, amount}: NIGHT from the treasury in the next block
//   POST /rpc, GET /rpc (ws)   the node's JSON-RPC: author_submitExtrinsic, over HTTP or WebSocket
//   GET  /health
// Errors answer JSON `{error, code}`; 404 and 405 are JSON too.
//
// With a project id (the `public` profile, as a hosted provider does) every route but /health
// wants it in the `project_id` header, or for GraphQL over WebSocket in the connection_init
// payload, and answers 401 without; such a network takes transactions through /rpc only, and has
// no faucet.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { graphql, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { timingSafeEqual } from 'node:crypto';
import { blake2b } from '@noble/hashes/blake2.js';
import { decodeSubmitExtrinsic, ExtrinsicError } from '@nightgate/ledger/extrinsic';
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';
import type { GraphQLContext } from './graphql-context.js';
import type { DevnetLogger } from './logger.js';

export const GRAPHQL_PATH = '/api/v4/graphql';
export const GRAPHQL_WS_PATH = '/api/v4/graphql/ws';
export const SUBMIT_PATH = '/submit';
export const FAUCET_PATH = '/faucet';
const HEALTH_PATH = '/health';
export const RPC_PATH = '/rpc';
/** Where a hosted provider expects the project id: a header, and a key of the connection_init payload. */
const PROJECT_ID_HEADER = 'project_id';

/** The indexer's own request limit (LEDGER.md); a transaction may be larger. */
const GRAPHQL_BODY_LIMIT = 1024 * 1024;
const SUBMIT_BODY_LIMIT = 8 * 1024 * 1024;
const CONNECTION_INIT_TIMEOUT_MS = 30_000;

interface DevnetEndpoint {
  context(): GraphQLContext;
  submit(bytes: Uint8Array): object;
  faucet(body: unknown): object;
  health(): object;
}

/** Who may use the server: anyone on loopback, or (a hosted provider's way) holders of the project id. */
interface DevnetAccess {
  /** Wanted on every request but /health; absent: none wanted. */
  projectId?: string;
  /** Transactions through the node RPC only: no /submit, no /faucet. */
  rpcOnly: boolean;
}

/** The JSON-RPC error a node answers (`{code, message, data}`). */
class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: string,
  ) {
    super(message);
  }
}

function sameSecret(given: unknown, want: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
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
  [RPC_PATH]: 'POST',
};

export class DevnetHttpServer {
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #disposeWs: () => void | Promise<void>;
  readonly #endpoint: DevnetEndpoint;
  readonly #schema: GraphQLSchema;
  readonly #log: DevnetLogger;
  readonly #access: DevnetAccess;
  readonly #rpcWss: WebSocketServer;

  constructor(endpoint: DevnetEndpoint, schema: GraphQLSchema, log: DevnetLogger, access: DevnetAccess = { rpcOnly: false }) {
    this.#endpoint = endpoint;
    this.#schema = schema;
    this.#log = log;
    this.#access = access;
    this.#rpcWss = new WebSocketServer({ noServer: true, maxPayload: SUBMIT_BODY_LIMIT * 2 + 64 });
    this.#rpcWss.on('connection', (ws) => {
      ws.on('message', (data) => {
        const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
        void this.#rpc(text).then((answer) => ws.send(JSON.stringify(answer)));
      });
    });
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => this.#fail(res, err));
    });
    this.#wss = new WebSocketServer({ noServer: true });
    // A busy worker (several networks producing blocks) may read a client's connection_init late;
    // the 3 s default would drop clients that did nothing wrong.
    const disposable = useServer(
      {
        schema,
        context: () => endpoint.context(),
        connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
        // Refused without the project id in the upgrade's header or the connection_init payload.
        onConnect: (ctx) => {
          const want = this.#access.projectId;
          if (want === undefined) return true;
          const req = (ctx.extra as { request: IncomingMessage }).request;
          return sameSecret(req.headers[PROJECT_ID_HEADER], want) || sameSecret(ctx.connectionParams?.[PROJECT_ID_HEADER], want);
        },
      },
      this.#wss,
    );
    this.#disposeWs = () => disposable.dispose();
    this.#server.on('upgrade', (req, socket, head) => {
      const path = new URL(req.url ?? '/', 'http://devnet').pathname;
      if (path === RPC_PATH) {
        if (!this.#allowed(req)) {
          socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
          return;
        }
        this.#rpcWss.handleUpgrade(req, socket, head, (ws) => this.#rpcWss.emit('connection', ws, req));
        return;
      }
      if (path !== GRAPHQL_WS_PATH) {
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
    for (const client of this.#rpcWss.clients) client.terminate();
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
    if (path !== HEALTH_PATH && !this.#allowed(req)) {
      throw new DevnetError(DevnetErrorCode.UNAUTHORIZED, 401, `this network wants its project id in the ${PROJECT_ID_HEADER} header`);
    }
    if (this.#access.rpcOnly && (path === SUBMIT_PATH || path === FAUCET_PATH)) {
      throw new DevnetError(
        DevnetErrorCode.NOT_FOUND,
        404,
        `no route ${path}: this network takes transactions through the node RPC (${RPC_PATH}, author_submitExtrinsic) and has no faucet`,
      );
    }
    switch (path) {
      case HEALTH_PATH:
        send(res, 200, this.#endpoint.health());
        return;
      case RPC_PATH:
        send(res, 200, await this.#rpc((await readBody(req, SUBMIT_BODY_LIMIT * 2 + 1024)).toString('utf8')));
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

  #allowed(req: IncomingMessage): boolean {
    const want = this.#access.projectId;
    return want === undefined || sameSecret(req.headers[PROJECT_ID_HEADER], want);
  }

  /** One JSON-RPC request, answered as a node answers it. */
  async #rpc(text: string): Promise<object> {
    let id: unknown = null;
    try {
      let msg: { id?: unknown; method?: unknown; params?: unknown };
      try {
        msg = JSON.parse(text) as typeof msg;
      } catch {
        throw new RpcFailure(-32700, 'Parse error');
      }
      id = msg?.id ?? null;
      if (!msg || typeof msg.method !== 'string') throw new RpcFailure(-32600, 'Invalid request');
      if (msg.method !== 'author_submitExtrinsic') throw new RpcFailure(-32601, 'Method not found');
      const hex = Array.isArray(msg.params) ? msg.params[0] : undefined;
      if (typeof hex !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new RpcFailure(-32602, 'Invalid params', 'one hex-encoded extrinsic');
      const bytes = new Uint8Array(Buffer.from(hex.slice(2), 'hex'));
      let tx: Uint8Array;
      try {
        tx = decodeSubmitExtrinsic(bytes).tx;
      } catch (err) {
        if (err instanceof ExtrinsicError) throw new RpcFailure(1001, 'Extrinsic has invalid format', err.message);
        throw err;
      }
      try {
        this.#endpoint.submit(tx);
      } catch (err) {
        throw nodeFailure(err);
      }
      return { jsonrpc: '2.0', id, result: `0x${Buffer.from(blake2b(bytes, { dkLen: 32 })).toString('hex')}` };
    } catch (err) {
      if (err instanceof RpcFailure)
        return { jsonrpc: '2.0', id, error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } };
      this.#log.error({ err: reasonOf(err) }, 'devnet RPC failed');
      return { jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } };
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

/**
 * A refusal of `/submit` as a node words it: the ledger's DUST reasons as `Custom error: N`
 * (node-rejections.ts), a transaction already pending as 1013, any other refusal as 1010.
 */
function nodeFailure(err: unknown): RpcFailure {
  if (!(err instanceof DevnetError)) return new RpcFailure(1010, 'Invalid Transaction', reasonOf(err));
  const node = (err.details as { nodeError?: { code: number; customError: number } } | undefined)?.nodeError;
  if (node) return new RpcFailure(node.code, 'Invalid Transaction', `Custom error: ${node.customError}`);
  if (err.code === DevnetErrorCode.TX_DUPLICATE) return new RpcFailure(1013, 'Transaction Already Imported');
  if (err.code === DevnetErrorCode.TX_MALFORMED || err.code === DevnetErrorCode.TX_NOT_FINALIZED)
    return new RpcFailure(1002, 'Verification Error', err.message);
  return new RpcFailure(1010, 'Invalid Transaction', err.message);
}
