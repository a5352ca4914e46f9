/**
 * The one way nightgate puts a transaction on a chain: JSON-RPC `author_submitExtrinsic` to the
 * network's node (`networks.<n>.nodeRpc`, HTTP or WebSocket), the transaction framed as the bare
 * extrinsic `Midnight::send_mn_transaction` (@nightgate/ledger/extrinsic). The pool keeper's
 * splits, wallet registrations and `nightgate submit` all go through here.
 *
 * `networks.<n>.submitUrl`, a relay taking the transaction's bytes by POST, is still honoured in
 * its place (deprecated: start-up warns).
 *
 * The node's refusals become catalogue errors:
 * - 1010 Invalid Transaction (`Custom error: N`, N the ledger's reason): NODE_REJECTED, never lands;
 * - 1001 bad format, 1002 verification failed: NODE_REJECTED;
 * - 1012 temporarily banned, 1014 priority too low, 1016 dropped, a provider's 429: NODE_BUSY, retry later;
 * - 1013 already imported: accepted (the same transaction is in the pool);
 * - a provider's 401/403: NODE_UNAUTHORIZED, 410: NODE_DECOMMISSIONED (the setting is named).
 */
import { request } from 'undici';
import type { Config, NetworkName, UpstreamCredentials } from '../../core/config/index.js';
import { GatewayError } from '../../core/errors.js';
import { encodeSubmitExtrinsic, type ExtrinsicFraming } from '../ledger/index.js';
import { jsonRpc, JsonRpcError, RpcHttpError, type JsonRpc } from './json-rpc.js';

/** Ledger refusals a Midnight node reports as `Custom error: N`: the ones a sponsor meets. */
const NODE_CUSTOM_ERRORS: Readonly<Record<number, string>> = {
  115: 'InvalidProof',
  166: 'InvalidNetworkId',
  169: 'InvalidDustRegistrationSignature',
  170: 'InvalidDustSpendProof',
  171: 'OutOfDustValidityWindow',
  172: 'MultipleDustRegistrationsForKey',
  173: 'InsufficientDustForRegistrationFee',
  195: 'InputNotInUtxos',
  196: 'DustDoubleSpend',
  228: 'IntentTtlExpired',
  229: 'IntentTtlTooFarInFuture',
  230: 'IntentAlreadyExists',
};

interface SubmitterOptions {
  network: string;
  /** The node's JSON-RPC URL; undefined when there is none. */
  nodeRpc: string | undefined;
  /** Deprecated relay used in the node's place. */
  relayUrl?: string | undefined;
  /** A hosted provider's credentials, sent with every request. */
  headers?: Readonly<Record<string, string>>;
  framing: ExtrinsicFraming;
  timeoutMs: number;
}

interface Submitted {
  via: 'node' | 'relay';
  /** The node's hash of the extrinsic, when it names one. */
  extrinsicHash?: string;
  /** The node had it already (1013): accepted all the same. */
  alreadyKnown: boolean;
}

function customOf(data: unknown): number | undefined {
  const m = /Custom error: (\d+)/.exec(typeof data === 'string' ? data : JSON.stringify(data ?? ''));
  return m ? Number(m[1]) : undefined;
}

/** A node's JSON-RPC refusal of a submission, as a catalogue error; undefined when it is an acceptance. */
function submissionError(err: JsonRpcError): GatewayError | undefined {
  const detail = typeof err.data === 'string' ? err.data : err.data === undefined ? '' : JSON.stringify(err.data);
  const said = `${err.code}: ${err.message}${detail ? ` (${detail.slice(0, 300)})` : ''}`;
  switch (err.code) {
    case 1013:
      return undefined;
    case 1010: {
      const n = customOf(err.data);
      const name = n === undefined ? undefined : NODE_CUSTOM_ERRORS[n];
      return new GatewayError('NODE_REJECTED', `The node refused the transaction: ${said}${name ? ` — ${name}` : ''}`);
    }
    case 1001:
    case 1002:
    case 1011:
      return new GatewayError('NODE_REJECTED', `The node refused the transaction: ${said}`);
    case 1012:
    case 1014:
    case 1016:
      return new GatewayError('NODE_BUSY', `The node's pool did not take the transaction now: ${said}`, { headers: { 'Retry-After': '6' } });
    default:
      return new GatewayError('NODE_BAD_RESPONSE', `The node answered author_submitExtrinsic with an error: ${said}`);
  }
}

