/**
 * The statistics routes as records (src/core/http/route.ts): URL, schema (which also feeds the
 * OpenAPI document) and handler. Derived routes answer synchronously with a pre-rendered Reply;
 * lookups answer from the cache synchronously on a hit and asynchronously otherwise.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { NETWORKS } from '../../core/config/index.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext, ResponseDoc, RouteDef } from '../../core/http/route.js';
import type { TopicDoc } from '../../core/http/openapi.js';
import type { NetworkStats } from './network-stats.js';
import { MAX_LIMIT, parseHash, parseHeight, parseIdentifier, parseLimit, parseSearch, parseSerializedHex } from './params.js';
import * as S from './schemas.js';
import { DEFAULT_RECENT_LIMIT, type DerivedRoute } from './views.js';

const DEFAULT_ACTIVITY_LIMIT = 20;

const NetworkParam = Type.Object({
  network: Type.Union(
    NETWORKS.map((n) => Type.Literal(n)),
    { description: 'mainnet, preprod or preview' },
  ),
});

const CACHE_HEADERS = {
  'Cache-Control': 'How long the answer stays fresh (see the route description)',
  ETag:
    "Validator of the body, one per Content-Encoding; send it back in If-None-Match for a 304 (the summary's is weak: it " +
    'follows the data, not the clock fields that change every second)',
  'Content-Encoding': 'gzip or br when Accept-Encoding allows it and the body is 1 KiB or more',
  Vary: 'Accept-Encoding, on answers whose body is 1 KiB or more',
};
const AGE_HEADER = { Age: 'Only with X-Cache: STALE: seconds since the served data was fetched' };
/** Rendered from the block window the follower keeps current, never fetched per request. */
const DERIVED_HEADERS = {
  ...CACHE_HEADERS,
  'X-Cache':
    'HIT (rendered from the blocks the follower keeps current) or STALE (the indexer is failing: the last data, with Age in ' +
    'seconds since the indexer last answered)',
  ...AGE_HEADER,
};
const LOOKUP_HEADERS = {
  ...CACHE_HEADERS,
  'X-Cache':
    'HIT (served from the cache), MISS (fetched from the indexer now) or STALE (the indexer failed, or every address stream ' +
    'was in use: an expired cached copy, with Age)',
  ...AGE_HEADER,
};

const STATUS_DOCS = {
  304: { description: 'Not Modified: If-None-Match matched the ETag' },
  400: { description: 'INVALID_PARAMETER: a parameter is missing or malformed; the message names it' },
  405: { description: 'METHOD_NOT_ALLOWED: only GET' },
  429: { description: 'RATE_LIMITED: too many requests from this client IP' },
  500: {
    description:
      'The indexer failed and nothing is cached: INDEXER_UNAVAILABLE (unreachable), INDEXER_TIMEOUT (too slow) or ' +
      'INDEXER_BAD_RESPONSE (errors or malformed data)',
  },
  503: { description: 'NOT_READY: no data received from the indexer yet (Retry-After); or SHUTTING_DOWN' },
} satisfies Record<number, ResponseDoc>;
/** The 503 of the lookups that may read an address from the indexer's WebSocket (address activity, search). */
const BUSY_503: ResponseDoc = {
  description:
    'INDEXER_BUSY: every address stream this network may open to the indexer (stats.maxAddressStreams) is in use and no ' +
    'earlier answer is cached (one that is is served instead, X-Cache: STALE); retry after Retry-After. Or SHUTTING_DOWN',
  headers: { 'Retry-After': 'Seconds to wait before retrying' },
};
const UNKNOWN_NETWORK = 'UNKNOWN_NETWORK: not one of mainnet, preprod, preview, or not served by this instance';

/** What a client may send on the push channel: nothing is read. */
const PushClientMessage = Type.String({
  $id: 'PushClientMessage',
  description:
    'The server reads nothing from the client: any message up to 1024 bytes is discarded; a larger one closes the connection. ' +
    "Keep-alive is the protocol's ping/pong, which the server sends itself.",
});

