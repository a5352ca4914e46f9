/**
 * The sponsorship runs (/balance-only, /prove-and-balance on the dev prover): distinct transactions
 * from each embedded network's test account, built before the run and replayed once each through
 * autocannon's setupRequest, spread over the networks.
 *
 * How many: a sponsored transaction holds one server DUST UTXO until it is spent on chain or its
 * reservation expires (DESIGN.md "DUST UTXO allocator"), and these are never submitted. So a run
 * can sponsor at most the DUST UTXOs the server wallets own — SPONSOR_DUST_UTXOS per wallet per
 * embedded network at genesis — and the two sponsorship scenarios share them: each takes half.
 */
import { SPONSOR_DUST_UTXOS } from '../../src/devnet/genesis.js';
import { request, sleep } from './http.js';
import { proverHeaders } from './proof-cache.js';
import type { DevnetNetwork, ScenarioContext } from './scenario.js';
import { testAccountTransfers, type TransferKind } from './test-account-transfers.js';
import type { Measurement } from './types.js';

/** Per network against a deployment, whose wallets are unknown. */
const REMOTE_PER_NETWORK = 50;
const SYNC_WAIT_MS = 90_000;
const RETRY_CAP_MS = 2000;
const REQUEST_TIMEOUT_S = 60;

interface Item {
  network: string;
  body: Buffer;
}

function perNetwork(ctx: ScenarioContext): number {
  return ctx.target.sponsorWallets === undefined ? REMOTE_PER_NETWORK : Math.floor((ctx.target.sponsorWallets * SPONSOR_DUST_UTXOS) / 2);
}

/**
 * One request per network before the run: the DUST wallet answers 503 until it has synced
 * (Retry-After), so wait for the first other answer. Consumes the network's first transaction.
 */
async function preflight(url: string, ctx: ScenarioContext, item: Item): Promise<string> {
  const headers = { ...proverHeaders(ctx), 'x-midnight-network': item.network };
  const deadline = Date.now() + SYNC_WAIT_MS;
  let waits = 0;
  for (let attempt = 0; attempt < SYNC_WAIT_MS / 250 && Date.now() < deadline; attempt++) {
    const r = await request(url, { method: 'POST', headers, body: item.body, timeoutMs: REQUEST_TIMEOUT_S * 1000 });
    if (r.status !== 503) return `${item.network}: ${r.status}${waits ? ` after ${waits} × 503` : ''}`;
    waits++;
    const retryAfterS = Number(r.headers.get('retry-after') ?? '1');
    await sleep(Math.min(RETRY_CAP_MS, Math.max(250, retryAfterS * 1000)));
  }
  return `${item.network}: still 503 after ${SYNC_WAIT_MS / 1000} s`;
}

export async function measureSponsorship(ctx: ScenarioContext, scenario: string, path: '/balance-only' | '/prove-and-balance', kind: TransferKind): Promise<Measurement[]> {
  const row = { scenario, variant: 'dev', target: 'nightgate' };
  if (!ctx.target.apiKey) return [{ ...row, skipped: 'no API key (--key)' }];
  if (ctx.target.devnet.size === 0) return [{ ...row, skipped: 'no embedded devnet: the test account and its UTXOs exist only there' }];

  const count = perNetwork(ctx);
  const started = performance.now();
  const batches: Array<{ net: DevnetNetwork; bodies: Buffer[] }> = [];
  const notes: string[] = [];
  for (const net of ctx.target.devnet.values()) {
    try {
      batches.push({ net, bodies: await testAccountTransfers(net, count, kind) });
    } catch (err) {
      notes.push(`${net.name}: ${(err as Error).message}`);
    }
  }
  if (batches.length === 0) return [{ ...row, skipped: `could not build transactions: ${notes.join('; ')}` }];
  const buildS = (performance.now() - started) / 1000;

  const url = `${ctx.target.baseUrl}${path}`;
  for (const b of batches) {
    const first = b.bodies.shift();
    if (first) notes.push(`pre-flight ${await preflight(url, ctx, { network: b.net.name, body: first })}`);
  }
  // Round robin over the networks, so every connection keeps all of them busy.
  const items: Item[] = [];
  for (let i = 0; i < count; i++) for (const b of batches) if (i < b.bodies.length) items.push({ network: b.net.name, body: b.bodies[i] as Buffer });
  if (items.length === 0) return [{ ...row, skipped: 'no transactions left after the pre-flight', notes }];
  notes.unshift(`${items.length} distinct ${kind} transactions over ${batches.map((b) => b.net.name).join(', ')} (built in ${buildS.toFixed(1)} s)`);

  const headers = proverHeaders(ctx);
  let next = 0;
  return [
    await ctx.measure(
      { ...row, notes },
      {
        url,
        method: 'POST',
        connections: Math.min(ctx.settings.connections, items.length),
        durationS: ctx.settings.shortDurationS,
        amount: items.length,
        timeoutS: REQUEST_TIMEOUT_S,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              // amount bounds the run to items.length sends; the modulo only guards the index.
              const item = items[next++ % items.length] as Item;
              req.headers = { ...headers, 'x-midnight-network': item.network };
              req.body = item.body;
              return req;
            },
          },
        ],
        ...(ctx.target.pid !== undefined ? { pid: ctx.target.pid } : {}),
      },
    ),
  ];
}
