/**
 * Another key's `/prove` latency while a key whose policy webhook never answers sends
 * sponsorships: the real server (`src/cli serve`) in its own process, its embedded devnet for
 * `preview` only, the dev prover, `prover.threads` at its default (2). The stalled key's webhook
 * is a local HTTP server that holds every request open, so each of its sponsorships waits the
 * webhook's whole `timeoutMs` and is then answered 503 (or 429 once the key's share of the pool,
 * `dust.maxReservationsPerKey`, is held by those waiting); its bodies are contract deployments
 * (no unshielded input to check), each distinct.
 *
 * Each round measures the other key's `/prove` twice, one client sending one request after the
 * other for `--seconds`, each body distinct (no cache hits): alone, and while the stalled key
 * sends `--rate` sponsorships a second (started one webhook timeout + 1 s before, so its
 * sponsorships are in their steady state; stopped and settled after). The order alternates each
 * round. Reports each round's p50 and p99 and the loaded p99 over the unloaded one, then the
 * medians over rounds with their spread (min–max).
 *
 *   npx tsx bench/webhook-stall.ts [--rounds 5] [--seconds 10] [--rate 16] [--timeout-ms 2000]
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledger, type Era } from '../src/infra/ledger/index.js';
import { counterDeploy } from '@nightgate/devnet/counter-contract';
import { kitFor } from '@nightgate/devnet/ledger-kit';
import { getJson, pollUntil, request, sleep } from './lib/http.js';
import { commitInfo } from './lib/machine.js';
import { closedPort, localServeEnv, onlyDevnetOf, startNightgate } from './lib/nightgate.js';
import { readPool } from './lib/pool-poller.js';
import { ProcessGroup } from './lib/processes.js';
import { buildProvingPayloads } from './lib/proving-payloads.js';
import { arg, medianOf } from './lib/script.js';

const NETWORK = 'preview';
const SYNC_TIMEOUT_MS = 300_000;
const SECRET = 'webhook-stall-bench-secret';

interface Phase {
  p50: number;
  p99: number;
  requests: number;
  /** Statuses other than 200. */
  failed: number;
  /** Answered from the result cache (`X-Cache: HIT`): none expected, every body is distinct. */
  cacheHits: number;
}

