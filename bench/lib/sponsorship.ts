/**
 * The sponsorship runs (/balance-only, /prove-and-balance on the dev prover): distinct transactions
 * from each embedded network's test account, built before the run and replayed once each through
 * autocannon's setupRequest, spread over the networks.
 *
 * How many: a sponsored transaction holds one server DUST UTXO until it is spent on chain or its
 * reservation expires (docs/sponsorship.md, "What happens to a request"), and these are never submitted. So a run
 * can sponsor at most the DUST UTXOs the server wallets own — SPONSOR_DUST_UTXOS per wallet per
 * embedded network at genesis — and the two sponsorship scenarios share them: each takes half.
 */
import { SPONSOR_DUST_UTXOS } from '@nightgate/devnet/genesis';
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
/** Prover threads of a deployment whose /health does not say. */
const DEFAULT_THREADS = 2;

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

export async function measureSponsorship(
  ctx: ScenarioContext,
  scenario: string,
  path: '/balance-only' | '/prove-and-balance',
  kind: TransferKind,
): Promise<Measurement[]> {
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
  // Warm-up, unmeasured: a few concurrent requests per network, so every prover thread has decoded
  // each network's wallet snapshot and learned its fee part's cost before the clock starts.
  const threads = ctx.target.proverThreads ?? DEFAULT_THREADS;
  const warm = batches.flatMap((b) => b.bodies.splice(0, threads).map((body) => ({ network: b.net.name, body })));
  const warmStatuses = await Promise.all(
    warm.map(
      async (item) =>
        (
          await request(url, {
            method: 'POST',
            headers: { ...proverHeaders(ctx), 'x-midnight-network': item.network },
            body: item.body,
            timeoutMs: REQUEST_TIMEOUT_S * 1000,
          })
        ).status,
    ),
  );
  if (warm.length) notes.push(`warm-up: ${warm.length} requests (${summarize(warmStatuses)})`);

  // Two runs: one connection per prover thread (no queueing: the latency of one sponsorship) and
  // `connections` (saturation: throughput). By Little's law the second's p50 is about
  // connections ÷ throughput, so it measures queueing, not the work; hence the two.
  const latencyShare = 1 / 3;
  const split = batches.map((b) => {
    const n = Math.floor(b.bodies.length * latencyShare);
    return { net: b.net, latency: b.bodies.slice(0, n), throughput: b.bodies.slice(n) };
  });
  const runs = [
    { variant: `dev c=${threads}`, connections: threads, pick: (x: (typeof split)[number]) => x.latency },
    { variant: `dev c=${ctx.settings.connections}`, connections: ctx.settings.connections, pick: (x: (typeof split)[number]) => x.throughput },
  ];
  const out: Measurement[] = [];
  for (const run of runs) {
    // Round robin over the networks, so every connection keeps all of them busy.
    const items: Item[] = [];
    const lists = split.map((x) => ({ network: x.net.name, bodies: run.pick(x) }));
    const longest = Math.max(0, ...lists.map((l) => l.bodies.length));
    for (let i = 0; i < longest; i++) for (const l of lists) if (i < l.bodies.length) items.push({ network: l.network, body: l.bodies[i] as Buffer });
    const rowNotes = [
      `${items.length} distinct ${kind} transactions over ${batches.map((b) => b.net.name).join(', ')} (built in ${buildS.toFixed(1)} s)`,
      ...notes,
    ];
    if (items.length === 0) {
      out.push({ ...row, variant: run.variant, skipped: 'no transactions left for this run (more --sponsor-wallets)', notes: rowNotes });
      continue;
    }
    out.push(await runItems(ctx, { ...row, variant: run.variant, notes: rowNotes }, url, items, Math.min(run.connections, items.length)));
  }
  return out;
}

function summarize(statuses: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${s}×${n}`).join(', ');
}

async function runItems(
  ctx: ScenarioContext,
  row: { scenario: string; variant: string; target: string; notes?: string[] },
  url: string,
  items: readonly Item[],
  connections: number,
): Promise<Measurement> {
  const headers = proverHeaders(ctx);
  let next = 0;
  return ctx.measure(row, {
    url,
    method: 'POST',
    connections,
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
  });
}
