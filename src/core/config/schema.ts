/**
 * The settings tree (ConfigSchema) and what derives from it: the `Config` type, the flat SETTINGS
 * list and the partial ConfigInput. Each network's group is declared in networks.ts, the `dust` group in
 * schema-dust.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { NETWORKS, networkGroup } from './networks.js';
import { KeyPolicySchema } from './key-policy.js';
import { DustSettings } from './schema-dust.js';
import { NonNegInt, Port, PositiveInt, Speck, leavesOf, setting, type Setting } from './setting.js';

export const ApiKeyRecord = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'hex SHA-256 of the raw key' }),
    name: Type.Optional(Type.String({ maxLength: 128 })),
    revoked: Type.Optional(Type.Boolean()),
    rateLimit: Type.Optional(Type.Object({ limit: PositiveInt, windowMs: PositiveInt }, { additionalProperties: false })),
    dustBudget: Type.Optional(Speck),
    maxFee: Type.Optional(Speck),
    admin: Type.Optional(Type.Boolean({ description: "May read every key's usage (GET /usage)" })),
    policy: Type.Optional(KeyPolicySchema),
  },
  { additionalProperties: false },
);
export type ApiKeyRecord = Static<typeof ApiKeyRecord>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Every setting, declared once: groups are typebox objects, leaves are `setting(schema, meta)`.
 * The `Config` type, the flat SETTINGS table (loader, doc table, redaction, reload) and the final
 * check of a loaded configuration all derive from this tree; the doc table follows its order.
 */
