/**
 * `createClient({ baseUrl, apiKey })`: one method per route of nightgate's statistics, proving
 * and sponsorship APIs, named after the route. Each resolves to the answer's body (parsed JSON,
 * or the bytes and the prover's headers) and rejects with a NightgateError.
 */
import { retryPolicy, type RetryOptions } from './retry.js';
import { send, sendJson, sendText, type Call, type CallOptions, type FetchLike, type Transport } from './transport.js';
import type {
  AddressActivity,
  BlockDetail,
  BlocksProduced,
  BlockTime,
  ContractDetail,
  DParameter,
  Epoch,
  Health,
  LatestBlock,
  Live,
  Network,
  NightSupply,
  OpenApiDocument,
  ProverAnswer,
  Ready,
  RecentTransactions,
  SearchResult,
  SponsoredTransaction,
  Submitted,
  Summary,
  TransactionDetail,
  TransactionInput,
  Uptime,
  WalletStatus,
} from './types.js';

export interface ClientOptions {
  /** Where nightgate answers, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  baseUrl: string;
  /** Sent as `X-API-Key` to the routes that need or take a key (proving, sponsorship, /health, /metrics). */
  apiKey?: string;
  /** Retries of 429 and 503 answers (retry.ts): a count, options, or `false` for none. Default 3. */
  retries?: number | false | RetryOptions;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** Proving and sponsorship: which network's prover or DUST wallets (default: the server's `prover.defaultNetwork`). */
export interface NetworkOptions extends CallOptions {
  network?: Network;
}

/** A sponsorship's options: its network, and the end user for a key whose policy counts users by `X-Client-ID` (docs/policies.md). */
export interface SponsorOptions extends NetworkOptions {
  clientId?: string;
}

export interface LimitOptions extends CallOptions {
  limit?: number;
}

const bytesOf = (tx: TransactionInput): Uint8Array => (tx instanceof Uint8Array ? tx : tx.serialize());

const networkHeader = (o: NetworkOptions): Record<string, string> => (o.network ? { 'X-Midnight-Network': o.network } : {});

