/**
 * JSON-RPC over HTTP to a Midnight node (`networks.<n>.nodeRpc`), for the two statistics the
 * indexer may lack: the epoch (`sidechain_getStatus`) and the D-parameter
 * (`systemParameters_getDParameter`). One keep-alive undici Pool, a deadline per call, a small cap
 * on the answer, and every failure mapped to the catalogue code of what it leaves unknown
 * (EPOCH_UNAVAILABLE, D_PARAMETER_UNAVAILABLE), with a message that names the cause but not the
 * URL: it may reach a public answer, and node URLs carry credentials.
 */
import { Pool } from 'undici';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { GatewayError } from '../../core/errors.js';
import { redactUrls } from '../../core/log/url-redaction.js';
import { anchorFromNodeStatus, type EpochAnchor } from './epoch.js';
import { describe, readCapped, TIMEOUT_CODES } from '../../infra/indexer/upstream-body.js';

/** A status or a D-parameter is a few hundred bytes; anything near this is not one. */
const MAX_RESPONSE_BYTES = 65_536;

type UnknownCode = 'EPOCH_UNAVAILABLE' | 'D_PARAMETER_UNAVAILABLE';

const Envelope = Type.Object({
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String() })),
});
/** partner-chains' GetStatusResponse; `mainchain` (Cardano's epoch) is not read. */
const Status = Type.Object({
  sidechain: Type.Object({ epoch: Type.Integer({ minimum: 0 }), nextEpochTimestamp: Type.Integer({ minimum: 1 }) }),
});
const NodeDParameter = Type.Object({
  numPermissionedCandidates: Type.Integer({ minimum: 0 }),
  numRegisteredCandidates: Type.Integer({ minimum: 0 }),
});
type NodeDParameter = Static<typeof NodeDParameter>;

interface NodeRpcOptions {
  timeoutMs: number;
  /** A hosted provider's credentials, sent with every request (secrets). */
  headers?: Readonly<Record<string, string>>;
}

export class NodeRpcClient {
  requests = 0;
  failures = 0;
  private readonly path: string;
  private readonly pool: Pool;
  private nextId = 1;

  /** `url` over HTTP; a ws(s) URL is asked over HTTP on the same port, as a node serves both there. */
  constructor(
    url: string,
    private readonly opts: NodeRpcOptions,
  ) {
    const u = new URL(url.replace(/^ws(s?):/, 'http$1:'));
    this.path = `${u.pathname}${u.search}`;
    this.pool = new Pool(u.origin, {
      connections: 2,
      keepAliveTimeout: 30_000,
      connect: { timeout: opts.timeoutMs },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  }

  /** The current epoch as an anchor, its length included (which mainnet's chain spec does not fix). */
  async epoch(): Promise<EpochAnchor> {
    const method = 'sidechain_getStatus';
    const { epoch, nextEpochTimestamp } = (await this.call(method, [], Status, 'EPOCH_UNAVAILABLE')).sidechain;
    const anchor = anchorFromNodeStatus(epoch, nextEpochTimestamp);
    if (anchor) return anchor;
    throw this.failed(
      'EPOCH_UNAVAILABLE',
      `The node answered ${method} with epoch ${epoch} ending at ${nextEpochTimestamp} ms: not a whole number of seconds per epoch since the Unix epoch`,
    );
  }

  /** The D-parameter in force at block `at` (hex hash, with or without 0x): what the indexer would have said of that block. */
  dParameter(at: string): Promise<NodeDParameter> {
    const hash = at.startsWith('0x') ? at : `0x${at}`;
    return this.call('systemParameters_getDParameter', [hash], NodeDParameter, 'D_PARAMETER_UNAVAILABLE');
  }

  /** Abort whatever is in flight and release every socket. */
  async close(): Promise<void> {
    await this.pool.destroy();
  }

  private async call<T extends TSchema>(method: string, params: unknown[], shape: T, code: UnknownCode): Promise<Static<T>> {
    this.requests++;
    const envelope = await this.send(method, params, code);
    if (envelope.error)
      throw this.failed(code, `The node answered ${method} with error ${envelope.error.code}: ${redactUrls(envelope.error.message.slice(0, 200))}`);
    if (!Value.Check(shape, envelope.result)) {
      const first = Value.Errors(shape, envelope.result).First();
      throw this.failed(code, `The node's answer to ${method} is malformed${first ? ` at ${first.path || '/'}: ${first.message}` : ''}`);
    }
    return envelope.result;
  }

  private async send(method: string, params: unknown[], code: UnknownCode): Promise<Static<typeof Envelope>> {
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: { ...this.opts.headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        signal: deadline,
      });
      status = res.statusCode;
      text = await readCapped(res.body, MAX_RESPONSE_BYTES, res.headers['content-length'], () => new TooLarge());
    } catch (err) {
      if (err instanceof TooLarge) throw this.failed(code, `The node's answer to ${method} exceeds the ${MAX_RESPONSE_BYTES}-byte limit`);
      if (deadline.aborted || TIMEOUT_CODES.has((err as { code?: string }).code ?? '')) {
        throw this.failed(code, `The node did not answer ${method} within ${this.opts.timeoutMs} ms`, err);
      }
      throw this.failed(code, `The node could not be reached for ${method}: ${describe(err)}`, err);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw this.failed(code, `The node answered ${method} with HTTP ${status} and a body that is not JSON`);
    }
    // A JSON-RPC error may come with any status; anything else but 200 is not an answer.
    if (Value.Check(Envelope, body) && (body.error !== undefined || status === 200)) return body;
    throw this.failed(code, `The node answered ${method} with HTTP ${status} and no JSON-RPC result`);
  }

  private failed(code: UnknownCode, message: string, cause?: unknown): GatewayError {
    this.failures++;
    return new GatewayError(code, message, cause === undefined ? undefined : { cause });
  }
}

class TooLarge extends Error {}
