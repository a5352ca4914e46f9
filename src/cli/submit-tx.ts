/**
 * `nightgate submit`: sends a transaction to the embedded devnet of its network and waits until
 * the chain has it. stdin holds the JSON answer of POST /prove-and-balance or /balance-only
 * (`tx` in hex, `txHash`) or a finalized transaction's bytes (`midnight:transaction…`).
 *
 * Where to submit comes from the running server: GET /health with a key lists each embedded
 * devnet's `submitUrl` under `components.devnet.networks`. A network read from a public indexer
 * has none, and nightgate does not relay to public networks: a wallet or the operator's node
 * submits there. The devnet answers 202 `{accepted, hash, identifiers, expectedHeight}` or a
 * refusal as a node words it (`{error, code}`, packages/devnet/src/node-rejections.ts).
 *
 * On chain means the public transaction route (GET /api/v1/{network}/transaction?hash=) answers
 * 200 — its detail carries the block's height and hash. Until then it answers 404; a 404 is not
 * cached (lookup-cache.ts), so each poll asks the indexer again.
 */
import { NETWORKS, type NetworkName } from '../core/config/networks.js';
import { baseUrl, DEFAULT_BASE_URL } from './base-url.js';

export class SubmitTxError extends Error {}

export const DEFAULT_TIMEOUT_S = 60;
/** A block every 6 s by default (docs/devnet.md): once a second finds it within a second. */
const POLL_MS = 1000;
const TX_TAG = 'midnight:transaction';
const HEX = /^(?:[0-9a-f]{2})+$/i;
const HASH = /^[0-9a-f]{64}$/i;
/** Answers the poll waits through: not on chain yet, rate limited, indexer or server briefly down. */
const RETRIED = (status: number): boolean => status === 404 || status === 429 || status >= 500;

export interface SubmitArgs {
  network: NetworkName;
  /** nightgate's base URL (`http://127.0.0.1:8080`; `localhost:8080` works too). */
  url: string;
  key: string | undefined;
  timeoutMs: number;
}

export interface SubmitInput {
  tx: Uint8Array;
  /** From the sponsorship answer; raw bytes have none, and the devnet's answer names it. */
  txHash: string | undefined;
}

export interface SubmitOptions extends SubmitArgs, SubmitInput {
  pollMs?: number;
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
      bytes.length === 0 ? 'stdin is empty: redirect the answer of /prove-and-balance to it (< sponsored.json)' : 'stdin is neither JSON nor transaction bytes (midnight:transaction…): give it the answer of /prove-and-balance or /balance-only',
    );
  }
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new SubmitTxError('stdin is JSON but not an object: give it the answer of /prove-and-balance or /balance-only');
  const { tx, txHash, code, message } = answer as Record<string, unknown>;
  if (tx === undefined && typeof code === 'string') throw new SubmitTxError(`stdin is an error answer, not a transaction: ${code}${typeof message === 'string' ? `: ${message}` : ''}`);
  if (typeof tx !== 'string' || !HEX.test(tx)) throw new SubmitTxError('stdin has no "tx" in hex: give it the answer of /prove-and-balance or /balance-only');
  if (txHash !== undefined && (typeof txHash !== 'string' || !HASH.test(txHash))) throw new SubmitTxError('stdin\'s "txHash" is not 64 hex digits');
  return { tx: transactionBytes(Buffer.from(tx, 'hex'), 'stdin\'s "tx"'), txHash: typeof txHash === 'string' ? txHash.toLowerCase() : undefined };
}

function transactionBytes(bytes: Buffer, what: string): Uint8Array {
  if (bytes.subarray(0, TX_TAG.length).toString('latin1') === TX_TAG) return new Uint8Array(bytes);
  const tag = /^midnight:[^:]{0,80}/.exec(bytes.subarray(0, 100).toString('latin1'))?.[0];
  throw new SubmitTxError(`${what} is ${tag ?? 'not midnight: bytes'}, not a transaction (midnight:transaction…)`);
}

/** Submits the transaction and answers its detail from the transaction route once it is on chain. */
export async function submitTransaction(opts: SubmitOptions): Promise<unknown> {
  const deadline = Date.now() + opts.timeoutMs;
  const base = baseUrl(opts.url);
  const submitUrl = await submitUrlOf(base, opts.network, opts.key, deadline);
  const accepted = await submit(submitUrl, opts.network, opts.tx, deadline);
  const hash = opts.txHash ?? accepted.hash;
  const height = typeof accepted.expectedHeight === 'number' ? ` for block ${accepted.expectedHeight}` : '';
  opts.log?.(`submitted ${hash} to the ${opts.network} devnet${height}; waiting for it on chain`);
  return onChain(`${base}/api/v1/${opts.network}/transaction?hash=${hash}`, deadline, opts);
}

async function get(url: string, headers: Record<string, string>, deadline: number): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
  return { status: res.status, text: await res.text() };
}

async function submitUrlOf(base: string, network: NetworkName, key: string | undefined, deadline: number): Promise<string> {
  let res: { status: number; text: string };
  try {
    res = await get(`${base}/health`, key === undefined ? {} : { 'x-api-key': key }, deadline);
  } catch (err) {
    throw new SubmitTxError(`cannot read ${base}/health (${(err as Error).message}): is nightgate running there? (--url)`);
  }
  if (res.status === 401) throw new SubmitTxError(`${base} refused the API key (401): pass a valid one with --key`);
  if (res.status !== 200) throw new SubmitTxError(`GET ${base}/health answered ${res.status}: ${res.text.slice(0, 300)}`);
  const health = jsonOrUndefined(res.text) as { components?: { devnet?: { networks?: Record<string, { submitUrl?: unknown }> } } } | undefined;
  if (health === undefined) throw new SubmitTxError(`GET ${base}/health answered no JSON object: ${res.text.slice(0, 300)}`);
  if (health.components === undefined) throw new SubmitTxError(`GET ${base}/health lists its components only to a key: pass one with --key`);
  const submitUrl = health.components.devnet?.networks?.[network]?.submitUrl;
  if (typeof submitUrl !== 'string') {
    throw new SubmitTxError(`${network} is not served by an embedded devnet at ${base}: nightgate submits to its own devnets only, not to public networks (submit there with a wallet or through a node)`);
  }
  return submitUrl;
}

async function submit(submitUrl: string, network: NetworkName, tx: Uint8Array, deadline: number): Promise<{ hash: string; expectedHeight?: unknown }> {
  let res: Response;
  try {
    res = await fetch(submitUrl, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: tx, signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
  } catch (err) {
    throw new SubmitTxError(`cannot reach the ${network} devnet at ${submitUrl} (${(err as Error).message})`);
  }
  const text = await res.text();
  const body = jsonOrUndefined(text);
  if (res.status !== 202 && res.status !== 200) {
    const reason = typeof body?.['error'] === 'string' ? `${String(body['code'] ?? res.status)}: ${body['error']}` : `${res.status}: ${text.slice(0, 300)}`;
    throw new SubmitTxError(`the ${network} devnet refused the transaction: ${reason}`);
  }
  if (typeof body?.['hash'] !== 'string') throw new SubmitTxError(`the ${network} devnet accepted the transaction without naming its hash: ${text.slice(0, 300)}`);
  return { hash: body['hash'], expectedHeight: body['expectedHeight'] };
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

function jsonOrUndefined(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