export function createClient(options: ClientOptions) {
  const global = (globalThis as { fetch?: FetchLike }).fetch;
  const fetchImpl = options.fetch ?? (global ? (url, init) => global(url, init) : undefined);
  if (!fetchImpl) throw new TypeError('nightgate client: no fetch here; pass createClient({ fetch })');
  const t: Transport = {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    fetch: fetchImpl,
    retry: retryPolicy(options.retries),
    headers: options.headers ?? {},
  };

  const stat = <T>(network: Network, route: string, query: Call['query'], o?: CallOptions): Promise<T> =>
    sendJson<T>(t, { method: 'GET', path: `/api/v1/${encodeURIComponent(network)}/${route}`, query, auth: false, retry: 'idempotent' }, o);

  const proving = async (path: string, body: Uint8Array, o: NetworkOptions = {}): Promise<ProverAnswer> => {
    const res = await send(t, { method: 'POST', path, body, headers: networkHeader(o), auth: true, retry: 'idempotent' }, o);
    const h = (name: string): string | undefined => res.headers.get(name) ?? undefined;
    return { bytes: new Uint8Array(await res.arrayBuffer()), prover: h('x-prover'), network: h('x-midnight-network'), cache: h('x-cache') };
  };

  const proverGet = (path: string, o: NetworkOptions = {}): Promise<string> =>
    sendText(t, { method: 'GET', path, headers: networkHeader(o), auth: true, retry: 'idempotent' }, o);

  const sponsor = (path: string, tx: TransactionInput, o: SponsorOptions = {}): Promise<SponsoredTransaction> =>
    sendJson<SponsoredTransaction>(
      t,
      {
        method: 'POST',
        path,
        body: bytesOf(tx),
        headers: { ...networkHeader(o), ...(o.clientId === undefined ? {} : { 'X-Client-ID': o.clientId }) },
        auth: true,
        retry: 'sponsorship',
      },
      o,
    );

  return {
    // --- statistics (public) ---------------------------------------------------------------
    summary: (network: Network, o?: CallOptions) => stat<Summary>(network, 'summary', {}, o),
    latestBlock: (network: Network, o?: CallOptions) => stat<LatestBlock>(network, 'latest-block', {}, o),
    blockTime: (network: Network, o?: CallOptions) => stat<BlockTime>(network, 'block-time', {}, o),
    blocksProduced: (network: Network, o?: CallOptions) => stat<BlocksProduced>(network, 'blocks-produced', {}, o),
    uptime: (network: Network, o?: CallOptions) => stat<Uptime>(network, 'uptime', {}, o),
    epoch: (network: Network, o?: CallOptions) => stat<Epoch>(network, 'epoch', {}, o),
    dParameter: (network: Network, o?: CallOptions) => stat<DParameter>(network, 'd-parameter', {}, o),
    nightSupply: (network: Network, o?: CallOptions) => stat<NightSupply>(network, 'night-supply', {}, o),
    recentTransactions: (network: Network, o: LimitOptions = {}) => stat<RecentTransactions>(network, 'recent-transactions', { limit: o.limit }, o),
    /** A block height, a block or transaction hash, a contract address or an address. */
    search: (network: Network, q: string, o?: CallOptions) => stat<SearchResult>(network, 'search', { q }, o),
    /** By height (a number) or by hash (a string). */
    block: (network: Network, heightOrHash: number | string, o?: CallOptions) =>
      stat<BlockDetail>(network, 'block', typeof heightOrHash === 'number' ? { height: heightOrHash } : { hash: heightOrHash }, o),
    transaction: (network: Network, hash: string, o?: CallOptions) => stat<TransactionDetail>(network, 'transaction', { hash }, o),
    contract: (network: Network, address: string, o?: CallOptions) => stat<ContractDetail>(network, 'contract', { address }, o),
    addressActivity: (network: Network, identifier: string, o: LimitOptions = {}) =>
      stat<AddressActivity>(network, 'address-activity', { identifier, limit: o.limit }, o),
    /** The push channel's URL (a WebSocket: a welcome, then every new block). */
    pushUrl: (network: Network): string => `${options.baseUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/api/v1/${encodeURIComponent(network)}/ws`,

    // --- meta ------------------------------------------------------------------------------
    /** With a key (or from a trusted network) it lists every component. */
    health: (o?: CallOptions) => sendJson<Health>(t, { method: 'GET', path: '/health', auth: true, retry: 'idempotent' }, o),
    livez: (o?: CallOptions) => sendJson<Live>(t, { method: 'GET', path: '/livez', auth: false, retry: 'idempotent' }, o),
    /** Rejects with SERVER_NOT_READY (its `body.missing` says what) when not ready: never retried, the answer is the point. */
    readyz: (o?: CallOptions) => sendJson<Ready>(t, { method: 'GET', path: '/readyz', auth: false, retry: 'never' }, o),
    openapi: (o?: CallOptions) => sendJson<OpenApiDocument>(t, { method: 'GET', path: '/api/openapi.json', auth: false, retry: 'idempotent' }, o),
    /** Prometheus exposition text (to `metrics.allow` addresses and `metrics.keyIds` keys). */
    metrics: (o?: CallOptions) => sendText(t, { method: 'GET', path: '/metrics', auth: true, retry: 'idempotent' }, o),

    // --- proving (API key) -----------------------------------------------------------------
    /** A proving request (ledger `createProvingPayload`) → the proof. */
    prove: (body: Uint8Array, o?: NetworkOptions) => proving('/prove', body, o),
    /** A check request (ledger `createCheckPayload`) → the check result (ledger `parseCheckResult`). */
    verify: (body: Uint8Array, o?: NetworkOptions) => proving('/verify', body, o),
    /** The proof server's name for `verify`. */
    check: (body: Uint8Array, o?: NetworkOptions) => proving('/check', body, o),
    /** A circuit's k (it has 2^k rows), from its tagged ZKIR source. */
    k: async (ir: Uint8Array, o?: NetworkOptions) => Number(new TextDecoder().decode((await proving('/k', ir, o)).bytes).trim()),
    proverVersion: (o?: NetworkOptions) => proverGet('/version', o),
    /** The proof versions the prover produces, e.g. `["V2"]`. */
    proofVersions: async (o?: NetworkOptions) => JSON.parse(await proverGet('/proof-versions', o)) as string[],
    /** `{status, jobsProcessing, jobsPending, jobCapacity, timestamp}`; a full queue rejects with status 503 and that body. */
    proverReady: async (o?: NetworkOptions) => JSON.parse(await proverGet('/ready', o)) as Record<string, unknown>,

    // --- sponsorship (API key) -------------------------------------------------------------
    /** An unproven transaction (bytes, or a ledger transaction of either era) → proven, DUST fee paid, bound: submit `tx`. */
    proveAndBalance: (tx: TransactionInput, o?: SponsorOptions) => sponsor('/prove-and-balance', tx, o),
    /** A proven transaction, bound or not → DUST fee paid, bound: submit `tx`. */
    balanceOnly: (tx: TransactionInput, o?: SponsorOptions) => sponsor('/balance-only', tx, o),
    /**
     * A finalized transaction (e.g. a sponsorship's `tx`) to its network's node, through the
     * server: it lands in a coming block unless the chain refuses it there. The same bytes again are
     * accepted (`alreadyKnown`), so it is retried as any idempotent call.
     */
    submit: (tx: TransactionInput, o: NetworkOptions = {}) =>
      sendJson<Submitted>(t, { method: 'POST', path: '/submit', body: bytesOf(tx), headers: networkHeader(o), auth: true, retry: 'idempotent' }, o),
    /** The server DUST wallets and pool, per network. */
    walletStatus: (o?: CallOptions) => sendJson<WalletStatus>(t, { method: 'GET', path: '/wallet-status', auth: true, retry: 'idempotent' }, o),
  };
}

export type NightgateClient = ReturnType<typeof createClient>;
