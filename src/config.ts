/**
 * Configuration: one typebox tree of every setting (ConfigSchema), from which the `Config` type and
 * the settings table derive; read from the environment and an optional JSON file
 * (`NIGHTGATE_CONFIG`), validated at start, frozen. This is the only module that reads
 * `process.env`. A bad value fails start-up with a message naming the setting and its env var.
 *
 * Precedence: built-in default < JSON file < environment.
 */
import { readFileSync } from 'node:fs';
import { KindGuard, Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { redactDeep, redactUrl } from './url-redaction.js';
import { CidrList } from './pipeline/cidr.js';
import { reservedKeyId } from './pipeline/key-ids.js';

export const NETWORKS = ['mainnet', 'preprod', 'preview'] as const;
export type NetworkName = (typeof NETWORKS)[number];
export const PROVER_BACKENDS = ['dev', 'upstream', 'native', 'wasm'] as const;
export type ProverBackendName = (typeof PROVER_BACKENDS)[number];

/** The public Midnight indexers (LEDGER.md, "Indexer"), used when a network's indexer is `public`. */
export const PUBLIC_INDEXERS: Record<NetworkName, string> = {
  mainnet: 'https://indexer.mainnet.midnight.network/api/v4/graphql',
  preprod: 'https://indexer.preprod.midnight.network/api/v4/graphql',
  preview: 'https://indexer.preview.midnight.network/api/v4/graphql',
};

const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const PositiveInt = Type.Integer({ minimum: 1 });
const NonNegInt = Type.Integer({ minimum: 0 });
/** Amounts of DUST in SPECK exceed 2^53, so they are decimal strings. */
const Speck = Type.String({ pattern: '^[0-9]{1,40}$' });

export const ApiKeyRecord = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'hex SHA-256 of the raw key' }),
    name: Type.Optional(Type.String({ maxLength: 128 })),
    revoked: Type.Optional(Type.Boolean()),
    rateLimit: Type.Optional(Type.Object({ limit: PositiveInt, windowMs: PositiveInt }, { additionalProperties: false })),
    dustBudget: Type.Optional(Speck),
    maxFee: Type.Optional(Speck),
  },
  { additionalProperties: false },
);
export type ApiKeyRecord = Static<typeof ApiKeyRecord>;

/** What a setting carries besides its schema: where it is read from, its default, its doc row. */
interface SettingMeta<T> {
  /** Environment variable; absent for file-only settings. */
  readonly env?: string;
  readonly default: T;
  readonly secret?: true;
  readonly doc: string;
}

/** Where a leaf of the settings tree keeps its SettingMeta; validators ignore unknown keywords. */
const META = 'x-setting';
type TSetting<T extends TSchema> = T & { readonly [META]: SettingMeta<Static<T>> };

/**
 * A leaf of the settings tree: a copy of `schema` (shared ones such as Port stay untouched) with
 * its meta. The default is typed by the schema, so a default that disagrees with it does not compile.
 */
function setting<T extends TSchema>(schema: T, meta: SettingMeta<Static<T>>): TSetting<T> {
  return { ...schema, [META]: meta };
}

function isSetting(schema: TSchema): schema is TSetting<TSchema> {
  return META in schema;
}