/** The push channel of `/api/v1/{network}/ws`, for the OpenAPI document (openapi.ts, TopicDoc). */
export const PUSH_CHANNEL_DOC: TopicDoc = {
  summary: 'Push channel (WebSocket): the summary on connect and on every new block',
  description:
    'A WebSocket (RFC 6455), opened by this GET with `Upgrade: websocket`. The server sends the current summary at once (when the network has data), ' +
    'then the summary again on every new block: each message is a text frame holding exactly the body of `GET ' +
    '/api/v1/{network}/summary` (the `Summary` schema). ' +
    'OpenAPI 3.1 has no WebSocket object: the messages are described in the `x-websocket` extension of this operation (`serverMessages`, `clientMessages`). ' +
    "Browsers may open it from this server's own pages (the dashboard at `/`) and from an origin in `server.corsOrigins`; at " +
    'most `server.wsConnectionsPerIp` sockets per client IP (IPv6 by /64).',
  tags: ['statistics'],
  params: NetworkParam,
  serverMessage: S.Summary,
  clientMessage: PushClientMessage,
  refusals: {
    403: { description: "ORIGIN_NOT_ALLOWED: the page's Origin is neither in server.corsOrigins nor this server itself" },
    404: { description: UNKNOWN_NETWORK },
    429: {
      description: 'TOO_MANY_CONNECTIONS: this client IP holds server.wsConnectionsPerIp sockets already',
      headers: { 'Retry-After': 'Seconds to wait before retrying' },
    },
    503: { description: 'SHUTTING_DOWN' },
  },
  extension: {
    welcome: 'The current summary, sent on open (none while the network has no data yet)',
    pushedOn: 'Every new block the follower receives',
    keepAlive: 'The server pings; a socket idle for 120 s is closed',
    closeCodes: { 1001: 'The server is shutting down' },
    maxClientMessageBytes: 1024,
  },
};

interface RouteSpec {
  path: string;
  summary: string;
  description: string;
  ok: TSchema;
  headers: Record<string, string>;
  query?: TObject;
  /** What a 404 means here besides an unknown network. */
  notFound?: string;
  /** Statuses beyond 200, 304, 404, 405, 429, 503. */
  extra: ReadonlyArray<400 | 500>;
  /** Opens address streams: its 503 also means INDEXER_BUSY. */
  addressStreams?: true;
  handler(ctx: RequestContext, net: NetworkStats): ReturnType<RouteDef['handler']>;
}

