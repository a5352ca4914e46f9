/**
 * The one error catalogue. Every error a response carries comes from here: a stable machine
 * `code`, its HTTP status, and a default human message. Modules throw `GatewayError(code, detail)`;
 * the HTTP layer renders it in one shape everywhere — every route of both APIs, the 404/405
 * catch-all, refused WebSocket upgrades: `{error, message, code}` (the `Error` schema of the
 * OpenAPI document, src/core/http/openapi.ts).
 */
interface ErrorSpec {
  readonly status: number;
  /** Short title, sent as `error`. */
  readonly title: string;
  /** Default detail when the thrower gives none. */
  readonly message: string;
}

export const ERRORS = {
  // --- HTTP layer -------------------------------------------------------------------------
  NOT_FOUND: { status: 404, title: 'Not Found', message: 'No route matches this path' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed', message: 'This path does not accept that method' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload Too Large', message: 'Request body exceeds the limit for this route' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type', message: 'Content-Type must be application/octet-stream' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request Header Fields Too Large', message: 'Request headers exceed the limit' },
  URI_TOO_LONG: { status: 414, title: 'URI Too Long', message: 'The request line exceeds the header limit' },
  BAD_REQUEST: { status: 400, title: 'Bad Request', message: 'The request is malformed' },
  INVALID_PARAMETER: { status: 400, title: 'Invalid Parameter', message: 'A parameter is missing or malformed' },
  INVALID_BODY: { status: 400, title: 'Invalid Body', message: 'The request body is not in the expected format' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized', message: 'Missing or invalid API key' },
  FORBIDDEN: { status: 403, title: 'Forbidden', message: 'This key may not do that' },
  RATE_LIMITED: { status: 429, title: 'Too Many Requests', message: 'Rate limit exceeded; retry after the reset' },
  ORIGIN_NOT_ALLOWED: { status: 403, title: 'Forbidden', message: 'Pages from this origin may not open this WebSocket' },
  TOO_MANY_CONNECTIONS: { status: 429, title: 'Too Many Requests', message: 'Too many WebSocket connections from this address' },
  TOO_MANY_AUTH_FAILURES: { status: 429, title: 'Too Many Requests', message: 'Too many failed authentications from this address; retry after the reset' },
  // Request-body bytes in flight (guards/body-budget.ts): the whole server's, or one client's share.
  BODY_BUDGET_FULL: { status: 503, title: 'Service Unavailable', message: 'The server holds as many request-body bytes as it may; retry shortly' },
  CLIENT_BODY_BUDGET_FULL: {
    status: 429,
    title: 'Too Many Requests',
    message: 'This key (or address) has as many request-body bytes in flight as it may; retry when one of its requests has finished',
  },
  SHUTTING_DOWN: { status: 503, title: 'Service Unavailable', message: 'Server is shutting down' },
  // /readyz: what the configuration needs is not all usable yet (the answer lists what).
  SERVER_NOT_READY: { status: 503, title: 'Service Unavailable', message: 'Not ready to serve what this server is configured for' },
  INTERNAL: { status: 500, title: 'Internal Server Error', message: 'Internal error' },
  TIMEOUT: { status: 504, title: 'Gateway Timeout', message: 'The request took too long' },

  // --- statistics -------------------------------------------------------------------------
  UNKNOWN_NETWORK: { status: 404, title: 'Unknown Network', message: 'Network must be one of mainnet, preprod, preview' },
  BLOCK_NOT_FOUND: { status: 404, title: 'Not Found', message: 'Block not found' },
  TRANSACTION_NOT_FOUND: { status: 404, title: 'Not Found', message: 'Transaction not found' },
  CONTRACT_NOT_FOUND: { status: 404, title: 'Not Found', message: 'Contract not found' },
  IDENTIFIER_NOT_FOUND: { status: 404, title: 'Not Found', message: 'Nothing is known for that identifier' },
  SEARCH_NO_MATCH: { status: 404, title: 'Not Found', message: 'Nothing matches that query' },
  // The specification answers 500 when the indexer fails and nothing is cached.
  INDEXER_UNAVAILABLE: { status: 500, title: 'Indexer Unavailable', message: 'The Midnight indexer did not answer' },
  INDEXER_BAD_RESPONSE: { status: 500, title: 'Indexer Error', message: 'The Midnight indexer answered with an error or malformed data' },
  NOT_READY: { status: 503, title: 'Service Unavailable', message: 'No data received from the indexer yet' },
  // A slow indexer is an indexer failure too: 500 like the others, with its own code.
  INDEXER_TIMEOUT: { status: 500, title: 'Indexer Timeout', message: 'The Midnight indexer did not answer in time' },
  // Address-activity lookups each read one indexer WebSocket; beyond stats.maxAddressStreams per network.
  // The indexer's host answers 410 (Midnight's retired hosts: ENDPOINT_DECOMMISSIONED): not retried.
  INDEXER_DECOMMISSIONED: { status: 502, title: 'Bad Gateway', message: "The network's indexer is decommissioned" },
  // The indexer's provider refused the network's credentials (401/403): not retried.
  INDEXER_UNAUTHORIZED: { status: 502, title: 'Bad Gateway', message: "The network's indexer refused nightgate's credentials" },
  INDEXER_BUSY: { status: 503, title: 'Service Unavailable', message: 'Too many address lookups are reading from the indexer; retry shortly' },
  // --- Midnight node (submission, src/infra/node/submitter.ts) ------------------------------
  NODE_UNAVAILABLE: { status: 502, title: 'Bad Gateway', message: 'The Midnight node could not be reached' },
  NODE_BAD_RESPONSE: { status: 502, title: 'Bad Gateway', message: 'The Midnight node answered with something unexpected' },
  NODE_REJECTED: { status: 400, title: 'Bad Request', message: 'The Midnight node refused the transaction; it will not land' },
  NODE_BUSY: { status: 503, title: 'Service Unavailable', message: "The Midnight node's pool did not take the transaction now; retry shortly" },
  // A hosted provider refused the network's credentials (`networks.<n>.projectId`).
  NODE_UNAUTHORIZED: { status: 502, title: 'Bad Gateway', message: "The network's provider refused nightgate's credentials" },
  // The configured endpoint answers 410: retired. The message names the setting to change.
  NODE_DECOMMISSIONED: { status: 502, title: 'Bad Gateway', message: "The network's endpoint is decommissioned" },
  EPOCH_UNAVAILABLE: { status: 404, title: 'Not Found', message: 'Epoch information is not available for this network' },
  D_PARAMETER_UNAVAILABLE: { status: 404, title: 'Not Found', message: 'No block with system parameters has been received yet' },

  // --- proving ----------------------------------------------------------------------------
  PROVER_UNREACHABLE: { status: 502, title: 'Bad Gateway', message: 'The proof server could not be reached' },
  PROVER_BAD_RESPONSE: { status: 502, title: 'Bad Gateway', message: 'The proof server answered with something that is not a proof' },
  PROVER_BUSY: { status: 503, title: 'Service Unavailable', message: 'The proof server is busy' },
  PROVER_REJECTED: { status: 400, title: 'Bad Request', message: 'The proof server rejected the request' },
  PROVER_FAILED: { status: 500, title: 'Internal Server Error', message: 'The proof server failed' },
  PROVER_TIMEOUT: { status: 504, title: 'Gateway Timeout', message: 'The proof server did not answer in time' },
  PROVER_KEYS_MISSING: { status: 503, title: 'Service Unavailable', message: 'Prover key material not provisioned' },
  PROVER_UNAVAILABLE: { status: 503, title: 'Service Unavailable', message: 'The prover is not available' },
  QUEUE_FULL: { status: 503, title: 'Service Unavailable', message: 'Proving queue is full' },
  // One key's tasks fill its share of the worker pool's queue; other keys' tasks are still taken.
  KEY_QUEUE_FULL: { status: 503, title: 'Service Unavailable', message: "This key's share of the proving queue is full" },
  WORKER_CRASHED: { status: 500, title: 'Internal Server Error', message: 'A worker crashed while handling the request' },
  CLIENT_ABORTED: { status: 499, title: 'Client Closed Request', message: 'The client went away' },
  INVALID_NETWORK: { status: 400, title: 'Bad Request', message: 'X-Midnight-Network (or ?network=) must be one of mainnet, preprod, preview' },
  PROVER_KEYS_INVALID: { status: 503, title: 'Service Unavailable', message: 'Prover key material failed its SHA-256 check' },
  PROVER_BINARY_NOT_FOUND: { status: 503, title: 'Service Unavailable', message: 'midnight-proof-server was not found at the configured path' },
  PROVER_BINARY_NOT_EXECUTABLE: { status: 503, title: 'Service Unavailable', message: 'midnight-proof-server is not executable' },
  DEV_PROVER_UNSUPPORTED_CIRCUIT: { status: 400, title: 'Bad Request', message: 'The dev prover has no mock proof shape for this circuit' },

  // --- sponsorship ------------------------------------------------------------------------
  BALANCING_DISABLED: { status: 404, title: 'Not Found', message: 'Balancing is disabled on this server' },
  WALLET_SYNCING: { status: 503, title: 'Service Unavailable', message: 'wallet syncing' },
  NO_DUST_AVAILABLE: { status: 503, title: 'Service Unavailable', message: 'No DUST UTXO is free to pay this fee' },
  // The network's newest block is 10 block times old or more: a fee would be priced on old state. Nothing is reserved.
  SPONSOR_BACKLOG_FULL: {
    status: 503,
    title: 'Service Unavailable',
    message:
      "This server's sponsored transactions that have not landed fill more blocks than a new fee intent lives; nothing was reserved; retry after Retry-After",
  },
  CHAIN_STALE: {
    status: 503,
    title: 'Service Unavailable',
    message: 'The chain has produced no block for 10 block times; nothing was reserved; retry once it moves',
  },
  FEE_UNSETTLED: {
    status: 503,
    title: 'Service Unavailable',
    message: 'The fee did not settle while it was built (the pool or the prices moved); nothing is reserved; retry shortly',
  },
  WRONG_TRANSACTION_KIND: { status: 400, title: 'Bad Request', message: 'The body is not a transaction of the expected kind' },
  FEE_CAP_EXCEEDED: { status: 403, title: 'Forbidden', message: 'The fee exceeds the per-transaction cap' },
  DUST_BUDGET_EXCEEDED: { status: 429, title: 'Too Many Requests', message: 'The DUST budget of this key is spent for this window' },
  TRANSACTION_REJECTED: { status: 400, title: 'Bad Request', message: 'The ledger rejects this transaction' },
  // The body's ledger era (from its header tag) is not the one its network runs: nothing is reserved.
  LEDGER_ERA_MISMATCH: { status: 400, title: 'Bad Request', message: "The transaction is of another ledger era than its network's" },
  // The network changed ledger era while the transaction was being sponsored: its reservation is released.
  LEDGER_ERA_CHANGED: {
    status: 409,
    title: 'Conflict',
    message: 'The network changed ledger era during this request; rebuild the transaction for the new era',
  },
  // The indexer could not say whether the transaction's inputs are unspent: nothing is reserved (it would spend DUST on a guess).
  INPUTS_UNCHECKED: {
    status: 503,
    title: 'Service Unavailable',
    message: "The indexer could not confirm the transaction's inputs are unspent; nothing was reserved; retry shortly",
  },
  // An input of the transaction is spent by another answered sponsorship that has not landed or expired yet.
  INPUT_HELD: {
    status: 409,
    title: 'Conflict',
    message: 'An input of this transaction is spent by another sponsored transaction that has not landed or expired yet',
  },
  RESERVATION_LIMIT: {
    status: 429,
    title: 'Too Many Requests',
    message: 'This key holds its share of the DUST pool; retry when one of its transactions has landed',
  },
  // Several instances: the shared state (Redis) cannot charge the key's budget exactly now.
  BUDGET_UNAVAILABLE: { status: 503, title: 'Service Unavailable', message: 'The DUST budget cannot be charged exactly now; retry shortly' },
  // Several instances: another instance holds (or took) the lease on this network's server DUST wallets.
  WALLET_LEASE_LOST: { status: 503, title: 'Service Unavailable', message: 'This instance does not hold the lease on its DUST wallets' },
  // The key's policy (docs/policies.md) does not sponsor this transaction; `rule` names the rule. Nothing is reserved.
  POLICY_DENIED: { status: 403, title: 'Forbidden', message: "This key's sponsorship policy does not pay for this transaction" },
  // A per-user cap of the key's policy is reached for this window; Retry-After says when it opens.
  USER_LIMIT: { status: 429, title: 'Too Many Requests', message: 'This user has reached the sponsorships this key pays for in the window' },
  // The key's policy asks its owner's webhook, which did not answer (and `onTimeout` is "reject").
  POLICY_WEBHOOK_UNAVAILABLE: {
    status: 503,
    title: 'Service Unavailable',
    message: "The key's policy webhook did not answer; nothing was reserved; retry shortly",
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers, e.g. `Retry-After` on 503/429, `Allow` on 405. */
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** The policy rule that refused (POLICY_DENIED, USER_LIMIT, POLICY_WEBHOOK_UNAVAILABLE), sent as `rule`. */
  readonly rule: string | undefined;

  constructor(code: ErrorCode, detail?: string, opts?: { headers?: Record<string, string>; cause?: unknown; rule?: string }) {
    const spec: ErrorSpec = ERRORS[code];
    super(detail ?? spec.message, opts?.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = spec.status;
    this.headers = opts?.headers;
    this.rule = opts?.rule;
  }
}

export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError;
}

/** `{error: title, message: detail, code, rule?}`: the one error body (OpenAPI `Error`). */
export function errorBody(err: GatewayError): string {
  return JSON.stringify({ error: ERRORS[err.code].title, message: err.message, code: err.code, ...(err.rule === undefined ? {} : { rule: err.rule }) });
}

/** Wrap anything thrown into a catalogued error; unknown errors become INTERNAL without leaking internals. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('INTERNAL', undefined, { cause: err });
}