/** One network's settings: the same for each network, their env vars named after it. */
const networkGroup = (n: NetworkName) => {
  const N = n.toUpperCase();
  return Type.Object({
    indexer: setting(Type.String({ minLength: 1 }), { env: `NIGHTGATE_${N}_INDEXER`, default: 'embedded', doc: `Indexer for ${n}: \`embedded\` (built-in devnet), \`public\` (${PUBLIC_INDEXERS[n]}) or an http(s) GraphQL URL` }),
    indexerWs: setting(Type.String(), { env: `NIGHTGATE_${N}_INDEXER_WS`, default: '', doc: `WebSocket URL of the ${n} indexer; empty = derived from the indexer URL (\`…/graphql/ws\`)` }),
    networkId: setting(Type.String({ pattern: '^[a-z0-9-]*$' }), { env: `NIGHTGATE_${N}_NETWORK_ID`, default: '', doc: `Ledger network id of the ${n} chain behind an indexer (what its transactions and addresses are built for); empty = \`${n}\`. An embedded devnet uses its own (\`undeployed\`)` }),
    nodeRpc: setting(Type.String(), { env: `NIGHTGATE_${N}_NODE_RPC`, default: '', doc: `Node JSON-RPC URL for ${n} (http(s), e.g. \`http://127.0.0.1:9944\`), read only for what the indexer lacks: the epoch (\`sidechain_getStatus\`) when it has no \`currentEpochInfo\`, the D-parameter (\`systemParameters_getDParameter\`) when no block carries system parameters; empty = not used` }),
    prover: setting(Type.Union([Type.Literal(''), ...PROVER_BACKENDS.map((b) => Type.Literal(b))]), { env: `NIGHTGATE_${N}_PROVER`, default: '', doc: `Prover backend for ${n}: dev, upstream, native, wasm; empty = \`dev\` on the embedded devnet, \`upstream\` otherwise` }),
    proverUrl: setting(Type.String(), { env: `NIGHTGATE_${N}_PROVER_URL`, default: '', doc: `Proof server URL for ${n} (upstream backend); empty = \`prover.upstreamUrl\`` }),
    devnet: Type.Object({
      // The runtime check is an integer in 8..9; the type says what that means: a ledger era.
      ledger: setting(Type.Unsafe<8 | 9>(Type.Integer({ minimum: 8, maximum: 9 })), { env: `NIGHTGATE_${N}_DEVNET_LEDGER`, default: 9, doc: `Ledger era the embedded devnet runs for ${n} (9, as every public network; 8 for the previous era). Ignored when ${n} is served by another indexer: its era is read from the chain` }),
      ledger9AtHeight: setting(NonNegInt, { env: `NIGHTGATE_${N}_DEVNET_LEDGER9_AT_HEIGHT`, default: 0, doc: `With \`devnet.ledger\` 8: the block height at which the embedded ${n} devnet switches to ledger 9, from a fresh ledger-9 state that re-funds the same accounts and server wallets (no state migration exists); 0 = never` }),
    }),
    submitUrl: setting(Type.String(), { env: `NIGHTGATE_${N}_SUBMIT_URL`, default: '', doc: `Where the DUST pool keeper submits its splits on ${n}: an http(s) endpoint taking a finalized transaction's bytes by POST (the embedded devnet's \`/submit\` contract: 202 or 200 when accepted), e.g. the operator's relay to a node; empty: the devnet's own on an embedded network, else the pool does not grow by itself` }),
  });
};

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
    bodyLimit: setting(PositiveInt, { env: 'NIGHTGATE_BODY_LIMIT', default: 1_048_576, doc: 'Body limit in bytes for transaction routes (/balance-only, /prove-and-balance)' }),
    proverBodyLimit: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_BODY_LIMIT', default: 67_108_864, doc: 'Body limit in bytes for proof-server routes (/prove, /verify, /check, /k); proof requests may carry prover keys' }),
    bodyBytesInFlight: setting(PositiveInt, { env: 'NIGHTGATE_BODY_BYTES_IN_FLIGHT', default: 268_435_456, doc: 'Request-body bytes the whole server holds at once (bodies being read, and read but not yet answered), counted from Content-Length before a byte is read, or chunk by chunk; beyond → 503 BODY_BUDGET_FULL with Retry-After and the connection closed, the body unread. Default 256 MiB: four /prove bodies of the largest size, ≈ 0.8 GiB of process memory with their copies' }),
    bodyBytesPerClient: setting(PositiveInt, { env: 'NIGHTGATE_BODY_BYTES_PER_CLIENT', default: 134_217_728, doc: 'Request-body bytes one client holds at once: an API key, or the address (an IPv6 client by its /64) of a client without one (`auth.trustedNetworks`); beyond → 429 CLIENT_BODY_BUDGET_FULL with Retry-After, the body unread. At least the larger body limit. Default 128 MiB: two /prove bodies of the largest size' }),
    maxHeaderBytes: setting(Type.Integer({ minimum: 1024 }), { env: 'NIGHTGATE_MAX_HEADER_BYTES', default: 16_384, doc: 'Total size of the request line and headers; above it → 431, or 414 when the request line alone is longer, and the connection is closed' }),
    maxHeaders: setting(Type.Integer({ minimum: 8 }), { env: 'NIGHTGATE_MAX_HEADERS', default: 64, doc: 'Number of request header fields; above it → 431 (uWS refuses first above 48 fields on Node 20, unanswered, and above 98 on Node 22/24, with its own 431: docs/support.md)' }),
    shutdownTimeoutMs: setting(PositiveInt, { env: 'NIGHTGATE_SHUTDOWN_TIMEOUT_MS', default: 15_000, doc: 'How long in-flight requests may run after SIGTERM/SIGINT' }),
    trustedProxies: setting(Type.Array(Type.String({ minLength: 1 })), { env: 'NIGHTGATE_TRUSTED_PROXIES', default: [], doc: 'CIDR list of your reverse proxies: from a peer inside it, the client IP is the first X-Forwarded-For hop from the right outside it (IP literals only); empty = X-Forwarded-For ignored' }),
    corsOrigins: setting(Type.Array(Type.String({ minLength: 1, pattern: '^(\\*|https?://[^\\s/,]+)$' })), { env: 'NIGHTGATE_CORS_ORIGINS', default: ['*'], doc: 'Origins whose pages may read the public routes (CORS, OPTIONS preflight) and open the push WebSocket: `*` = any, a list of `https://host[:port]`, empty = none. Routes that need a key never get CORS' }),
    wsConnectionsPerIp: setting(PositiveInt, { env: 'NIGHTGATE_WS_CONNECTIONS_PER_IP', default: 16, doc: 'Push WebSocket connections open at once per client IP (an IPv6 client by its /64); beyond → 429' }),
    threads: setting(Type.Integer({ minimum: 1, maximum: 64 }), { env: 'NIGHTGATE_SERVER_THREADS', default: 1, doc: 'HTTP threads: above 1, one port is served by this many uWS apps (the main thread\'s and N−1 worker threads\'), connections spread round-robin; the cached statistics are answered in every thread, everything else in the main thread (docs/scale-out.md). Needs the uWS 20.57 build (Node 22/24, glibc ≥ 2.38)' }),
  }),
  log: Type.Object({
    level: setting(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l))), { env: 'NIGHTGATE_LOG_LEVEL', default: 'info', doc: 'pino log level' }),
    requests: setting(Type.Union([Type.Literal('all'), Type.Literal('aggregate'), Type.Literal('errors'), Type.Literal('none')]), { env: 'NIGHTGATE_LOG_REQUESTS', default: 'aggregate', doc: 'Access log: `aggregate` — a line for every keyed request and every error (status ≥ 400), the public routes\' other answers counted by route and status in one line a second, and so are an address\'s repeated refusals (its 429s after the first in a second, its 4xx of one code after the first five), by address and code; `all` — a line for every request; `errors` — only status ≥ 400; `none`' }),
    maxBytesPerSecond: setting(Type.Integer({ minimum: 65_536 }), { env: 'NIGHTGATE_LOG_MAX_BYTES_PER_SECOND', default: 4_194_304, doc: 'Log bytes written per second; beyond, lines are dropped until the next second, which begins with one warning saying how many were (a flood of requests can otherwise fill a disk and fire every alert on log level)' }),
    bufferBytes: setting(Type.Integer({ minimum: 65_536 }), { env: 'NIGHTGATE_LOG_BUFFER_BYTES', default: 4_194_304, doc: 'Log bytes held while stdout is slow; beyond, lines are dropped and counted (`/health` components.log; one warning once stdout catches up)' }),
  }),
  metrics: Type.Object({
    enabled: setting(Type.Boolean(), { env: 'NIGHTGATE_METRICS_ENABLED', default: true, doc: 'Serve Prometheus metrics at `/metrics` (docs/operations.md)' }),
    listen: setting(Type.String(), { env: 'NIGHTGATE_METRICS_LISTEN', default: '', doc: 'Empty: `/metrics` on the main port, for `metrics.allow` and `metrics.keyIds` only. `host:port` (e.g. `10.0.0.5:9464`): `/metrics` only there, to anyone who reaches it' }),
    allow: setting(Type.Array(Type.String({ minLength: 1 })), { env: 'NIGHTGATE_METRICS_ALLOW', default: ['127.0.0.1/32', '::1/128'], doc: 'CIDR list that may read `/metrics` on the main port without a key (behind a proxy on the same host, set `server.trustedProxies`)' }),
    keyIds: setting(Type.Array(Type.String({ minLength: 1 })), { env: 'NIGHTGATE_METRICS_KEY_IDS', default: [], doc: 'Ids of API keys (`auth.keys`) that may read `/metrics` on the main port from anywhere' }),
  }),
  auth: Type.Object({
    keys: setting(Type.Array(ApiKeyRecord), { default: [], doc: 'API keys as `{id, sha256, name?, revoked?, rateLimit?, dustBudget?, maxFee?}` (config file only; mint with `nightgate keys create`). Ids of nightgate\'s own accounts are refused: `nightgate-*`, `env-<n>`, `dev-generated`' }),
    apiKeys: setting(Type.Array(Type.String({ minLength: 8 })), { env: 'NIGHTGATE_API_KEYS', default: [], secret: true, doc: 'Development only: comma-separated raw API keys' }),
    failureLimit: setting(NonNegInt, { env: 'NIGHTGATE_AUTH_FAILURE_LIMIT', default: 100, doc: 'Failed authentications per window per client IP (an IPv6 client by its /64); beyond → 429 with Retry-After for every keyed request from that IP, the key unread, until the window admits it. Valid keys never count. 0 = no limit' }),
    failureWindowMs: setting(PositiveInt, { env: 'NIGHTGATE_AUTH_FAILURE_WINDOW_MS', default: 60_000, doc: 'Window of auth.failureLimit in ms' }),
    trustedNetworks: setting(Type.Array(Type.String({ minLength: 1 })), { env: 'NIGHTGATE_TRUSTED_NETWORKS', default: [], doc: 'CIDR list whose clients need no API key (for wallets that cannot send headers)' }),
  }),
  rateLimit: Type.Object({
    enabled: setting(Type.Boolean(), { env: 'NIGHTGATE_RATE_LIMIT_ENABLED', default: true, doc: 'Rate-limit API keys' }),
    algorithm: setting(Type.Union([Type.Literal('fixed'), Type.Literal('sliding')]), { env: 'NIGHTGATE_RATE_LIMIT_ALGORITHM', default: 'sliding', doc: '`fixed` or `sliding` window' }),
    limit: setting(PositiveInt, { env: 'NIGHTGATE_RATE_LIMIT', default: 600, doc: 'Requests per window per API key (a key may override)' }),
    windowMs: setting(PositiveInt, { env: 'NIGHTGATE_RATE_LIMIT_WINDOW_MS', default: 60_000, doc: 'Window length in ms' }),
    publicEnabled: setting(Type.Boolean(), { env: 'NIGHTGATE_PUBLIC_RATE_LIMIT_ENABLED', default: true, doc: 'Rate-limit the public statistics routes per client IP' }),
    publicLimit: setting(PositiveInt, { env: 'NIGHTGATE_PUBLIC_RATE_LIMIT', default: 6_000, doc: 'Requests per window per client IP on public routes' }),
    maxEntries: setting(PositiveInt, { env: 'NIGHTGATE_RATE_LIMIT_MAX_ENTRIES', default: 100_000, doc: 'Cap on tracked clients per scope (API keys, client IPs); beyond it the least recently used client is forgotten, so a new one always gets its own budget' }),
  }),
  devnet: Type.Object({
    blockTimeMs: setting(Type.Integer({ minimum: 50 }), { env: 'NIGHTGATE_DEVNET_BLOCK_TIME_MS', default: 6_000, doc: 'Block interval of the embedded devnets' }),
    stateDir: setting(Type.String(), { env: 'NIGHTGATE_DEVNET_STATE_DIR', default: '', doc: 'Directory to persist the embedded devnets (empty = in memory)' }),
    retainBlocks: setting(Type.Integer({ minimum: 1 }), { env: 'NIGHTGATE_DEVNET_RETAIN_BLOCKS', default: 1_000, doc: "Newest blocks each embedded devnet's indexer keeps in memory; older ones are read back from the state directory, or answered as pruned without one (keep it ≥ stats.ringSize)" }),
    threadNice: setting(Type.Integer({ minimum: 0, maximum: 19 }), { env: 'NIGHTGATE_DEVNET_NICE', default: 10, doc: 'Nice value of the embedded devnets\' thread (Linux): block production yields the CPU to serving under load; 0 = same priority as the server' }),
  }),
  stats: Type.Object({
    lookupCacheSize: setting(PositiveInt, { env: 'NIGHTGATE_STATS_CACHE_SIZE', default: 10_000, doc: 'Entries in the lookup cache per network' }),
    pollIntervalMs: setting(PositiveInt, { env: 'NIGHTGATE_STATS_POLL_INTERVAL_MS', default: 3_000, doc: 'Polling interval when the indexer subscription is unavailable' }),
    upstreamTimeoutMs: setting(PositiveInt, { env: 'NIGHTGATE_STATS_UPSTREAM_TIMEOUT_MS', default: 10_000, doc: 'Timeout of one indexer request' }),
    ringSize: setting(Type.Integer({ minimum: 2, maximum: 100_000 }), { env: 'NIGHTGATE_STATS_RING_SIZE', default: 1_000, doc: 'Recent blocks (with their transactions) kept per network and backfilled at start' }),
    reconnectMinMs: setting(PositiveInt, { env: 'NIGHTGATE_STATS_RECONNECT_MIN_MS', default: 500, doc: 'First delay before reconnecting the indexer subscription; doubles per failure' }),
    reconnectMaxMs: setting(PositiveInt, { env: 'NIGHTGATE_STATS_RECONNECT_MAX_MS', default: 30_000, doc: 'Longest delay between reconnection attempts of the indexer subscription' }),
    maxAddressStreams: setting(PositiveInt, { env: 'NIGHTGATE_STATS_MAX_ADDRESS_STREAMS', default: 32, doc: 'Address-activity lookups open at once per network (each reads one indexer WebSocket subscription); beyond → the expired cached answer if there is one (X-Cache: STALE), else 503 INDEXER_BUSY with Retry-After' }),
    maxResponseBytes: setting(PositiveInt, { env: 'NIGHTGATE_STATS_MAX_RESPONSE_BYTES', default: 4_194_304, doc: 'Largest indexer response accepted; bigger ones are an indexer error' }),
  }),
  prover: Type.Object({
    threads: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_THREADS', default: 2, doc: 'Worker threads in the proving/balancing pool' }),
    queueSize: setting(NonNegInt, { env: 'NIGHTGATE_PROVER_QUEUE_SIZE', default: 256, doc: 'Tasks that may wait for a worker; beyond it → 503' }),
    abortGraceMs: setting(NonNegInt, { env: 'NIGHTGATE_PROVER_ABORT_GRACE_MS', default: 500, doc: 'When a client leaves while its task runs, how long the task may still take before its worker thread is ended (a new thread reloads ledger-v8); its result is discarded either way. 0 ends the thread at once' }),
    defaultNetwork: setting(Type.Union(NETWORKS.map((n) => Type.Literal(n))), { env: 'NIGHTGATE_PROVER_DEFAULT_NETWORK', default: 'preview', doc: 'Network of a proving request that names none (`X-Midnight-Network` header or `?network=`)' }),
    upstreamUrl: setting(Type.String(), { env: 'NIGHTGATE_PROVER_URL', default: '', doc: 'Default proof server URL for the upstream backend (e.g. http://127.0.0.1:6300)' }),
    timeoutMs: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_TIMEOUT_MS', default: 600_000, doc: 'Timeout of one proof' }),
    cacheTtlMs: setting(NonNegInt, { env: 'NIGHTGATE_PROVER_CACHE_TTL_MS', default: 30_000, doc: 'How long /prove and /verify results are cached' }),
    cacheMaxBytes: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_CACHE_MAX_BYTES', default: 67_108_864, doc: 'Memory cap of the proof result cache' }),
    nativeBinary: setting(Type.String(), { env: 'NIGHTGATE_PROVER_BINARY', default: '', doc: 'Path of `midnight-proof-server` for the native backend' }),
    nativePort: setting(Port, { env: 'NIGHTGATE_PROVER_NATIVE_PORT', default: 6300, doc: 'Loopback port for the supervised proof server (0 = pick a free one)' }),
    nativeArgs: setting(Type.Array(Type.String()), { env: 'NIGHTGATE_PROVER_NATIVE_ARGS', default: [], doc: 'Extra arguments for the proof server (comma-separated)' }),
    nativeReadyTimeoutMs: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_NATIVE_READY_TIMEOUT_MS', default: 120_000, doc: 'How long the supervised proof server may take to answer /ready after a start (it may fetch parameters first)' }),
    nativeStopGraceMs: setting(PositiveInt, { env: 'NIGHTGATE_PROVER_NATIVE_STOP_GRACE_MS', default: 10_000, doc: 'After SIGTERM, how long the supervised proof server may take to exit before SIGKILL' }),
    keyDir: setting(Type.String(), { env: 'NIGHTGATE_PROVER_KEY_DIR', default: '', doc: 'Key material directory in the MIDNIGHT_PP layout (wasm backend)' }),
  }),
  dust: Type.Object({
    enabled: setting(Type.Boolean(), { env: 'NIGHTGATE_BALANCING_ENABLED', default: true, doc: 'Serve /prove-and-balance and /balance-only' }),
    walletSeeds: setting(Type.Array(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })), { env: 'NIGHTGATE_DUST_WALLET_SEEDS', default: [], secret: true, doc: 'Hex seeds of the server DUST wallets (comma-separated); on the embedded devnet generated when empty' }),
    reservationTtlMs: setting(Type.Integer({ minimum: 10_000 }), { env: 'NIGHTGATE_DUST_RESERVATION_TTL_MS', default: 300_000, doc: 'A DUST UTXO reservation is reclaimed after this long unless spent' }),
    ttlSafetyMs: setting(Type.Integer({ minimum: 5_000 }), { env: 'NIGHTGATE_DUST_TTL_SAFETY_MS', default: 60_000, doc: 'The fee intent expires this long before its reservation can be reclaimed' }),
    tableCapacity: setting(Type.Integer({ minimum: 16, maximum: 1_000_000 }), { env: 'NIGHTGATE_DUST_TABLE_CAPACITY', default: 4_096, doc: 'DUST UTXOs tracked per network in the shared allocator table' }),
    snapshotBytes: setting(Type.Integer({ minimum: 65_536 }), { env: 'NIGHTGATE_DUST_SNAPSHOT_BYTES', default: 33_554_432, doc: 'Shared memory for the wallet state the workers replicate, per network' }),
    spentRetentionMs: setting(PositiveInt, { env: 'NIGHTGATE_DUST_SPENT_RETENTION_MS', default: 600_000, doc: 'Spent DUST UTXOs stay visible in wallet-status this long before their slot is reused' }),
    maxInFlight: setting(PositiveInt, { env: 'NIGHTGATE_DUST_MAX_IN_FLIGHT', default: 1_024, doc: 'Sponsorships being computed at once; beyond it → 503' }),
    feeTtlMs: setting(NonNegInt, { env: 'NIGHTGATE_DUST_FEE_TTL_MS', default: 0, doc: "Life of a sponsored transaction's fee intent (submit before `expiresAt`); 0 = 5 blocks (30 s at 6 s blocks). The fee holds at the prices of every block until then, as the ledger's price update raises them under full blocks, so a longer life costs more DUST" }),
    feeMargin: setting(Type.Integer({ minimum: 0, maximum: 20 }), { env: 'NIGHTGATE_DUST_FEE_MARGIN', default: 1, doc: "Extra blocks of price rise a fee covers beyond those until its intent's TTL" }),
    maxReservationsPerKey: setting(PositiveInt, { env: 'NIGHTGATE_DUST_MAX_RESERVATIONS_PER_KEY', default: 16, doc: 'DUST UTXOs one API key may hold reserved at once per network (in flight or answered and not yet spent or reclaimed); beyond → 429 with Retry-After' }),
    targetUtxos: setting(NonNegInt, { env: 'NIGHTGATE_DUST_TARGET_UTXOS', default: 256, doc: 'DUST UTXOs to grow to per network: while fewer are held and fewer than half of them are free, the server splits its wallets\' NIGHT into more DUST-generating UTXOs (embedded devnet only; 0 = never)' }),
    maxFee: setting(Speck, { env: 'NIGHTGATE_DUST_MAX_FEE', default: '5000000000000000', doc: 'Per-transaction fee cap in SPECK (a key may set a lower one); over → 403' }),
    budget: setting(Speck, { env: 'NIGHTGATE_DUST_BUDGET', default: '500000000000000000', doc: 'DUST (SPECK) one API key may spend per budget window; over → 429' }),
    budgetWindowMs: setting(PositiveInt, { env: 'NIGHTGATE_DUST_BUDGET_WINDOW_MS', default: 3_600_000, doc: 'Budget window in ms' }),
    stateDir: setting(Type.String(), { env: 'NIGHTGATE_DUST_STATE_DIR', default: '', doc: 'Directory for the DUST reservation journal, so answered fee intents keep their UTXO reserved across a restart (empty = not persisted; set it in production)' }),
    dedupeWindowMs: setting(PositiveInt, { env: 'NIGHTGATE_DUST_DEDUPE_WINDOW_MS', default: 300_000, doc: 'Same transaction bytes from the same key within this window get the same answer, no second UTXO' }),
    checkInputs: setting(Type.Boolean(), { env: 'NIGHTGATE_DUST_CHECK_INPUTS', default: true, doc: "Before reserving a DUST UTXO, check every unshielded input of the transaction against the indexer: unspent, its signer's, of the network's ledger era, value and token as claimed (else 400 TRANSACTION_REJECTED naming the input; an indexer that cannot answer → 503 INPUTS_UNCHECKED)" }),
    inputCheckCacheMs: setting(NonNegInt, { env: 'NIGHTGATE_DUST_INPUT_CHECK_CACHE_MS', default: 1_000, doc: "How long an address's unspent UTXOs read for the input check are trusted; an input not found is read again after 250 ms" }),
    expiryMarginMs: setting(NonNegInt, { env: 'NIGHTGATE_DUST_EXPIRY_MARGIN_MS', default: 10_000, doc: "An answer's DUST reservation is released this long after its fee intent's TTL (`expiresAt`) when its transaction has not landed and the chain the sync follows is past the TTL, instead of at `dust.reservationTtlMs`" }),
    throttleSlack: setting(PositiveInt, { env: 'NIGHTGATE_DUST_THROTTLE_SLACK', default: 10, doc: "Sponsored answers of one key that may expire without landing beyond those that landed (decayed over `dust.keyHealthWindowMs`) before its `dust.maxReservationsPerKey` share is halved; each further as many halve it again, down to 1; landings win it back" }),
    keyHealthWindowMs: setting(PositiveInt, { env: 'NIGHTGATE_DUST_KEY_HEALTH_WINDOW_MS', default: 600_000, doc: 'Time constant of the decay of the per-key counts of answers landed and expired unlanded (`dust.throttleSlack`)' }),
  }),
  state: Type.Object({
    redisUrl: setting(Type.String(), { env: 'NIGHTGATE_REDIS_URL', default: '', doc: 'Redis shared by several instances (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS): per-key rate limits, DUST budgets and reservation shares, failed-login counts and sponsorship dedupe are then shared, and each instance leases its DUST wallets (docs/scale-out.md). Empty = this process alone, in memory. Credentials are redacted wherever it is printed' }),
    leaseTtlMs: setting(Type.Integer({ minimum: 1_000 }), { env: 'NIGHTGATE_WALLET_LEASE_TTL_MS', default: 15_000, doc: 'With state.redisUrl: expiry of an instance\'s lease on each of its DUST wallets, renewed every third of it; a lease not renewed in time stops sponsorship on that network (503 WALLET_LEASE_LOST), and a stopped instance\'s wallets are free again this long after it stopped renewing' }),
  }),
  networks: Type.Object({ mainnet: networkGroup('mainnet'), preprod: networkGroup('preprod'), preview: networkGroup('preview') }),
});

