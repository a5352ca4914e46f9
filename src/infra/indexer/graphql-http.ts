/**
 * GraphQL over HTTP to one indexer: one keep-alive undici Pool, a deadline per request, a cap on
 * the response size, and every failure mapped to a catalogue code (INDEXER_UNAVAILABLE,
 * INDEXER_TIMEOUT, INDEXER_BAD_RESPONSE) so routes answer what the specification asks for.
 * The indexer takes POST only and no batching (LEDGER.md, "Indexer").
 */
import { Pool } from 'undici';
import { GatewayError } from '../../core/errors.js';
import type { GqlDocument } from './document.js';
import { describe, readCapped, TIMEOUT_CODES } from './upstream-body.js';

interface GraphqlHttpOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  /** Sockets kept to the indexer; lookups beyond this queue in the pool. */
  connections?: number;
  /** Sent with every request: a hosted provider's credentials (secrets). */
  headers?: Readonly<Record<string, string>>;
}

export interface GqlResult {
  data: Record<string, unknown>;
  /** Messages of partial errors, when the caller accepts partial data. */
  errors: string[];
}

export class GraphqlHttpClient {
  readonly origin: string;
  readonly path: string;
  requests = 0;
  failures = 0;
  private readonly pool: Pool;

  constructor(
    readonly url: string,
    private readonly opts: GraphqlHttpOptions,
  ) {
    const u = new URL(url);
    this.origin = u.origin;
    this.path = `${u.pathname}${u.search}`;
    this.pool = new Pool(this.origin, {
      connections: opts.connections ?? 16,
      keepAliveTimeout: 30_000,
      connect: { timeout: opts.timeoutMs },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  }

  /**
   * Send one document. GraphQL `errors` with no data are an indexer error; with data, they are
   * an error too unless `partial` is set (the caller then reads what did resolve).
   */
  async request(document: GqlDocument, variables: Record<string, unknown> = {}, opts: { signal?: AbortSignal; partial?: boolean } = {}): Promise<GqlResult> {
    this.requests++;
    try {
      return await this.send(document, variables, opts);
    } catch (err) {
      this.failures++;
      throw err;
    }
  }

  private async send(document: GqlDocument, variables: Record<string, unknown>, opts: { signal?: AbortSignal; partial?: boolean }): Promise<GqlResult> {
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    let text: string;
    let status: number;
    try {
      const res = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: { ...this.opts.headers, 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
        body: JSON.stringify({ operationName: document.name, query: document.text, variables }),
        signal,
      });
      status = res.statusCode;
      text = await readCapped(res.body, this.opts.maxResponseBytes, res.headers['content-length'], (declared) =>
        tooLarge(this.opts.maxResponseBytes, declared),
      );
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      if (deadline.aborted || TIMEOUT_CODES.has((err as { code?: string }).code ?? '')) {
        throw new GatewayError('INDEXER_TIMEOUT', `The indexer did not answer ${document.name} within ${this.opts.timeoutMs} ms`, { cause: err });
      }
      if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new GatewayError('CLIENT_ABORTED');
      // The message reaches public answers: no origin (the component's health and logs name it).
      throw new GatewayError('INDEXER_UNAVAILABLE', `The indexer could not be reached: ${describe(err)}`, { cause: err });
    }
    const refusal = endpointRefusal(status, text);
    if (refusal) throw refusal;
    return parseGraphqlResponse(text, status, document.name, opts.partial === true);
  }

  /** Abort whatever is in flight and release every socket. */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

function parseGraphqlResponse(text: string, status: number, what: string, partial: boolean): GqlResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GatewayError('INDEXER_BAD_RESPONSE', `The indexer answered ${what} with HTTP ${status} and a body that is not JSON`);
  }
  if (body === null || typeof body !== 'object')
    throw new GatewayError('INDEXER_BAD_RESPONSE', `The indexer answered ${what} with HTTP ${status} and no GraphQL result`);
  const { data, errors } = body as { data?: unknown; errors?: unknown };
  const messages = Array.isArray(errors) ? errors.map((e) => String((e as { message?: unknown })?.message ?? 'unknown error')) : [];
  const hasData = data !== null && typeof data === 'object';
  if (!hasData || (messages.length > 0 && !partial) || status !== 200) {
    const why = messages.length > 0 ? messages.slice(0, 3).join('; ') : `HTTP ${status}`;
    throw new GatewayError('INDEXER_BAD_RESPONSE', `The indexer answered ${what} with an error: ${why}`);
  }
  return { data: data as Record<string, unknown>, errors: messages };
}

function tooLarge(cap: number, declared: string | undefined): GatewayError {
  return new GatewayError(
    'INDEXER_BAD_RESPONSE',
    declared === undefined
      ? `The indexer's response exceeds the ${cap}-byte limit`
      : `The indexer's response (${declared} bytes) exceeds the ${cap}-byte limit`,
  );
}

/**
 * An answer that no retry changes: the host retired (410, or Midnight's ENDPOINT_DECOMMISSIONED
 * body) or the credentials refused (401/403). Undefined for anything else.
 */
function endpointRefusal(status: number, text: string): GatewayError | undefined {
  if (status === 410 || (status >= 400 && text.includes('ENDPOINT_DECOMMISSIONED')))
    return new GatewayError('INDEXER_DECOMMISSIONED', `The indexer is decommissioned (HTTP ${status})`);
  if (status === 401 || status === 403) return new GatewayError('INDEXER_UNAUTHORIZED', `The indexer refused the credentials (HTTP ${status})`);
  return undefined;
}

/** Whether an error is an answer no retry changes (endpointRefusal). */
export function isFinalRefusal(err: unknown): boolean {
  return err instanceof GatewayError && (err.code === 'INDEXER_DECOMMISSIONED' || err.code === 'INDEXER_UNAUTHORIZED');
}

/** The setting to change after a refusal of a network's indexer (isFinalRefusal). */
export function refusalSetting(err: GatewayError, network: string): string {
  const N = network.toUpperCase();
  return err.code === 'INDEXER_UNAUTHORIZED'
    ? `networks.${network}.projectId (NIGHTGATE_${N}_PROJECT_ID)`
    : `networks.${network}.indexer (NIGHTGATE_${N}_INDEXER)`;
}
