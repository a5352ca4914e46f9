/**
 * `nightgate submit`: sends a transaction to its network's node and waits until the chain has it.
 * stdin holds the JSON answer of POST /prove-and-balance or /balance-only (`tx` in hex, `txHash`)
 * or a finalized transaction's bytes (`midnight:transaction…`).
 *
 * Where to submit is where the server submits (chain-access.ts): the node RPC of the configuration
 * (`networks.<n>.nodeRpc`, with the network's project id), or for an embedded network the devnet's
 * own, which the running server's keyed GET /health lists. The node's refusals are printed as the
 * server words them (src/infra/node/submitter.ts).
 *
 * On chain means the public transaction route (GET /api/v1/{network}/transaction?hash=) answers
 * 200 — its detail carries the block's height and hash. Until then it answers 404; a 404 is not
 * cached (lookup-cache.ts), so each poll asks the indexer again.
 */
import { ConfigError, loadConfig, type Config } from '../core/config/index.js';
import { NETWORKS, type NetworkName } from '../core/config/networks.js';
import { GatewayError } from '../core/errors.js';
import { eraOfBytes, ledger, release } from '../infra/ledger/index.js';
import { Submitter } from '../infra/node/submitter.js';
import { baseUrl, DEFAULT_BASE_URL } from './base-url.js';
import { chainAccess, CliError, getText, jsonOrUndefined } from './chain-access.js';

export class SubmitTxError extends Error {}

export const DEFAULT_TIMEOUT_S = 60;
/** A block every 6 s by default (docs/devnet.md): once a second finds it within a second. */
const POLL_MS = 1000;
const TX_TAG = 'midnight:transaction';
const HEX = /^(?:[0-9a-f]{2})+$/i;
const HASH = /^[0-9a-f]{64}$/i;
/** Answers the poll waits through: not on chain yet, rate limited, indexer or server briefly down. */
const RETRIED = (status: number): boolean => status === 404 || status === 429 || status >= 500;

interface SubmitArgs {
  network: NetworkName;
  /** nightgate's base URL (`http://127.0.0.1:8080`; `localhost:8080` works too). */
  url: string;
  key: string | undefined;
  timeoutMs: number;
}

interface SubmitInput {
  tx: Uint8Array;
  /** From the sponsorship answer; raw bytes have none, and the devnet's answer names it. */
  txHash: string | undefined;
}

interface SubmitOptions extends SubmitArgs, SubmitInput {
  pollMs?: number;
  /** The server's configuration (default: read as the server reads it). */
  config?: Readonly<Config>;
  /** Progress, for a person watching (stderr). */
  log?: (line: string) => void;
}

const FLAGS = ['--network', '--url', '--key', '--timeout'] as const;

/** The flags as given, or what is wrong with them (a usage error). */
export function parseSubmitArgs(args: readonly string[]): SubmitArgs | { problem: string } {
  const given = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]!;
    const value = args[i + 1];
    if (!(FLAGS as readonly string[]).includes(name)) return { problem: `unknown argument ${JSON.stringify(name)}` };
    if (given.has(name)) return { problem: `${name} given twice` };
    if (value === undefined || value === '' || value.startsWith('--')) return { problem: `${name} needs a value` };
    given.set(name, value);
  }
  const network = given.get('--network');
  if (network === undefined) return { problem: '--network is required' };
  if (!(NETWORKS as readonly string[]).includes(network)) return { problem: `--network must be one of ${NETWORKS.join(', ')}` };
  const timeout = given.get('--timeout') ?? String(DEFAULT_TIMEOUT_S);
  if (!/^\d+(?:\.\d+)?$/.test(timeout) || Number(timeout) <= 0) return { problem: '--timeout must be a positive number of seconds' };
  return { network: network as NetworkName, url: given.get('--url') ?? DEFAULT_BASE_URL, key: given.get('--key'), timeoutMs: Number(timeout) * 1000 };
}