export type Config = Static<typeof ConfigSchema>;

interface Setting extends SettingMeta<unknown> {
  /** Dotted path inside the config object. */
  readonly path: string;
  readonly schema: TSchema;
}

/** The leaves of a settings group, depth first in declaration order, with their dotted paths. */
function leavesOf(group: TObject, prefix: string): Setting[] {
  return Object.entries(group.properties).flatMap(([key, schema]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (isSetting(schema)) return [{ ...schema[META], path, schema }];
    if (KindGuard.IsObject(schema)) return leavesOf(schema, path);
    throw new Error(`settings tree: ${path} is neither a setting nor a group of settings`);
  });
}

export const SETTINGS: readonly Setting[] = leavesOf(ConfigSchema, '');

/** The shortest block time with all three networks on the embedded devnet (docs/devnet.md). */
export const MIN_BLOCK_TIME_ALL_DEVNETS_MS = 3_000;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Removed settings: named in an error that points to what replaced them, never silently ignored. */
const REPLACED: ReadonlyArray<{ path: string; env: string; message: string }> = [
  {
    path: 'server.trustProxy',
    env: 'NIGHTGATE_TRUST_PROXY',
    message: 'server.trustProxy (NIGHTGATE_TRUST_PROXY) was replaced by server.trustedProxies (NIGHTGATE_TRUSTED_PROXIES): list the CIDRs of your reverse proxies, e.g. NIGHTGATE_TRUSTED_PROXIES=127.0.0.1/32',
  },
];