interface Round {
  alone: Phase;
  stalled: Phase;
  /** The stalled key's sponsorships by status during its phase, and the webhook requests held. */
  sponsorships: Record<string, number>;
  webhookRequests: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A webhook that holds every request open until it is stopped. */
async function holdingWebhook(): Promise<{ url: string; received: () => number; stop(): Promise<void> }> {
  const held = new Set<ServerResponse>();
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    received++;
    held.add(res);
    res.on('close', () => held.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sponsor`,
    received: () => received,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '5'));
  const seconds = Number(arg('seconds', '10'));
  const rate = Number(arg('rate', '16'));
  const timeoutMs = Number(arg('timeout-ms', '2000'));
  const otherKey = `ngk_bench_${randomBytes(16).toString('hex')}`;
  const stalledKey = `ngk_bench_${randomBytes(16).toString('hex')}`;

  const group = new ProcessGroup();
  const hook = await holdingWebhook();
  const dir = mkdtempSync(join(tmpdir(), 'webhook-stall-'));
  process.once('exit', () => group.killAllNow());
  try {
    const configFile = join(dir, 'config.json');
    const stalled = {
      id: 'stalled',
      sha256: createHash('sha256').update(stalledKey).digest('hex'),
      policy: { webhook: { url: hook.url, timeoutMs, onTimeout: 'reject', secret: SECRET } },
    };
    writeFileSync(configFile, JSON.stringify({ auth: { apiKeys: [otherKey], keys: [stalled] }, rateLimit: { limit: 100_000_000 } }), { mode: 0o600 });
    const env = { ...localServeEnv(configFile), ...onlyDevnetOf(NETWORK, await closedPort()), NIGHTGATE_PROVER_DEFAULT_NETWORK: NETWORK };
    const server = await startNightgate(group, 'nightgate', env, { probe: false });
    const base = `http://127.0.0.1:${server.port}`;
    const synced = await pollUntil(async () => ((await readPool(base, otherKey, NETWORK))?.fields['sync.phase'] === 'synced' ? true : undefined), {
      timeoutMs: SYNC_TIMEOUT_MS,
      intervalMs: 1000,
    });
    if (!synced) throw new Error(`the ${NETWORK} DUST wallets did not sync within ${SYNC_TIMEOUT_MS / 1000} s`);
    const health = (await getJson(`${base}/health`, 10_000, { 'x-api-key': otherKey })).json as {
      components?: { ledger?: { networks?: Record<string, { era?: Era }> } };
    };
    const era: Era = health.components?.ledger?.networks?.[NETWORK]?.era ?? 9;
    const payloads = await buildProvingPayloads('undeployed', era);
    // Distinct bodies (no cache hit), made as they run out: a dev /prove takes about a millisecond.
    const BATCH = 20_000;
    let made = 0;
    let bodies: Buffer[] = [];
    let deployNo = 0;
    const deploy = (): Uint8Array => {
      const L = ledger(era);
      const intent = L.Intent.new(new Date(Date.now() + 10 * 60_000 + ++deployNo)).addDeploy(counterDeploy(kitFor(era)));
      return L.Transaction.fromParts('undeployed', undefined, undefined, intent).serialize();
    };

    /** One client's /prove, one request after the other, for `seconds`. */
    const measure = async (): Promise<Phase> => {
      const times: number[] = [];
      let failed = 0;
      let cacheHits = 0;
      for (const end = Date.now() + seconds * 1000; Date.now() < end; ) {
        if (bodies.length === 0) {
          bodies = payloads.distinctProve(BATCH, made + 1);
          made += BATCH;
        }
        const body = bodies.pop()!;
        const t0 = performance.now();
        const r = await request(`${base}/prove`, {
          method: 'POST',
          headers: { 'x-api-key': otherKey, 'content-type': 'application/octet-stream' },
          body,
          timeoutMs: 120_000,
        });
        times.push(performance.now() - t0);
        if (r.status !== 200) failed++;
        if (r.headers.get('x-cache') === 'HIT') cacheHits++;
      }
      times.sort((a, b) => a - b);
      return { p50: percentile(times, 50), p99: percentile(times, 99), requests: times.length, failed, cacheHits };
    };

    /** The other key's /prove while the stalled key sends `rate` sponsorships a second. */
    const underStall = async (): Promise<{ phase: Phase; sponsorships: Record<string, number>; webhookRequests: number }> => {
      const statuses: Record<string, number> = {};
      const pending = new Set<Promise<void>>();
      const before = hook.received();
      const send = (): void => {
        const p = request(`${base}/prove-and-balance`, {
          method: 'POST',
          headers: { 'x-api-key': stalledKey, 'content-type': 'application/octet-stream', 'x-midnight-network': NETWORK },
          body: deploy(),
          timeoutMs: timeoutMs + 120_000,
        }).then(
          (r) => void (statuses[String(r.status)] = (statuses[String(r.status)] ?? 0) + 1),
          () => void (statuses['error'] = (statuses['error'] ?? 0) + 1),
        );
        pending.add(p);
        void p.finally(() => pending.delete(p));
      };
      const timer = setInterval(send, 1000 / rate);
      try {
        await sleep(timeoutMs + 1000);
        return { phase: await measure(), sponsorships: statuses, webhookRequests: hook.received() - before };
      } finally {
        clearInterval(timer);
        await Promise.all([...pending]);
      }
    };

    console.error(`synced; ledger ${era}; warming up`);
    await measure();
    const results: Round[] = [];
    for (let i = 0; i < rounds; i++) {
      const aloneFirst = i % 2 === 0;
      const first = aloneFirst ? { phase: await measure() } : await underStall();
      const second = aloneFirst ? await underStall() : { phase: await measure() };
      const [alone, loaded] = aloneFirst
        ? [first, second as Awaited<ReturnType<typeof underStall>>]
        : [second, first as Awaited<ReturnType<typeof underStall>>];
      results.push({ alone: alone.phase, stalled: loaded.phase, sponsorships: loaded.sponsorships, webhookRequests: loaded.webhookRequests });
      const r = results.at(-1)!;
      console.error(
        `round ${i + 1}: alone p50 ${r.alone.p50.toFixed(1)} p99 ${r.alone.p99.toFixed(1)}` +
          ` ms (${r.alone.requests}` +
          `); stalled p50 ${r.stalled.p50.toFixed(1)}` +
          ` p99 ${r.stalled.p99.toFixed(1)}` +
          ` ms (${r.stalled.requests}` +
          `); sponsorships ${JSON.stringify(r.sponsorships)}` +
          `, webhook requests ${r.webhookRequests}`,
      );
      // A failed /prove answers fast: its time is not a proof's, and the round says nothing.
      if (r.alone.failed + r.stalled.failed > 0)
        throw new Error(`round ${i + 1}: ${r.alone.failed + r.stalled.failed} /prove requests failed; the figures would time refusals`);
    }
    const fig = (xs: number[]): { median: number; min: number; max: number } => ({
      median: Math.round(medianOf(xs) * 10) / 10,
      min: Math.round(Math.min(...xs) * 10) / 10,
      max: Math.round(Math.max(...xs) * 10) / 10,
    });
    const { commit, dirty } = commitInfo();
    const summary = {
      commit: `${commit}${dirty ? '-dirty' : ''}`,
      loadAverage1m: loadavg()[0],
      settings: { rounds, seconds, rate, webhookTimeoutMs: timeoutMs, era },
      aloneMs: { p50: fig(results.map((r) => r.alone.p50)), p99: fig(results.map((r) => r.alone.p99)) },
      stalledMs: { p50: fig(results.map((r) => r.stalled.p50)), p99: fig(results.map((r) => r.stalled.p99)) },
      p99Ratio: fig(results.map((r) => r.stalled.p99 / r.alone.p99)),
      rounds: results,
    };
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    await group.stopAll();
    await hook.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