export const ConfigSchema = Type.Object({
  server: Type.Object({
    host: setting(Type.String({ minLength: 1 }), { env: 'NIGHTGATE_HOST', default: '127.0.0.1', doc: 'Address to listen on' }),
    port: setting(Port, { env: 'NIGHTGATE_PORT', default: 8080, doc: 'Port to listen on (0 = any free port)' }),
    bodyLimit: setting(PositiveInt, {
      env: 'NIGHTGATE_BODY_LIMIT',
      default: 1_048_576,
      doc: 'Body limit in bytes for transaction routes (/balance-only, /prove-and-balance)',
    }),
    proverBodyLimit: setting(PositiveInt, {
      env: 'NIGHTGATE_PROVER_BODY_LIMIT',
      default: 67_108_864,
      doc: 'Body limit in bytes for proof-server routes (/prove, /verify, /check, /k); proof requests may carry prover keys',
    }),
    bodyBytesInFlight: setting(PositiveInt, {
      env: 'NIGHTGATE_BODY_BYTES_IN_FLIGHT',
      default: 268_435_456,
      doc:
        'What the request bodies the whole server holds at once may cost in memory, each charged a multiple of its length before ' +
        'a byte is read (docs/operations.md#request-bodies-in-flight); beyond → 503 BODY_BUDGET_FULL with Retry-After and the ' +
        'connection closed, the body unread. Default 256 MiB: two /prove bodies of the largest size',
    }),
    bodyBytesPerClient: setting(PositiveInt, {
      env: 'NIGHTGATE_BODY_BYTES_PER_CLIENT',
      default: 134_217_728,
      doc:
        'The same for one client: an API key, or the address (an IPv6 client by its /64) of a client without one ' +
        '(`auth.trustedNetworks`); beyond → 429 CLIENT_BODY_BUDGET_FULL with Retry-After, the body unread. At least the larger ' +
        'body limit; no body is charged more than this. Default 128 MiB: one /prove body of the largest size',
    }),
    maxHeaderBytes: setting(Type.Integer({ minimum: 1024 }), {
      env: 'NIGHTGATE_MAX_HEADER_BYTES',
      default: 16_384,
      doc: 'Total size of the request line and headers; above it → 431, or 414 when the request line alone is longer, and the connection is closed',
    }),
    maxHeaders: setting(Type.Integer({ minimum: 8 }), {
      env: 'NIGHTGATE_MAX_HEADERS',
      default: 64,
      doc:
        'Number of request header fields; above it → 431 (uWS refuses first above 48 fields on Node 20, unanswered, and above 98 ' +
        'on Node 22/24, with its own 431: docs/support.md)',
    }),
    shutdownTimeoutMs: setting(PositiveInt, {
      env: 'NIGHTGATE_SHUTDOWN_TIMEOUT_MS',
      default: 15_000,
      doc: 'How long in-flight requests may run after SIGTERM/SIGINT',
    }),
    trustedProxies: setting(Type.Array(Type.String({ minLength: 1 })), {
      env: 'NIGHTGATE_TRUSTED_PROXIES',
      default: [],
      doc:
        'CIDR list of your reverse proxies: from a peer inside it, the client IP is the first X-Forwarded-For hop from the right ' +
        'outside it (IP literals only); empty = X-Forwarded-For ignored',
    }),
    corsOrigins: setting(Type.Array(Type.String({ minLength: 1, pattern: '^(\\*|https?://[^\\s/,]+)$' })), {
      env: 'NIGHTGATE_CORS_ORIGINS',
      default: ['*'],
      doc:
        'Origins whose pages may read the public routes (CORS, OPTIONS preflight) and open the push WebSocket: `*` = any, a list ' +
        'of `https://host[:port]`, empty = none. Routes that need a key never get CORS',
    }),
    wsConnectionsPerIp: setting(PositiveInt, {
      env: 'NIGHTGATE_WS_CONNECTIONS_PER_IP',
      default: 16,
      doc: 'Push WebSocket connections open at once per client IP (an IPv6 client by its /64); beyond → 429',
    }),
    threads: setting(Type.Integer({ minimum: 1, maximum: 64 }), {
      env: 'NIGHTGATE_SERVER_THREADS',
      default: 1,
      doc:
        "HTTP threads: above 1, one port is served by this many uWS apps (the main thread's and N−1 worker threads'), connections " +
        'spread round-robin; the cached statistics are answered in every thread, everything else in the main thread ' +
        '(docs/scale-out.md). Needs the uWS 20.57 build (Node 22/24, glibc ≥ 2.38)',
    }),
  }),
  log: Type.Object({
    level: setting(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l))), { env: 'NIGHTGATE_LOG_LEVEL', default: 'info', doc: 'pino log level' }),
    requests: setting(Type.Union([Type.Literal('all'), Type.Literal('aggregate'), Type.Literal('errors'), Type.Literal('none')]), {
      env: 'NIGHTGATE_LOG_REQUESTS',
      default: 'aggregate',
      doc:
        "Access log: `aggregate` — a line for every keyed request and every error (status ≥ 400), the public routes' other " +
        'answers counted by route and status in one line a second, and so are repeated refusals, from one address or from many ' +
        '(docs/operations.md#logs); `all` — a line for every request; `errors` — only status ≥ 400; `none`',
    }),
    maxBytesPerSecond: setting(Type.Integer({ minimum: 65_536 }), {
      env: 'NIGHTGATE_LOG_MAX_BYTES_PER_SECOND',
      default: 4_194_304,
      doc:
        'Log bytes written per second; beyond, lines are dropped until the next second, which begins with one warning saying how ' +
        'many were (a flood of requests can otherwise fill a disk and fire every alert on log level). Audit lines are never ' +
        'dropped for it',
    }),
    bufferBytes: setting(Type.Integer({ minimum: 65_536 }), {
      env: 'NIGHTGATE_LOG_BUFFER_BYTES',
      default: 4_194_304,
      doc: 'Log bytes held while stdout is slow; beyond, lines are dropped and counted (`/health` components.log; one warning once stdout catches up)',
    }),
  }),
  metrics: Type.Object({
    enabled: setting(Type.Boolean(), { env: 'NIGHTGATE_METRICS_ENABLED', default: true, doc: 'Serve Prometheus metrics at `/metrics` (docs/operations.md)' }),
    listen: setting(Type.String(), {
      env: 'NIGHTGATE_METRICS_LISTEN',
      default: '',
      doc:
        'Empty: `/metrics` on the main port, for `metrics.allow` and `metrics.keyIds` only. `host:port` (e.g. `10.0.0.5:9464`): ' +
        '`/metrics` only there, to anyone who reaches it',
    }),
    allow: setting(Type.Array(Type.String({ minLength: 1 })), {
      env: 'NIGHTGATE_METRICS_ALLOW',
      default: ['127.0.0.1/32', '::1/128'],
      doc: 'CIDR list that may read `/metrics` on the main port without a key (behind a proxy on the same host, set `server.trustedProxies`)',
    }),
    keyIds: setting(Type.Array(Type.String({ minLength: 1 })), {
      env: 'NIGHTGATE_METRICS_KEY_IDS',
      default: [],
      doc: 'Ids of API keys (`auth.keys`) that may read `/metrics` on the main port from anywhere',
    }),
  }),
  auth: Type.Object({
    keys: setting(Type.Array(ApiKeyRecord), {
      default: [],
      doc:
        'API keys as `{id, sha256, name?, revoked?, rateLimit?, dustBudget?, maxFee?, admin?, policy?}` (policy: ' +
        "docs/policies.md) (config file only; mint with `nightgate keys create`). Ids of nightgate's own accounts are refused: " +
        '`nightgate-*`, `env-<n>`, `dev-generated`',
    }),
    apiKeys: setting(Type.Array(Type.String({ minLength: 8 })), {
      env: 'NIGHTGATE_API_KEYS',
      default: [],
      secret: true,
      doc: 'Development only: comma-separated raw API keys',
    }),
    failureLimit: setting(NonNegInt, {
      env: 'NIGHTGATE_AUTH_FAILURE_LIMIT',
      default: 100,
      doc:
        'Failed authentications per window per client IP (an IPv6 client by its /64); beyond → 429 with Retry-After for every ' +
        'keyed request from that IP, the key unread, until the window admits it. Valid keys never count. 0 = no limit',
    }),
    failureWindowMs: setting(PositiveInt, { env: 'NIGHTGATE_AUTH_FAILURE_WINDOW_MS', default: 60_000, doc: 'Window of auth.failureLimit in ms' }),
    trustedNetworks: setting(Type.Array(Type.String({ minLength: 1 })), {
      env: 'NIGHTGATE_TRUSTED_NETWORKS',
      default: [],
      doc: 'CIDR list whose clients need no API key (for wallets that cannot send headers)',
    }),
  }),
  rateLimit: Type.Object({
    enabled: setting(Type.Boolean(), { env: 'NIGHTGATE_RATE_LIMIT_ENABLED', default: true, doc: 'Rate-limit API keys' }),
    algorithm: setting(Type.Union([Type.Literal('fixed'), Type.Literal('sliding')]), {
      env: 'NIGHTGATE_RATE_LIMIT_ALGORITHM',
      default: 'sliding',
      doc: '`fixed` or `sliding` window',
    }),
    limit: setting(PositiveInt, { env: 'NIGHTGATE_RATE_LIMIT', default: 600, doc: 'Requests per window per API key (a key may override)' }),
    windowMs: setting(PositiveInt, { env: 'NIGHTGATE_RATE_LIMIT_WINDOW_MS', default: 60_000, doc: 'Window length in ms' }),
    publicEnabled: setting(Type.Boolean(), {
      env: 'NIGHTGATE_PUBLIC_RATE_LIMIT_ENABLED',
      default: true,
      doc: 'Rate-limit the public statistics routes per client IP',
    }),
    publicLimit: setting(PositiveInt, { env: 'NIGHTGATE_PUBLIC_RATE_LIMIT', default: 6_000, doc: 'Requests per window per client IP on public routes' }),
    maxEntries: setting(PositiveInt, {
      env: 'NIGHTGATE_RATE_LIMIT_MAX_ENTRIES',
      default: 100_000,
      doc:
        'Cap on tracked clients per scope (API keys, client IPs); beyond it the least recently used client is forgotten, so a new ' +
        'one always gets its own budget',
    }),
  }),
  devnet: Type.Object({
    blockTimeMs: setting(Type.Integer({ minimum: 50 }), {
      env: 'NIGHTGATE_DEVNET_BLOCK_TIME_MS',
      default: 6_000,
      doc: 'Block interval of the embedded devnets',
    }),
    stateDir: setting(Type.String(), { env: 'NIGHTGATE_DEVNET_STATE_DIR', default: '', doc: 'Directory to persist the embedded devnets (empty = in memory)' }),
    retainBlocks: setting(Type.Integer({ minimum: 1 }), {
      env: 'NIGHTGATE_DEVNET_RETAIN_BLOCKS',
      default: 1_000,
      doc:
        "Newest blocks each embedded devnet's indexer keeps in memory; older ones are read back from the state directory, or " +
        'answered as pruned without one (keep it ≥ stats.ringSize)',
    }),
    profile: setting(Type.Union([Type.Literal('default'), Type.Literal('public')]), {
      env: 'NIGHTGATE_DEVNET_PROFILE',
      default: 'default',
      doc:
        '`default`: the server wallets are funded and registered at genesis. `public`: the embedded networks behave as a hosted ' +
        'public one, to rehearse going live (docs/going-live.md): no NIGHT for the server wallets, their indexer and node RPC ' +
        "refuse requests without the network's `projectId` (401), and transactions are taken through the node RPC only",
    }),
    threadNice: setting(Type.Integer({ minimum: 0, maximum: 19 }), {
      env: 'NIGHTGATE_DEVNET_NICE',
      default: 10,
      doc: "Nice value of the embedded devnets' thread (Linux): block production yields the CPU to serving under load; 0 = same priority as the server",
    }),
  }),
  stats: Type.Object({
    lookupCacheSize: setting(PositiveInt, { env: 'NIGHTGATE_STATS_CACHE_SIZE', default: 10_000, doc: 'Entries in the lookup cache per network' }),
    pollIntervalMs: setting(PositiveInt, {
      env: 'NIGHTGATE_STATS_POLL_INTERVAL_MS',
      default: 3_000,
      doc: 'Polling interval when the indexer subscription is unavailable',
    }),
    upstreamTimeoutMs: setting(PositiveInt, { env: 'NIGHTGATE_STATS_UPSTREAM_TIMEOUT_MS', default: 10_000, doc: 'Timeout of one indexer request' }),
    ringSize: setting(Type.Integer({ minimum: 2, maximum: 100_000 }), {
      env: 'NIGHTGATE_STATS_RING_SIZE',
      default: 1_000,
      doc: 'Recent blocks (with their transactions) kept per network and backfilled at start',
    }),
    reconnectMinMs: setting(PositiveInt, {
      env: 'NIGHTGATE_STATS_RECONNECT_MIN_MS',
      default: 500,
      doc: 'First delay before reconnecting the indexer subscription; doubles per failure',
    }),
    reconnectMaxMs: setting(PositiveInt, {
      env: 'NIGHTGATE_STATS_RECONNECT_MAX_MS',
      default: 30_000,
      doc: 'Longest delay between reconnection attempts of the indexer subscription',
    }),
    maxAddressStreams: setting(PositiveInt, {
      env: 'NIGHTGATE_STATS_MAX_ADDRESS_STREAMS',
      default: 32,
      doc:
        'Address-activity lookups open at once per network (each reads one indexer WebSocket subscription); beyond → the expired ' +
        'cached answer if there is one (X-Cache: STALE), else 503 INDEXER_BUSY with Retry-After',
    }),
    maxResponseBytes: setting(PositiveInt, {
      env: 'NIGHTGATE_STATS_MAX_RESPONSE_BYTES',
      default: 4_194_304,
      doc: 'Largest indexer response accepted; bigger ones are an indexer error',
    }),
  }),
  prover: Type.Object({
    threads: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_THREADS', default: 2, doc: 'Worker threads in the proving/balancing pool' }),
    queueSize: setting(NonNegInt, { env: 'NIGHTGATE_PROVER_QUEUE_SIZE', default: 256, doc: 'Tasks that may wait for a worker; beyond it → 503' }),
    abortGraceMs: setting(NonNegInt, {
      env: 'NIGHTGATE_PROVER_ABORT_GRACE_MS',
      default: 500,
      doc:
        'When a client leaves while its task runs, how long the task may still take before its worker thread is ended (a new ' +
        'thread reloads ledger-v8); its result is discarded either way. 0 ends the thread at once',
    }),
    defaultNetwork: setting(Type.Union(NETWORKS.map((n) => Type.Literal(n))), {
      env: 'NIGHTGATE_PROVER_DEFAULT_NETWORK',
      default: 'preview',
      doc: 'Network of a proving request that names none (`X-Midnight-Network` header or `?network=`)',
    }),
    upstreamUrl: setting(Type.String(), {
      env: 'NIGHTGATE_PROVER_URL',
      default: '',
      doc: 'Default proof server URL for the upstream backend (e.g. http://127.0.0.1:6300)',
    }),
    timeoutMs: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_TIMEOUT_MS', default: 600_000, doc: 'Timeout of one proof' }),
    cacheTtlMs: setting(NonNegInt, { env: 'NIGHTGATE_PROVER_CACHE_TTL_MS', default: 30_000, doc: 'How long /prove and /verify results are cached' }),
    cacheMaxBytes: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_CACHE_MAX_BYTES', default: 67_108_864, doc: 'Memory cap of the proof result cache' }),
    nativeBinary: setting(Type.String(), { env: 'NIGHTGATE_PROVER_BINARY', default: '', doc: 'Path of `midnight-proof-server` for the native backend' }),
    nativePort: setting(Port, {
      env: 'NIGHTGATE_PROVER_NATIVE_PORT',
      default: 6300,
      doc: 'Loopback port for the supervised proof server (0 = pick a free one)',
    }),
    nativeArgs: setting(Type.Array(Type.String()), {
      env: 'NIGHTGATE_PROVER_NATIVE_ARGS',
      default: [],
      doc: 'Extra arguments for the proof server (comma-separated)',
    }),
    nativeReadyTimeoutMs: setting(PositiveInt, {
      env: 'NIGHTGATE_PROVER_NATIVE_READY_TIMEOUT_MS',
      default: 120_000,
      doc: 'How long the supervised proof server may take to answer /ready after a start (it may fetch parameters first)',
    }),
    nativeStopGraceMs: setting(PositiveInt, {
      env: 'NIGHTGATE_PROVER_NATIVE_STOP_GRACE_MS',
      default: 10_000,
      doc: 'After SIGTERM, how long the supervised proof server may take to exit before SIGKILL',
    }),
    keyDir: setting(Type.String(), { env: 'NIGHTGATE_PROVER_KEY_DIR', default: '', doc: 'Key material directory in the MIDNIGHT_PP layout (wasm backend)' }),
  }),
  dust: DustSettings,
  state: Type.Object({
    redisUrl: setting(Type.String(), {
      env: 'NIGHTGATE_REDIS_URL',
      default: '',
      doc:
        'Redis shared by several instances (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS): per-key rate limits, ' +
        'DUST budgets and reservation shares, failed-login counts and sponsorship dedupe are then shared, and each instance ' +
        'leases its DUST wallets (docs/scale-out.md). Empty = this process alone, in memory. Credentials are redacted wherever it ' +
        'is printed',
    }),
    leaseTtlMs: setting(Type.Integer({ minimum: 1_000 }), {
      env: 'NIGHTGATE_WALLET_LEASE_TTL_MS',
      default: 15_000,
      doc:
        "With state.redisUrl: expiry of an instance's lease on each of its DUST wallets, renewed every third of it; a lease not " +
        "renewed in time stops sponsorship on that network (503 WALLET_LEASE_LOST), and a stopped instance's wallets are free " +
        'again this long after it stopped renewing',
    }),
  }),
  networks: Type.Object({ mainnet: networkGroup('mainnet'), preprod: networkGroup('preprod'), preview: networkGroup('preview') }),
});

export type Config = Static<typeof ConfigSchema>;

export const SETTINGS: readonly Setting[] = leavesOf(ConfigSchema, '');

/** Deep partial config, for tests and for the JSON file. */
export type ConfigInput = {
  [K in keyof Config]?: Config[K] extends readonly unknown[]
    ? Config[K]
    : Config[K] extends object
      ? { [P in keyof Config[K]]?: Config[K][P] extends object ? Partial<Config[K][P]> : Config[K][P] }
      : Config[K];
};