/** Deep partial config, for tests and for the JSON file. */
export type ConfigInput = { [K in keyof Config]?: Config[K] extends readonly unknown[] ? Config[K] : Config[K] extends object ? { [P in keyof Config[K]]?: Config[K][P] extends object ? Partial<Config[K][P]> : Config[K][P] } : Config[K] };

function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    cur[part] ??= {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** Environment strings → typed values, by the setting's schema kind. */
function fromEnv(setting: Setting, raw: string): unknown {
  const kind = setting.schema.type as string | undefined;
  if (kind === 'array') return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (kind === 'integer' || kind === 'number') return raw.trim() === '' ? NaN : Number(raw);
  if (kind === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return raw;
  }
  return raw;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

function knownPaths(): Set<string> {
  const s = new Set<string>();
  for (const setting of SETTINGS) {
    const parts = setting.path.split('.');
    for (let i = 1; i <= parts.length; i++) s.add(parts.slice(0, i).join('.'));
  }
  return s;
}

/**
 * Reject unknown keys in the JSON file: a typo must not silently fall back to a default. The file
 * and every group in it (`auth`, `networks.mainnet`, …) must be objects: `null`, a list or a
 * scalar in their place would otherwise read as "nothing set" — no keys, every default.
 */
function checkUnknown(obj: unknown, prefix: string, known: Set<string>, leafPaths: Set<string>): void {
  if (!isPlainObject(obj)) {
    const what = prefix === '' ? 'the config file' : `setting group "${prefix}" in the config file`;
    throw new ConfigError(`${what} must be a JSON object ({…}), got ${jsonKind(obj)}`);
  }
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (!known.has(path)) throw new ConfigError(`unknown setting "${path}" in the config file`);
    if (!leafPaths.has(path)) checkUnknown(v, path, known, leafPaths);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return `${typeof v} ${JSON.stringify(v).slice(0, 40)}`;
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Overrides applied last (tests). */
  overrides?: ConfigInput;
}

/** Build, validate and freeze the configuration. Throws ConfigError naming the bad setting. */
export function loadConfig(opts: LoadOptions = {}): Readonly<Config> {
  const env = opts.env ?? process.env;
  let file: unknown = {};
  const filePath = env['NIGHTGATE_CONFIG'];
  if (filePath) {
    let text: string;
    try {
      text = readFileSync(filePath, 'utf8');
    } catch (err) {
      throw new ConfigError(`NIGHTGATE_CONFIG: cannot read ${filePath}: ${(err as Error).message}`);
    }
    try {
      file = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`NIGHTGATE_CONFIG: ${filePath} is not valid JSON: ${(err as Error).message}`);
    }
    for (const r of REPLACED) if (getPath(file, r.path) !== undefined) throw new ConfigError(r.message);
    checkUnknown(file, '', knownPaths(), new Set(SETTINGS.map((s) => s.path)));
  }
  for (const r of REPLACED) if (env[r.env] !== undefined) throw new ConfigError(r.message);
  const out: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    let value: unknown = structuredClone(setting.default);
    let source = 'default';
    const fromFile = getPath(file, setting.path);
    if (fromFile !== undefined) {
      value = fromFile;
      source = `config file (${setting.path})`;
    }
    const rawEnv = setting.env ? env[setting.env] : undefined;
    if (rawEnv !== undefined) {
      value = fromEnv(setting, rawEnv);
      source = `env ${setting.env}`;
    }
    const override = getPath(opts.overrides, setting.path);
    if (override !== undefined) {
      value = override;
      source = `override (${setting.path})`;
    }
    if (!Value.Check(setting.schema, value)) {
      const first = Value.Errors(setting.schema, value).First();
      const where = setting.env ? `${setting.path} (${setting.env})` : setting.path;
      const shown = setting.secret ? '<redacted>' : JSON.stringify(value);
      throw new ConfigError(`invalid setting ${where} from ${source}: ${shown} — ${first?.message ?? 'invalid value'}`);
    }
    setPath(out, setting.path, value);
  }
  // Each leaf was checked above; checking the assembled tree is what makes `out` a Config for the
  // compiler, no cast, and it would catch a leaf the loop left unset.
  if (!Value.Check(ConfigSchema, out)) {
    const first = Value.Errors(ConfigSchema, out).First();
    throw new ConfigError(`the assembled configuration does not match its schema at ${first?.path ?? '/'}: ${first?.message ?? 'invalid'}`);
  }
  crossCheck(out);
  return deepFreeze(out);
}

