/**
 * The settings tree (ConfigSchema) and what derives from it: the `Config` type, the flat SETTINGS
 * list and the partial ConfigInput. Each network's group is declared in networks.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { NETWORKS, networkGroup } from './networks.js';
import { KeyPolicySchema } from './key-policy.js';
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
  dust: Type.Object({
    enabled: setting(Type.Boolean(), { env: 'NIGHTGATE_BALANCING_ENABLED', default: true, doc: 'Serve /prove-and-balance and /balance-only' }),
    walletMnemonic: setting(Type.String(), {
      env: 'NIGHTGATE_DUST_WALLET_MNEMONIC',
      default: '',
      secret: true,
      doc:
        "BIP-39 mnemonic of the server wallets: wallet i has the keys Midnight's wallets derive at account `dust.walletAccount`, " +
        'index i (its NIGHT address from role NightExternal, its DUST key from role Dust); docs/going-live.md. One of ' +
        '`dust.walletMnemonic`, `dust.walletMnemonicFile`, `dust.walletSeed`; on the embedded devnet generated when none is set',
    }),
    walletMnemonicFile: setting(Type.String(), {
      env: 'NIGHTGATE_DUST_WALLET_MNEMONIC_FILE',
      default: '',
      doc: 'Path of a file holding the mnemonic (e.g. a systemd credential); refused when other users may read it',
    }),
    walletSeed: setting(Type.String({ pattern: '^([0-9a-fA-F]{128})?$' }), {
      env: 'NIGHTGATE_DUST_WALLET_SEED',
      default: '',
      secret: true,
      doc: 'The 64-byte BIP-39 seed (hex) in place of the mnemonic it comes from',
    }),
    walletCount: setting(Type.Integer({ minimum: 1, maximum: 64 }), {
      env: 'NIGHTGATE_DUST_WALLET_COUNT',
      default: 2,
      doc:
        'Server wallets derived from the mnemonic or seed: indexes 0 to this − 1. Each sponsors on its own DUST UTXOs; two ' +
        'instances must never share one (`dust.walletAccount`)',
    }),
    walletAccount: setting(Type.Integer({ minimum: 0, maximum: 0x7fffffff }), {
      env: 'NIGHTGATE_DUST_WALLET_ACCOUNT',
      default: 0,
      doc: 'HD account the server wallets are derived in (another account per instance when several share one mnemonic)',
    }),
    walletDerivation: setting(Type.Union([Type.Literal('hd'), Type.Literal('legacy')]), {
      env: 'NIGHTGATE_DUST_WALLET_DERIVATION',
      default: 'hd',
      doc:
        "`hd`: Midnight's HD scheme from `dust.walletMnemonic` or `dust.walletSeed`. `legacy`: `dust.walletSeeds`, 32-byte seeds " +
        'in nightgate\'s own derivation (DUST key `DustSecretKey.fromSeed(seed)`, NIGHT key `sha256("nightgate-wallet-night\\0" ‖ ' +
        'seed)`), which no Midnight wallet knows',
    }),
    walletSeeds: setting(Type.Array(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })), {
      env: 'NIGHTGATE_DUST_WALLET_SEEDS',
      default: [],
      secret: true,
      doc: 'With `dust.walletDerivation` `legacy`: hex 32-byte seeds of the server wallets (comma-separated)',
    }),
    reservationTtlMs: setting(Type.Integer({ minimum: 10_000 }), {
      env: 'NIGHTGATE_DUST_RESERVATION_TTL_MS',
      default: 300_000,
      doc: 'A DUST UTXO reservation is reclaimed after this long unless spent',
    }),
    ttlSafetyMs: setting(Type.Integer({ minimum: 5_000 }), {
      env: 'NIGHTGATE_DUST_TTL_SAFETY_MS',
      default: 60_000,
      doc: 'The fee intent expires this long before its reservation can be reclaimed',
    }),
    tableCapacity: setting(Type.Integer({ minimum: 16, maximum: 1_000_000 }), {
      env: 'NIGHTGATE_DUST_TABLE_CAPACITY',
      default: 4_096,
      doc: 'DUST UTXOs tracked per network in the shared allocator table',
    }),
    snapshotBytes: setting(Type.Integer({ minimum: 65_536 }), {
      env: 'NIGHTGATE_DUST_SNAPSHOT_BYTES',
      default: 33_554_432,
      doc: 'Shared memory for the wallet state the workers replicate, per network',
    }),
    spentRetentionMs: setting(PositiveInt, {
      env: 'NIGHTGATE_DUST_SPENT_RETENTION_MS',
      default: 600_000,
      doc: 'Spent DUST UTXOs stay visible in wallet-status this long before their slot is reused',
    }),
    maxInFlight: setting(PositiveInt, { env: 'NIGHTGATE_DUST_MAX_IN_FLIGHT', default: 1_024, doc: 'Sponsorships being computed at once; beyond it → 503' }),
    feeTtlMs: setting(NonNegInt, {
      env: 'NIGHTGATE_DUST_FEE_TTL_MS',
      default: 0,
      doc:
        "Life of a sponsored transaction's fee intent (submit before `expiresAt`); 0 = 5 blocks (30 s at 6 s blocks), or as many " +
        "blocks as this server's own unlanded sponsored transactions fill plus 2 when that is more, up to 12. The fee holds at " +
        "the prices of every block until then, as the ledger's price update raises them under full blocks, so a longer life costs " +
        'more DUST',
    }),
    feeMargin: setting(Type.Integer({ minimum: 0, maximum: 20 }), {
      env: 'NIGHTGATE_DUST_FEE_MARGIN',
      default: 1,
      doc: "Extra blocks of price rise a fee covers beyond those until its intent's TTL",
    }),
    maxReservationsPerKey: setting(PositiveInt, {
      env: 'NIGHTGATE_DUST_MAX_RESERVATIONS_PER_KEY',
      default: 16,
      doc: 'DUST UTXOs one API key may hold reserved at once per network (in flight or answered and not yet spent or reclaimed); beyond → 429 with Retry-After',
    }),
    targetUtxos: setting(NonNegInt, {
      env: 'NIGHTGATE_DUST_TARGET_UTXOS',
      default: 256,
      doc:
        "DUST UTXOs to grow to per network: once fewer than half of those held are free, the server splits its wallets' NIGHT " +
        'into more DUST-generating UTXOs until it holds this many (embedded devnet only; 0 = never)',
    }),
    growAtStart: setting(Type.Boolean(), {
      env: 'NIGHTGATE_DUST_GROW_AT_START',
      default: false,
      doc:
        'Grow each pool to `dust.targetUtxos` from start, demand or not; /readyz answers 503 until it holds them (or its wallets ' +
        'have no NIGHT left to split). Off: the pool grows once demand has taken half of it',
    }),
    maxFee: setting(Speck, {
      env: 'NIGHTGATE_DUST_MAX_FEE',
      default: '5000000000000000',
      doc: 'Per-transaction fee cap in SPECK (a key may set a lower one); over → 403',
    }),
    budget: setting(Speck, {
      env: 'NIGHTGATE_DUST_BUDGET',
      default: '500000000000000000',
      doc: 'DUST (SPECK) one API key may spend per budget window; over → 429',
    }),
    budgetWindowMs: setting(PositiveInt, { env: 'NIGHTGATE_DUST_BUDGET_WINDOW_MS', default: 3_600_000, doc: 'Budget window in ms' }),
    stateDir: setting(Type.String(), {
      env: 'NIGHTGATE_DUST_STATE_DIR',
      default: '',
      doc:
        'Directory for the DUST reservation journal (answered fee intents keep their UTXO reserved across a restart) and the ' +
        "usage ledger's day files (`usage/`, GET /usage); empty = not persisted, set it in production",
    }),
    dedupeWindowMs: setting(PositiveInt, {
      env: 'NIGHTGATE_DUST_DEDUPE_WINDOW_MS',
      default: 300_000,
      doc: 'Same transaction bytes from the same key within this window get the same answer, no second UTXO',
    }),
    checkInputs: setting(Type.Boolean(), {
      env: 'NIGHTGATE_DUST_CHECK_INPUTS',
      default: true,
      doc:
        'Before reserving a DUST UTXO, check every unshielded input of the transaction against the indexer: unspent, its ' +
        "signer's, of the network's ledger era, value and token as claimed (else 400 TRANSACTION_REJECTED naming the input; an " +
        'indexer that cannot answer → 503 INPUTS_UNCHECKED)',
    }),
    inputCheckCacheMs: setting(NonNegInt, {
      env: 'NIGHTGATE_DUST_INPUT_CHECK_CACHE_MS',
      default: 1_000,
      doc: "How long an address's unspent UTXOs read for the input check are trusted; an input not found is read again after 250 ms",
    }),
    expiryMarginMs: setting(NonNegInt, {
      env: 'NIGHTGATE_DUST_EXPIRY_MARGIN_MS',
      default: 10_000,
      doc:
        "An answer's DUST reservation is released this long after its fee intent's TTL (`expiresAt`) when its transaction has not " +
        'landed and the chain the sync follows is past the TTL, instead of at `dust.reservationTtlMs`',
    }),
    throttleSlack: setting(PositiveInt, {
      env: 'NIGHTGATE_DUST_THROTTLE_SLACK',
      default: 10,
      doc:
        'Sponsored answers of one key that may expire without landing beyond those that landed (decayed over ' +
        '`dust.keyHealthWindowMs`) before its `dust.maxReservationsPerKey` share is halved; each further as many halve it again, ' +
        'down to 1; landings win it back',
    }),
    keyHealthWindowMs: setting(PositiveInt, {
      env: 'NIGHTGATE_DUST_KEY_HEALTH_WINDOW_MS',
      default: 600_000,
      doc: 'Time constant of the decay of the per-key counts of answers landed and expired unlanded (`dust.throttleSlack`)',
    }),
  }),
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
