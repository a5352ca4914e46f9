/**
 * One client of the sustained-sponsorship run, the way a wallet backend serves one user: build an
 * unproven NIGHT transfer from the user's current UTXO → `POST /prove-and-balance` with the
 * client's own key → `POST /submit` of the answer's bytes to the devnet → wait for the block that
 * includes it → the next transfer spends its change. Until `endAt`; a transaction still on its
 * way then is waited for until `drainUntil`.
 */
import { performance } from 'node:perf_hooks';
import type { L as Ledger } from '../../src/infra/ledger/index.js';
import type { ChainWatch } from './chain-watch.js';
import type { DevnetDrops } from './devnet-drops.js';
import { request, sleep } from './http.js';
import { unprovenTransfer, type LedgerModule, type NightUtxo, type NightWallet } from './night-transfer.js';
import type { SponsorCall, TxRecord } from './sustained-stats.js';

/** The user's intent TTL; the sponsor's fee intent does not outlive it. */
const USER_TTL_MS = 5 * 60_000;
const SPONSOR_TIMEOUT_MS = 60_000;
const SUBMIT_TIMEOUT_MS = 30_000;
/** After a refusal without Retry-After (400, 403, a transport error): wait this long before trying again. */
const REFUSED_PAUSE_MS = 1000;
/** Retry-After is honoured within these bounds, so a long hint cannot park a client for the run. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5000;

export interface Client {
  index: number;
  apiKey: string;
  wallet: NightWallet;
  utxo: NightUtxo;
}

export interface RunEnv {
  L: LedgerModule;
  baseUrl: string;
  network: string;
  networkId: string;
  submitUrl: string;
  watch: ChainWatch;
  /** Local runs: the devnet's block-time drops, read from the server's log. */
  drops?: DevnetDrops;
  /** Where the transfers send their 1+ STAR. */
  sink: Ledger.UserAddress;
  /** After a block, how long past `expiresAt` a transaction may still be seen (block time). */
  inclusionGraceMs: number;
  endAt: number;
  drainUntil: number;
  calls: SponsorCall[];
  txs: TxRecord[];
  /** Clients that stopped early, with why. */
  stopped: Array<{ client: number; reason: string }>;
}

function errorCode(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

function errorText(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; code?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : typeof parsed.message === 'string' ? parsed.message : text;
    return typeof parsed.code === 'string' ? `${parsed.code}: ${message}` : message;
  } catch {
    return text.slice(0, 300);
  }
}

interface Answer {
  tx: string;
  txHash: string;
  expiresAt: string;
  fee: string;
  dustUtxo: { wallet: number; slot: number };
}

export async function runClient(env: RunEnv, client: Client): Promise<void> {
  const pause = (ms: number): Promise<void> => sleep(Math.max(0, Math.min(ms, env.endAt - Date.now())));
  let utxo = client.utxo;
  // Distinct amounts make distinct bytes: the server answers the same bytes only once.
  let amount = 1n;
  while (Date.now() < env.endAt) {
    const body = unprovenTransfer(env.L, client.wallet, utxo, env.sink, amount++, env.networkId, USER_TTL_MS);
    const t0 = performance.now();
    let reply;
    try {
      reply = await request(`${env.baseUrl}/prove-and-balance`, {
        method: 'POST',
        headers: { 'x-api-key': client.apiKey, 'x-midnight-network': env.network, 'content-type': 'application/octet-stream' },
        body,
        timeoutMs: SPONSOR_TIMEOUT_MS,
      });
    } catch (err) {
      env.calls.push({ at: Date.now(), ms: performance.now() - t0, status: 0, code: (err as Error).name });
      await pause(REFUSED_PAUSE_MS);
      continue;
    }
    const ms = performance.now() - t0;
    const at = Date.now();
    if (reply.status !== 200) {
      const code = errorCode(reply.body);
      env.calls.push({ at, ms, status: reply.status, ...(code ? { code } : {}) });
      const hint = Number(reply.headers.get('retry-after'));
      const wait = Number.isFinite(hint) && hint > 0 ? Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, hint * 1000)) : REFUSED_PAUSE_MS;
      // Jitter, so clients refused together do not come back together.
      await pause(wait * (0.75 + Math.random() / 2));
      continue;
    }
    env.calls.push({ at, ms, status: 200 });
    const answer = JSON.parse(reply.body.toString('utf8')) as Answer;
    const rec: TxRecord = {
      client: client.index,
      txHash: answer.txHash,
      answeredAt: at,
      dustUtxo: `${answer.dustUtxo.wallet}:${answer.dustUtxo.slot}`,
      expiresAt: Date.parse(answer.expiresAt),
      fee: answer.fee,
      outcome: 'pending',
    };
    env.txs.push(rec);

    let submitted;
    try {
      submitted = await request(env.submitUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from(answer.tx, 'hex'),
        timeoutMs: SUBMIT_TIMEOUT_MS,
      });
    } catch (err) {
      // No answer is not a refusal: the node may have taken the transaction. Spending the same
      // UTXO again would then be a double spend of our own making, so wait for this one to land
      // or expire, as if it had been accepted.
      rec.reason = `no answer from /submit: ${(err as Error).message}`;
      submitted = undefined;
    }
    if (submitted !== undefined && submitted.status !== 202 && submitted.status !== 200) {
      rec.outcome = 'submit-rejected';
      rec.reason = `${submitted.status} ${errorText(submitted.body)}`;
      // The UTXO was not spent: the next transfer spends it again.
      await pause(REFUSED_PAUSE_MS);
      continue;
    }
    rec.submittedAt = Date.now();

    const signal = env.drops?.signalFor(answer.txHash);
    const inclusion = await env.watch.waitForTransaction(answer.txHash, Math.min(rec.expiresAt + env.inclusionGraceMs, env.drainUntil), signal);
    const dropped = env.drops?.settle(answer.txHash);
    if (inclusion) {
      rec.outcome = 'included';
      rec.seenAt = inclusion.seenAt;
      rec.blockHeight = inclusion.height;
      rec.blockTimestamp = inclusion.timestamp;
      const change = inclusion.outputs.get(client.wallet.bech32.toLowerCase());
      if (!change) {
        env.stopped.push({ client: client.index, reason: `transaction ${answer.txHash} was included without the client's change output` });
        return;
      }
      utxo = change;
    } else if (dropped !== undefined) {
      rec.outcome = 'dropped';
      rec.reason = dropped;
    } else if (Date.now() >= rec.expiresAt) {
      rec.outcome = 'expired';
    } else {
      // The drain ended first: neither included nor expired yet.
      return;
    }
  }
}