/** Rules that involve more than one setting. */
function crossCheck(config: Config): void {
  for (const n of NETWORKS) {
    const net = config.networks[n];
    if (net.indexer !== 'embedded' && net.indexer !== 'public' && !/^https?:\/\//.test(net.indexer)) {
      throw new ConfigError(`invalid setting networks.${n}.indexer (NIGHTGATE_${n.toUpperCase()}_INDEXER): "${net.indexer}" — expected embedded, public or an http(s) URL`);
    }
    // The dev backend fabricates mock-shaped proofs: only ever for a network served by the
    // embedded devnet, never in front of a public network (DESIGN.md, "Prover backends").
    if (net.prover === 'dev' && net.indexer !== 'embedded') {
      throw new ConfigError(`invalid setting networks.${n}.prover (NIGHTGATE_${n.toUpperCase()}_PROVER): the dev backend is only allowed on a network served by the embedded devnet`);
    }
    if (net.nodeRpc !== '' && !isHttpUrl(net.nodeRpc)) {
      throw new ConfigError(`invalid setting networks.${n}.nodeRpc (NIGHTGATE_${n.toUpperCase()}_NODE_RPC): "${redactUrl(net.nodeRpc)}" — expected an http(s) URL (a node answers JSON-RPC over HTTP on its RPC port, e.g. http://127.0.0.1:9944)`);
    }
    if (net.submitUrl !== '' && !/^https?:\/\//.test(net.submitUrl)) {
      throw new ConfigError(`invalid setting networks.${n}.submitUrl (NIGHTGATE_${n.toUpperCase()}_SUBMIT_URL): "${net.submitUrl}" — expected an http(s) URL`);
    }
    const backend = proverBackendOf(config, n);
    if (backend === 'upstream' && !proverUrlOf(config, n)) {
      throw new ConfigError(`invalid setting networks.${n}.proverUrl (NIGHTGATE_${n.toUpperCase()}_PROVER_URL): the upstream backend needs a proof server URL (or set NIGHTGATE_PROVER_URL)`);
    }
    if (backend === 'native' && !config.prover.nativeBinary) {
      throw new ConfigError(`invalid setting prover.nativeBinary (NIGHTGATE_PROVER_BINARY): the native backend of ${n} needs the path of midnight-proof-server`);
    }
    if (backend === 'wasm' && !config.prover.keyDir) {
      throw new ConfigError(`invalid setting prover.keyDir (NIGHTGATE_PROVER_KEY_DIR): the wasm backend of ${n} needs a key material directory`);
    }
  }
  // Measured 2026-11-24 (31fe7f4, 2 cores, three networks with the DUST sync): at 1 000 and 2 000 ms
  // blocks the embedded devnets fell behind (a block every 2-3 s); at 3 000 ms they kept up.
  const embedded = NETWORKS.filter((n) => config.networks[n].indexer === 'embedded').length;
  if (embedded === NETWORKS.length && config.devnet.blockTimeMs < MIN_BLOCK_TIME_ALL_DEVNETS_MS) {
    throw new ConfigError(`invalid setting devnet.blockTimeMs (NIGHTGATE_DEVNET_BLOCK_TIME_MS): ${config.devnet.blockTimeMs} ms is too short for three embedded networks (they fall behind below ${MIN_BLOCK_TIME_ALL_DEVNETS_MS} ms on 2 cores); use at least ${MIN_BLOCK_TIME_ALL_DEVNETS_MS}, or serve fewer networks from the devnet`);
  }
  if (config.dust.feeTtlMs > 0 && config.dust.feeTtlMs + config.dust.ttlSafetyMs > config.dust.reservationTtlMs) {
    throw new ConfigError('invalid setting dust.feeTtlMs (NIGHTGATE_DUST_FEE_TTL_MS): with dust.ttlSafetyMs it must fit within dust.reservationTtlMs, so the fee intent expires before its UTXO can be reclaimed');
  }
  if (config.dust.reservationTtlMs <= config.dust.ttlSafetyMs + 1_000) {
    throw new ConfigError('invalid setting dust.ttlSafetyMs (NIGHTGATE_DUST_TTL_SAFETY_MS): must be more than a second shorter than dust.reservationTtlMs, so the fee intent expires before its UTXO can be reclaimed');
  }
  if (config.state.redisUrl !== '' && !/^rediss?:\/\/[^\s]+$/.test(config.state.redisUrl)) {
    throw new ConfigError(`invalid setting state.redisUrl (NIGHTGATE_REDIS_URL): "${redactUrl(config.state.redisUrl)}" — expected redis://host:port or rediss://host:port`);
  }
  for (const cidr of config.auth.trustedNetworks) {
    if (!/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(cidr)) throw new ConfigError(`invalid setting auth.trustedNetworks (NIGHTGATE_TRUSTED_NETWORKS): "${cidr}" is not a CIDR`);
  }
  for (const cidr of config.metrics.allow) {
    if (!isCidr(cidr)) throw new ConfigError(`invalid setting metrics.allow (NIGHTGATE_METRICS_ALLOW): "${cidr}" is not a CIDR (e.g. 10.0.0.0/8)`);
  }
  if (config.metrics.listen !== '' && !/^(\[[0-9a-fA-F:.]+\]|[^:\s]+):\d{1,5}$/.test(config.metrics.listen)) {
    throw new ConfigError(`invalid setting metrics.listen (NIGHTGATE_METRICS_LISTEN): "${config.metrics.listen}" is not host:port (e.g. 127.0.0.1:9464)`);
  }
  for (const cidr of config.server.trustedProxies) {
    if (!isCidr(cidr)) throw new ConfigError(`invalid setting server.trustedProxies (NIGHTGATE_TRUSTED_PROXIES): "${cidr}" is not a CIDR (a proxy's own address is e.g. 127.0.0.1/32)`);
  }
  const ids = new Set<string>();
  for (const k of config.auth.keys) {
    if (ids.has(k.id)) throw new ConfigError(`invalid setting auth.keys: duplicate key id "${k.id}"`);
    const reserved = reservedKeyId(k.id);
    if (reserved !== undefined) throw new ConfigError(`invalid setting auth.keys: key id "${k.id}" ${reserved}; choose another id`);
    ids.add(k.id);
  }
  const largestBody = Math.max(config.server.bodyLimit, config.server.proverBodyLimit);
  if (config.server.bodyBytesPerClient < largestBody) {
    throw new ConfigError(`invalid setting server.bodyBytesPerClient (NIGHTGATE_BODY_BYTES_PER_CLIENT): ${config.server.bodyBytesPerClient} is less than the largest body a route accepts (${largestBody}, server.bodyLimit / server.proverBodyLimit), which could then never be sent`);
  }
  if (config.server.bodyBytesInFlight < config.server.bodyBytesPerClient) {
    throw new ConfigError(`invalid setting server.bodyBytesInFlight (NIGHTGATE_BODY_BYTES_IN_FLIGHT): ${config.server.bodyBytesInFlight} is less than server.bodyBytesPerClient (${config.server.bodyBytesPerClient})`);
  }
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function isCidr(text: string): boolean {
  try {
    new CidrList([text]);
    return /^[0-9a-fA-F:.]+\/\d{1,3}$/.test(text);
  } catch {
    return false;
  }
}

export function isEmbedded(config: Config, n: NetworkName): boolean {
  return config.networks[n].indexer === 'embedded';
}

export function indexerUrlOf(config: Config, n: NetworkName): string | undefined {
  const v = config.networks[n].indexer;
  if (v === 'embedded') return undefined;
  return v === 'public' ? PUBLIC_INDEXERS[n] : v;
}

export function proverBackendOf(config: Config, n: NetworkName): ProverBackendName {
  const b = config.networks[n].prover;
  if (b) return b;
  return isEmbedded(config, n) ? 'dev' : 'upstream';
}

export function proverUrlOf(config: Config, n: NetworkName): string {
  return config.networks[n].proverUrl || config.prover.upstreamUrl;
}

/**
 * The configuration as it may be logged: secrets replaced, key hashes kept (they are not secret),
 * and every URL's credentials and query string redacted (indexer and prover URLs may carry them).
 */
export function redactedConfig(config: Config): unknown {
  const copy: Record<string, unknown> = structuredClone(config);
  for (const s of SETTINGS) {
    if (!s.secret) continue;
    const v = getPath(copy, s.path);
    const redacted = Array.isArray(v) ? `<${v.length} redacted>` : '<redacted>';
    setPath(copy, s.path, redacted);
  }
  return redactDeep(copy);
}

/** Markdown table of every setting, for docs/configuration.md: `nightgate config-doc` prints it. */
export function settingsTable(): string {
  const rows = SETTINGS.map((s) => `| \`${s.path}\` | ${s.env ? `\`${s.env}\`` : '(file only)'} | \`${JSON.stringify(s.default)}\` | ${s.doc} |`);
  return ['| setting | env var | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
