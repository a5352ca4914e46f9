/**
 * NIGHT for the clients before the run. With a faucet: every address asks at once (the faucet
 * queues them and pays as many per block as it can — 2 today, 100+ once batched) and each client
 * waits for its own UTXO in the blocks the bench already watches. Without one: pre-funded seeds,
 * whose unspent NIGHT is read from the indexer.
 */
import type { ChainWatch } from './chain-watch.js';
import { unspentUtxos } from './devnet-utxos.js';
import { request, sleep } from './http.js';
import type { NightUtxo, NightWallet } from './night-transfer.js';

/** Faucet requests sent at once: enough to queue everyone within a block, few enough not to flood the socket pool. */
const FAUCET_CONCURRENCY = 32;
const INDEXER_CONCURRENCY = 8;

async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export interface Funded {
  /** UTXO per wallet index; absent for wallets not funded in time. */
  utxos: Map<number, NightUtxo>;
  failures: string[];
}

export async function fundFromFaucet(
  faucetUrl: string,
  watch: ChainWatch,
  wallets: readonly NightWallet[],
  star: bigint,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<Funded> {
  const utxos = new Map<number, NightUtxo>();
  const failures: string[] = [];
  // Registered before asking, so a payout in the very next block is not missed.
  const arrivals = wallets.map((w, i) => watch.waitForUtxo(w.bech32).then((u) => void utxos.set(i, u)));
  await eachLimited(wallets, FAUCET_CONCURRENCY, async (w) => {
    try {
      const r = await request(faucetUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address: w.bech32, amount: star.toString() }),
      });
      if (r.status !== 202 && r.status !== 200) failures.push(`faucet answered ${r.status} for ${w.bech32}: ${r.body.toString('utf8').slice(0, 200)}`);
    } catch (err) {
      failures.push(`faucet request for ${w.bech32} failed: ${(err as Error).message}`);
    }
  });
  const asked = wallets.length - failures.length;
  log(`  faucet: ${asked} requests queued; waiting for the payouts (at most ${Math.round(timeoutMs / 1000)} s)`);
  const deadline = Date.now() + timeoutMs;
  let reported = 0;
  while (utxos.size < asked && Date.now() < deadline) {
    await Promise.race([Promise.all(arrivals), sleep(Math.min(5000, deadline - Date.now()))]);
    if (utxos.size !== reported) {
      reported = utxos.size;
      log(`  funded ${utxos.size}/${wallets.length} (height ${watch.height ?? '?'})`);
    }
  }
  if (utxos.size < asked) failures.push(`${asked - utxos.size} payouts did not arrive within ${Math.round(timeoutMs / 1000)} s`);
  return { utxos, failures };
}

/** The largest unspent NIGHT UTXO of each pre-funded wallet, from the indexer. */
export async function prefunded(wsUrl: string, nightToken: string, wallets: readonly NightWallet[]): Promise<Funded> {
  const utxos = new Map<number, NightUtxo>();
  const failures: string[] = [];
  await eachLimited(wallets, INDEXER_CONCURRENCY, async (w, i) => {
    try {
      const night = (await unspentUtxos(wsUrl, w.bech32))
        .filter((u) => u.tokenType === nightToken)
        .sort((a, b) => (b.value > a.value ? 1 : b.value < a.value ? -1 : 0));
      const best = night[0];
      if (best) utxos.set(i, { value: best.value, intentHash: best.intentHash, outputIndex: best.outputIndex });
      else failures.push(`${w.bech32} holds no NIGHT`);
    } catch (err) {
      failures.push(`${w.bech32}: ${(err as Error).message}`);
    }
  });
  return { utxos, failures };
}