/** stdin: a sponsorship answer (JSON) or a transaction's bytes. */
export function parseSubmitInput(input: Uint8Array): SubmitInput {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (bytes.subarray(0, 'midnight:'.length).toString('latin1') === 'midnight:') return { tx: transactionBytes(bytes, 'stdin'), txHash: undefined };
  let answer: unknown;
  try {
    answer = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new SubmitTxError(
      bytes.length === 0
        ? 'stdin is empty: redirect the answer of /prove-and-balance to it (< sponsored.json)'
        : 'stdin is neither JSON nor transaction bytes (midnight:transaction…): give it the answer of /prove-and-balance or /balance-only',
    );
  }
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
    throw new SubmitTxError('stdin is JSON but not an object: give it the answer of /prove-and-balance or /balance-only');
  const { tx, txHash, code, message } = answer as Record<string, unknown>;
  if (tx === undefined && typeof code === 'string')
    throw new SubmitTxError(`stdin is an error answer, not a transaction: ${code}${typeof message === 'string' ? `: ${message}` : ''}`);
  if (typeof tx !== 'string' || !HEX.test(tx)) throw new SubmitTxError('stdin has no "tx" in hex: give it the answer of /prove-and-balance or /balance-only');
  if (txHash !== undefined && (typeof txHash !== 'string' || !HASH.test(txHash))) throw new SubmitTxError('stdin\'s "txHash" is not 64 hex digits');
  return { tx: transactionBytes(Buffer.from(tx, 'hex'), 'stdin\'s "tx"'), txHash: typeof txHash === 'string' ? txHash.toLowerCase() : undefined };
}

function transactionBytes(bytes: Buffer, what: string): Uint8Array {
  if (bytes.subarray(0, TX_TAG.length).toString('latin1') === TX_TAG) return new Uint8Array(bytes);
  const tag = /^midnight:[^:]{0,80}/.exec(bytes.subarray(0, 100).toString('latin1'))?.[0];
  throw new SubmitTxError(`${what} is ${tag ?? 'not midnight: bytes'}, not a transaction (midnight:transaction…)`);
}

/** Submits the transaction to the network's node and answers its detail from the transaction route once it is on chain. */
export async function submitTransaction(opts: SubmitOptions): Promise<unknown> {
  const deadline = Date.now() + opts.timeoutMs;
  const base = baseUrl(opts.url);
  const config = opts.config ?? loadCliConfig();
  let access;
  try {
    access = await chainAccess(config, opts.network, base, opts.key, deadline);
  } catch (err) {
    if (err instanceof CliError) throw new SubmitTxError(err.message);
    throw err;
  }
  const submitter = new Submitter({
    network: opts.network,
    nodeRpc: access.nodeRpcUrl,
    relayUrl: access.relayUrl,
    headers: access.credentials.headers,
    framing: access.framing,
    timeoutMs: Math.max(1, deadline - Date.now()),
  });
  try {
    await submitter.submit(opts.tx);
  } catch (err) {
    if (err instanceof GatewayError) throw new SubmitTxError(`the ${opts.network} node refused the transaction: ${err.code}: ${err.message}`);
    throw err;
  } finally {
    await submitter.close();
  }
  const hash = opts.txHash ?? transactionHashOf(opts.tx);
  opts.log?.(`submitted ${hash} to ${opts.network} through its node${access.embedded ? ' (the embedded devnet)' : ''}; waiting for it on chain`);
  return onChain(`${base}/api/v1/${opts.network}/transaction?hash=${hash}`, deadline, opts);
}

/** The configuration the server runs with (NIGHTGATE_CONFIG and the environment), its errors as the CLI's. */
function loadCliConfig(): Readonly<Config> {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new SubmitTxError(err.message);
    throw err;
  }
}

/** The hash the indexer knows a finalized transaction by. */
function transactionHashOf(bytes: Uint8Array): string {
  const era = eraOfBytes(bytes);
  if (era === undefined) throw new SubmitTxError('the transaction is of no ledger era nightgate knows');
  const tx = ledger(era).Transaction.deserialize('signature', 'proof', 'binding', bytes);
  const hash = tx.transactionHash();
  release(tx);
  return hash;
}

async function get(url: string, headers: Record<string, string>, deadline: number): Promise<{ status: number; text: string }> {
  return getText(url, headers, deadline);
}

async function onChain(url: string, deadline: number, opts: SubmitOptions): Promise<unknown> {
  const pollMs = opts.pollMs ?? POLL_MS;
  let last = 'nothing';
  for (;;) {
    try {
      const res = await get(url, {}, deadline);
      if (res.status === 200) return jsonOrUndefined(res.text) ?? res.text;
      if (!RETRIED(res.status)) throw new SubmitTxError(`GET ${url} answered ${res.status}: ${res.text.slice(0, 300)}`);
      last = `${res.status} ${res.text.slice(0, 200)}`;
    } catch (err) {
      if (err instanceof SubmitTxError) throw err;
      // A request cut short by the deadline tells nothing new: keep the answer before it.
      if ((err as Error).name !== 'TimeoutError' || last === 'nothing') last = (err as Error).message;
    }
    if (Date.now() + pollMs >= deadline) {
      throw new SubmitTxError(`the transaction is not on chain after ${opts.timeoutMs / 1000} s (--timeout); GET ${url} last answered ${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
