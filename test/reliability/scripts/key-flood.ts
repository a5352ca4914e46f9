/**
 * Hostile keys against the DUST pool at full scale (not a tap test: minutes of 6 s blocks; the
 * bounded form is `test/integration/pool-reserve.test.ts`). Starts the real server (`serve`, its
 * defaults, the embedded devnet for preview only), funds six NIGHT addresses from the devnet
 * faucet, then for --duration seconds:
 *   - five keys each send --burst sponsorships at once every --every seconds, transfers of their
 *     own funded output, and never submit them (they hold DUST and let it expire);
 *   - a sixth key works as a wallet backend does: sponsor, submit, wait for the block, spend the
 *     change.
 * Prints one JSON line: the sixth key's answers and landings, the five's answers by status and
 * code, the pool (live, free, reserved) each 10 s and when it first reached its target, and the
 * keeper's figures. Every process it starts is stopped by pid.
 *
 *   npx tsx test/reliability/scripts/key-flood.ts [--duration 300] [--burst 100] [--every 3] [--ledger 9] [--ring 600]
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintKey, sha256Hex } from '../../../src/core/guards/auth.js';
import { ChainWatch } from '../../../bench/lib/chain-watch.js';
import { fundFromFaucet } from '../../../bench/lib/funding.js';
import { request, sleep } from '../../../bench/lib/http.js';
import { closedPort, localServeEnv, onlyDevnetOf, startNightgate } from '../../../bench/lib/nightgate.js';
import { freshWallet, ledger, unprovenTransfer } from '../../../bench/lib/night-transfer.js';
import { readPool } from '../../../bench/lib/pool-poller.js';
import { ProcessGroup } from '../../../bench/lib/processes.js';
import { runClient, type RunEnv } from '../../../bench/lib/sustained-client.js';
import type { SponsorCall, TxRecord } from '../../../bench/lib/sustained-stats.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const DURATION_S = arg('duration', 300);
const BURST = arg('burst', 100);
const EVERY_S = arg('every', 3);
const ERA = arg('ledger', 9);
const RING = arg('ring', 600);
const NETWORK = 'preview';
const ATTACKERS = 5;
const BLOCK_MS = 6000;
const USER_TTL_MS = 5 * 60_000;
const log = (line: string): void => void process.stderr.write(`${line}\n`);

type Tally = Record<string, number>;
const count = (t: Tally, k: string): void => void (t[k] = (t[k] ?? 0) + 1);

function codeOf(status: number, body: Buffer): string {
  if (status === 200) return '200';
  try {
    return `${status} ${String((JSON.parse(body.toString('utf8')) as { code?: unknown }).code)}`;
  } catch {
    return String(status);
  }
}

async function main(): Promise<void> {
  const group = new ProcessGroup();
  const tmp = mkdtempSync(join(tmpdir(), 'nightgate-key-flood-'));
  process.once('exit', () => group.killAllNow());
  try {
    const keys = Array.from({ length: ATTACKERS + 1 }, () => mintKey());
    const ids = keys.map((_, i) => (i < ATTACKERS ? `hostile-${i}` : 'honest'));
    const configFile = join(tmp, 'config.json');
    writeFileSync(configFile, JSON.stringify({ auth: { keys: keys.map((k, i) => ({ id: ids[i], sha256: sha256Hex(k) })) } }), { mode: 0o600 });
    const port = await closedPort();
    const env = { ...localServeEnv(configFile), [`NIGHTGATE_${NETWORK.toUpperCase()}_DEVNET_LEDGER`]: String(ERA) };
    // Only the network under attack runs a devnet: the others would compete for the cores.
    Object.assign(env, onlyDevnetOf(NETWORK, port));
    const server = await startNightgate(group, 'nightgate', env, { probe: false });
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const honestKey = keys[ATTACKERS]!;
    const health = (await (await fetch(`${baseUrl}/health`, { headers: { 'x-api-key': honestKey } })).json()) as {
      components: { devnet: { networks: Record<string, { networkId: string; graphqlWsUrl: string; submitUrl: string; faucetUrl: string }> } };
    };
    const dn = health.components.devnet.networks[NETWORK]!;
    const L = await ledger(ERA === 8 ? 8 : 9);
    const watch = new ChainWatch(dn.graphqlWsUrl, L.nativeToken().raw);
    watch.start();
    for (;;) {
      const p = await readPool(baseUrl, honestKey, NETWORK);
      if (p?.fields['sync.phase'] === 'synced') break;
      await sleep(1000);
    }
    const wallets = keys.map(() => freshWallet(L, dn.networkId));
    const funded = await fundFromFaucet(dn.faucetUrl, watch, wallets, 100_000_000n, 120_000, log);
    if (funded.utxos.size !== wallets.length) throw new Error(`funding: ${funded.failures.join('; ') || 'timed out'}`);
    const sink = freshWallet(L, dn.networkId).address;
    log(`funded ${wallets.length} addresses; height ${watch.height}; attacking for ${DURATION_S} s`);

    // Distinct bodies built before the attack (building is the attacker's cost, and it would
    // slow this script's bursts): each key cycles through RING of them, more than it can get
    // admitted within a fee intent's life, so a body comes back only after its answer expired.
    const t0 = Date.now();
    let amount = 1n;
    const rings = Array.from({ length: ATTACKERS }, (_, k) =>
      Array.from({ length: RING }, () => unprovenTransfer(L, wallets[k]!, funded.utxos.get(k)!, sink, amount++, dn.networkId, USER_TTL_MS)),
    );
    log(`built ${ATTACKERS} × ${RING} distinct transfers in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const startMs = Date.now();
    const endAt = startMs + DURATION_S * 1000;
    const hostile: Tally = {};
    const calls: SponsorCall[] = [];
    const txs: TxRecord[] = [];
    const pool: Array<Record<string, number | string>> = [];
    let targetReachedS: number | undefined;
    let target: number | undefined;
    const sample = async (): Promise<void> => {
      const p = await readPool(baseUrl, honestKey, NETWORK);
      if (!p) return;
      const f = p.fields;
      const free = Number(f['utxos.free']);
      const reserved = Number(f['utxos.reserved']);
      target ??= Number(f['pool.target']);
      if (targetReachedS === undefined && free + reserved >= (target ?? Infinity)) targetReachedS = Math.round((p.at - startMs) / 1000);
      log(
        `${Math.round((p.at - startMs) / 1000)} s: live ${free + reserved} (free ${free}, reserved ${reserved}` +
          `); honest ${calls.filter((c) => c.status === 200).length}/${calls.length}; hostile ${JSON.stringify(hostile)}`,
      );
      pool.push({
        s: Math.round((p.at - startMs) / 1000),
        live: free + reserved,
        free,
        reserved,
        splitsSubmitted: f['pool.maintenance.splitsSubmitted'] ?? 0,
        splitsFailed: f['pool.maintenance.splitsFailed'] ?? 0,
      });
    };
    const sampler = setInterval(() => void sample(), 10_000);
    await sample();

    let sent = 0;
    const burst = (): Promise<void[]> =>
      Promise.all(
        Array.from({ length: ATTACKERS }, (_, k) => k).flatMap((k) =>
          Array.from({ length: BURST }, async () => {
            const body = rings[k]![sent++ % RING]!;
            try {
              const r = await request(`${baseUrl}/prove-and-balance`, {
                method: 'POST',
                headers: { 'x-api-key': keys[k]!, 'x-midnight-network': NETWORK, 'content-type': 'application/octet-stream' },
                body,
                timeoutMs: 60_000,
              });
              count(hostile, codeOf(r.status, r.body));
            } catch (err) {
              count(hostile, `error ${(err as Error).name}`);
            }
          }),
        ),
      );
    const attack = (async () => {
      const bursts: Array<Promise<unknown>> = [];
      for (let next = startMs; next < endAt; next += EVERY_S * 1000) {
        await sleep(Math.max(0, next - Date.now()));
        bursts.push(burst());
      }
      await Promise.all(bursts);
    })();

    const runEnv: RunEnv = {
      L,
      baseUrl,
      network: NETWORK,
      networkId: dn.networkId,
      submitUrl: dn.submitUrl,
      watch,
      sink,
      inclusionGraceMs: BLOCK_MS,
      endAt,
      drainUntil: endAt + 60_000,
      calls,
      txs,
      stopped: [],
    };
    await Promise.all([attack, runClient(runEnv, { index: ATTACKERS, apiKey: honestKey, wallet: wallets[ATTACKERS]!, utxo: funded.utxos.get(ATTACKERS)! })]);
    clearInterval(sampler);
    await sample();

    const honest: Tally = {};
    for (const c of calls) count(honest, c.status === 200 ? '200' : `${c.status} ${c.code ?? ''}`.trim());
    const ok = calls.filter((c) => c.status === 200).length;
    const landed: Tally = {};
    for (const tx of txs) count(landed, tx.outcome);
    const rssKiB = Number(/VmRSS:\s+(\d+) kB/.exec(await import('node:fs').then((fs) => fs.readFileSync(`/proc/${server.pid}/status`, 'utf8')))?.[1]);
    process.stdout.write(
      `${JSON.stringify({
        ledger: ERA,
        durationS: DURATION_S,
        burst: `${ATTACKERS} keys × ${BURST} every ${EVERY_S} s`,
        honest: { answers: calls.length, sponsored: ok, share: calls.length ? +(ok / calls.length).toFixed(3) : 0, byCode: honest, outcomes: landed },
        hostile,
        pool: { target, reachedTargetAtS: targetReachedS ?? null, samples: pool },
        serverRssMiB: Math.round(rssKiB / 1024),
      })}\n`,
    );
    await watch.close();
  } finally {
    await group.stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => setTimeout(() => process.exit(0), 100).unref(),
  (err: unknown) => {
    process.stderr.write(`key-flood: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