export function statsRoutes(nets: ReadonlyMap<string, NetworkStats>): RouteDef[] {
  const netOf = (ctx: RequestContext): NetworkStats => {
    const net = nets.get(ctx.params['network']!);
    if (net) return net;
    const name = ctx.params['network']!;
    throw new GatewayError('UNKNOWN_NETWORK', (NETWORKS as readonly string[]).includes(name) ? `Network ${name} is not served by this instance` : undefined);
  };
  const derived = (route: DerivedRoute, summary: string, ok: TSchema, description: string, notFound?: string): RouteSpec => ({
    path: route,
    summary,
    ok,
    description,
    extra: [500],
    headers: DERIVED_HEADERS,
    ...(notFound ? { notFound } : {}),
    handler: (ctx, net) => net.views.get(route, ctx.receivedAt),
  });
  const specs: RouteSpec[] = [
    derived(
      'summary',
      'Everything at once',
      S.Summary,
      'Each field is exactly the body of its own route. Rendered at most once per second; also pushed on every new block over ' +
        '`GET /api/v1/{network}/ws` (WebSocket). `public, max-age=1`. While the indexer fails, the cached data is served with ' +
        '`status: degraded` and its `dataAgeSeconds`.',
    ),
    derived('latest-block', 'Latest block', S.LatestBlock, '`ageSeconds` is current to the second. `public, max-age=1`.'),
    derived(
      'block-time',
      'Average block time',
      S.BlockTime,
      'Over the latest 100 block intervals (fewer while the window is shorter). Fresh until the next block is due: `public, max-age=1..6`.',
    ),
    derived('blocks-produced', 'Blocks produced and estimated production', S.BlocksProduced, 'Estimates from the average block time. `public, max-age=1..6`.'),
    derived('uptime', 'Network liveness', S.Uptime, '`healthy` when the indexer answers and the score is at least 0.8. `public, max-age=1`.'),
    derived(
      'epoch',
      'Current epoch',
      S.Epoch,
      'From the indexer (`currentEpochInfo`) or, without it, from chain time where the epoch length is fixed by the chain spec ' +
        '(preview, preprod: 300 slots of 6 s); otherwise 404. `public, max-age=1`.',
      'EPOCH_UNAVAILABLE',
    ),
    derived(
      'd-parameter',
      'D-parameter (committee composition)',
      S.DParameter,
      "From the latest block's system parameters and the D-parameter history. `public, max-age=1..6`.",
      'D_PARAMETER_UNAVAILABLE',
    ),
    {
      path: 'night-supply',
      summary: 'NIGHT total supply',
      ok: S.NightSupply,
      headers: { ...CACHE_HEADERS, 'X-Cache': 'HIT: a constant, rendered at start-up' },
      extra: [],
      description: 'A protocol constant (24 billion NIGHT, 10^6 STAR each) with its source; not read from the chain. `public, max-age=86400`.',
      handler: (_ctx, net) => net.views.nightSupply,
    },
    {
      path: 'recent-transactions',
      summary: 'Latest transactions',
      ok: S.RecentTransactions,
      headers: DERIVED_HEADERS,
      extra: [400, 500],
      description: `Newest first, from the recent-block window. Rendered once per block. \`public, max-age=1..6\`.`,
      query: Type.Object({
        limit: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: MAX_LIMIT,
            default: DEFAULT_RECENT_LIMIT,
            description: `1..${MAX_LIMIT}, default ${DEFAULT_RECENT_LIMIT}; decimal digits, no sign, leading zero or space`,
          }),
        ),
      }),
      handler: (ctx, net) =>
        net.views.recentTransactions(ctx.query === '' ? DEFAULT_RECENT_LIMIT : parseLimit(ctx.searchParams.get('limit'), DEFAULT_RECENT_LIMIT), ctx.receivedAt),
    },
    {
      path: 'search',
      summary: 'Find a block, transaction, contract or address',
      ok: S.SearchResult,
      headers: LOOKUP_HEADERS,
      extra: [400, 500],
      notFound: 'SEARCH_NO_MATCH',
      addressStreams: true,
      description:
        'A decimal `q` is a block height; hex is tried, in one indexer request, as block hash, transaction hash, transaction ' +
        'identifier and contract address (in that order), then as an unshielded address; `mn_addr…` is an address. Reading an ' +
        "address takes one of the network's `stats.maxAddressStreams` indexer streams: with none free, an expired cached answer " +
        '(X-Cache: STALE) or else 503 INDEXER_BUSY. `public, max-age=6`.',
      query: Type.Object(
        { q: Type.String({ minLength: 1, description: 'Height, hex hash / identifier / contract address, or mn_addr… address' }) },
        { required: ['q'] },
      ),
      handler: (ctx, net) => {
        const q = ctx.searchParams.get('q');
        const parsed = parseSearch(q, net.source.networkId);
        return net.lookups.search(parsed, q!.trim(), () => ctx.signal);
      },
    },
    {
      path: 'block',
      summary: 'A block with its transactions',
      ok: S.BlockDetail,
      headers: LOOKUP_HEADERS,
      extra: [400, 500],
      notFound: 'BLOCK_NOT_FOUND',
      description:
        'By `height` or by `hash` (one of them). By hash the body can never change: `public, max-age=31536000, immutable`. By ' +
        'height below the tip: `public, max-age=3600` (testnets get reset); the tip: `public, max-age=6`.',
      query: Type.Object({
        height: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 2_147_483_647,
            description: 'Block height, written as decimal digits with no sign, leading zero or space (`01` is 400 INVALID_PARAMETER)',
          }),
        ),
        hash: Type.Optional(Type.String({ pattern: '^(0x)?[0-9a-fA-F]{64}$', description: 'Block hash (64 hex)' })),
      }),
      handler: (ctx, net) => {
        const sp = ctx.searchParams;
        const height = sp.get('height');
        const hash = sp.get('hash');
        if (height !== null && hash !== null) throw new GatewayError('INVALID_PARAMETER', 'give either height or hash, not both');
        if (height === null && hash === null) throw new GatewayError('INVALID_PARAMETER', 'height or hash is required');
        return net.lookups.block(hash !== null ? { hash: parseHash(hash, 'hash') } : { height: parseHeight(height) }, () => ctx.signal);
      },
    },
    {
      path: 'transaction',
      summary: 'A transaction: fees, status, identifiers, contract actions, UTXOs',
      ok: S.TransactionDetail,
      headers: LOOKUP_HEADERS,
      extra: [400, 500],
      notFound: 'TRANSACTION_NOT_FOUND',
      description: 'Below the tip: `public, max-age=3600`; in the tip block: `public, max-age=6`.',
      query: Type.Object({ hash: Type.String({ pattern: '^(0x)?[0-9a-fA-F]{64}$', description: 'Transaction hash (64 hex)' }) }, { required: ['hash'] }),
      handler: (ctx, net) => net.lookups.transaction(parseHash(ctx.searchParams.get('hash'), 'hash'), () => ctx.signal),
    },
    {
      path: 'contract',
      summary: 'A contract: latest action, balances, state root',
      ok: S.ContractDetail,
      headers: LOOKUP_HEADERS,
      extra: [400, 500],
      notFound: 'CONTRACT_NOT_FOUND',
      description: 'Changes with every call: `public, max-age=6`.',
      query: Type.Object({ address: Type.String({ description: 'Contract address (hex)' }) }, { required: ['address'] }),
      handler: (ctx, net) => net.lookups.contract(parseSerializedHex(ctx.searchParams.get('address'), 'address'), () => ctx.signal),
    },
    {
      path: 'address-activity',
      summary: 'Transactions and UTXOs of an unshielded address',
      ok: S.AddressActivity,
      headers: LOOKUP_HEADERS,
      extra: [400, 500],
      addressStreams: true,
      description:
        'Every unspent UTXO (value, token type, intent hash, output index: what a wallet needs to build a spend) and the newest ' +
        '`limit` transactions. An address with no activity is no error: 200 with empty lists (`transactionCount: 0`); a malformed ' +
        "one is 400 INVALID_PARAMETER. Reading an address takes one of the network's `stats.maxAddressStreams` indexer streams: " +
        'with none free, an expired cached answer (X-Cache: STALE) or else 503 INDEXER_BUSY (Retry-After). `public, max-age=6`.',
      query: Type.Object(
        {
          identifier: Type.String({ description: '64-hex address or Bech32m mn_addr… address of this network' }),
          limit: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: MAX_LIMIT,
              default: DEFAULT_ACTIVITY_LIMIT,
              description: `1..${MAX_LIMIT}, default ${DEFAULT_ACTIVITY_LIMIT}; decimal digits, no sign, leading zero or space`,
            }),
          ),
        },
        { required: ['identifier'] },
      ),
      handler: (ctx, net) => {
        const sp = ctx.searchParams;
        const address = parseIdentifier(sp.get('identifier'), net.source.networkId);
        return net.lookups.addressActivity(address, parseLimit(sp.get('limit'), DEFAULT_ACTIVITY_LIMIT), () => ctx.signal);
      },
    },
  ];

  return specs.map((spec): RouteDef => {
    const response: Record<number, ResponseDoc> = {
      200: { description: 'OK', schema: spec.ok, headers: spec.headers },
      304: STATUS_DOCS[304],
      404: { description: spec.notFound ? `${spec.notFound}; or ${UNKNOWN_NETWORK}` : UNKNOWN_NETWORK },
      405: STATUS_DOCS[405],
      429: STATUS_DOCS[429],
      503: spec.addressStreams ? BUSY_503 : STATUS_DOCS[503],
    };
    for (const s of spec.extra) response[s] = STATUS_DOCS[s];
    return {
      method: 'GET',
      url: `/api/v1/:network/${spec.path}`,
      auth: 'none',
      rateLimit: 'ip',
      schema: {
        summary: spec.summary,
        description: spec.description,
        tags: ['statistics'],
        params: NetworkParam,
        ...(spec.query ? { querystring: spec.query } : {}),
        response,
      },
      handler: (ctx) => {
        try {
          const out = spec.handler(ctx, netOf(ctx));
          return out instanceof Promise ? out.catch(uncacheable) : out;
        } catch (err) {
          return uncacheable(err);
        }
      },
    };
  });
}

/**
 * Errors are never stored by caches (RFC 9111 §5.2.2.5): a 404 for a block not produced yet or
 * a 500 from a failing indexer may be wrong a second later.
 */
function uncacheable(err: unknown): never {
  if (err instanceof GatewayError)
    throw new GatewayError(err.code, err.message, { headers: { ...err.headers, 'Cache-Control': 'no-store' }, cause: err.cause });
  throw err;
}