function httpError(err: RpcHttpError, network: string, what: string): GatewayError {
  const N = network.toUpperCase();
  if (err.status === 410)
    return new GatewayError(
      'NODE_DECOMMISSIONED',
      `The ${network} ${what} is decommissioned (HTTP 410): set networks.${network}.nodeRpc (NIGHTGATE_${N}_NODE_RPC) to a live node or \`public\``,
    );
  if (err.status === 429)
    return new GatewayError('NODE_BUSY', `The ${network} ${what} refused the request over its quota (HTTP 429)`, {
      headers: { 'Retry-After': String(err.retryAfterS ?? 6) },
    });
  return new GatewayError(
    'NODE_UNAUTHORIZED',
    `The ${network} ${what} refused the credentials (HTTP ${err.status}): check networks.${network}.projectId (NIGHTGATE_${N}_PROJECT_ID)`,
  );
}

export class Submitter {
  readonly via: 'node' | 'relay' | 'none';
  private rpc: JsonRpc | undefined;

  constructor(private readonly opts: SubmitterOptions) {
    this.via = opts.relayUrl ? 'relay' : opts.nodeRpc ? 'node' : 'none';
  }

  /** Why nothing can be submitted, or undefined when something can. */
  get unavailable(): string | undefined {
    const n = this.opts.network;
    return this.via === 'none' ? `no node to submit to on ${n}: set networks.${n}.nodeRpc (NIGHTGATE_${n.toUpperCase()}_NODE_RPC)` : undefined;
  }

  async submit(tx: Uint8Array): Promise<Submitted> {
    if (this.via === 'relay') return this.relay(tx);
    if (this.via === 'none') throw new GatewayError('NODE_UNAVAILABLE', this.unavailable);
    this.rpc ??= jsonRpc(this.opts.nodeRpc!, { timeoutMs: this.opts.timeoutMs, ...(this.opts.headers ? { headers: this.opts.headers } : {}) });
    const extrinsic = `0x${Buffer.from(encodeSubmitExtrinsic(tx, this.opts.framing)).toString('hex')}`;
    try {
      const hash = await this.rpc.call('author_submitExtrinsic', [extrinsic]);
      return { via: 'node', alreadyKnown: false, ...(typeof hash === 'string' ? { extrinsicHash: hash } : {}) };
    } catch (err) {
      if (err instanceof RpcHttpError) throw httpError(err, this.opts.network, 'node RPC');
      if (!(err instanceof JsonRpcError)) throw err;
      const refusal = submissionError(err);
      if (refusal) throw refusal;
      return { via: 'node', alreadyKnown: true };
    }
  }

  private async relay(tx: Uint8Array): Promise<Submitted> {
    let res;
    try {
      res = await request(this.opts.relayUrl!, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: tx,
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      });
    } catch (err) {
      throw new GatewayError(
        'NODE_UNAVAILABLE',
        `The ${this.opts.network} relay (networks.${this.opts.network}.submitUrl) could not be reached (${(err as Error).message})`,
      );
    }
    const text = (await res.body.text()).slice(0, 500);
    if (res.statusCode === 200 || res.statusCode === 202) return { via: 'relay', alreadyKnown: false };
    throw new GatewayError(res.statusCode >= 500 ? 'NODE_UNAVAILABLE' : 'NODE_REJECTED', `The ${this.opts.network} relay answered ${res.statusCode}: ${text}`);
  }

  async close(): Promise<void> {
    await this.rpc?.close();
  }
}

/** The submitter of a network as configured: its node RPC (as resolved by the caller) or the deprecated relay. */
export function networkSubmitter(config: Config, network: NetworkName, nodeRpcUrl: string | undefined, credentials: UpstreamCredentials): Submitter {
  const net = config.networks[network];
  return new Submitter({
    network,
    nodeRpc: nodeRpcUrl,
    relayUrl: net.submitUrl || undefined,
    headers: credentials.headers,
    framing: net.extrinsic,
    timeoutMs: config.stats.upstreamTimeoutMs,
  });
}

/** The start-up warning for a deprecated relay, or undefined. */
export function relayDeprecation(config: Config, network: NetworkName): string | undefined {
  if (config.networks[network].submitUrl === '') return undefined;
  return (
    `networks.${network}.submitUrl (NIGHTGATE_${network.toUpperCase()}` +
    `_SUBMIT_URL) is deprecated: transactions go to the node's JSON-RPC (networks.${network}` +
    `.nodeRpc, author_submitExtrinsic); the relay is used until it is removed`
  );
}
