/**
 * An indexer that keeps answering while its chain has stopped: the devnet (in manual block mode,
 * on the app's clock) serves preview as an indexer would, with sponsorship on it. Fresh, then its
 * block production stops and the clock passes 10 block times (6 s blocks behind an indexer):
 * /readyz names the network and its block's age, /health and the summary say degraded, and
 * sponsorship answers 503 CHAIN_STALE with Retry-After (its fee would be priced on old state).
 * One block later everything has recovered by itself. Nothing sleeps: the clock moves when told.
 */
import t from 'tap';
import { request } from 'undici';
import { ManualClock } from '../helpers/manual-clock.js';
import { mountProver } from '../../src/features/proving/index.js';
import { mountSponsorship, SPONSORSHIP_COMPONENT, type SponsorshipComponent } from '../../src/features/sponsorship/index.js';
import { mountStats } from '../../src/features/stats/index.js';
import type { NetworkStats } from '../../src/features/stats/network-stats.js';
import { SPONSOR_SEEDS, startNetwork } from '../fixtures/devnet/harness.js';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { ProofServerStub } from '../reliability/helpers/proof-server-stub.js';

/** Midnight's block time, which a network behind an indexer is judged by. */
const BLOCK_MS = 6000;
const STALE_MS = 10 * BLOCK_MS;

t.test('a chain that stops producing blocks: not ready, degraded, not sponsored; one block later, all recovered', async (t) => {
  const clock = new ManualClock(Date.now());
  // Its server wallets (SPONSOR_SEEDS, `legacy` keys) are configured below.
  // Genesis is hours old; the devnet's head block is dated at start, so the chain is fresh.
  const devnet = await startNetwork({ now: () => clock.now() });
  t.teardown(() => devnet.close());
  const stub = await ProofServerStub.start();
  t.teardown(() => stub.stop());
  const s = await startApp(
    {
      // mainnet and preprod stay embedded, with no devnet run here: not served, nothing to wait for.
      networks: {
        preview: { indexer: devnet.info.graphqlUrl, indexerWs: devnet.info.graphqlWsUrl, networkId: 'undeployed', prover: 'upstream', proverUrl: stub.url },
      },
      // A budget of 0: a request past the freshness check is refused by the next one (429), before any worker.
      dust: { walletDerivation: 'legacy', walletSeeds: SPONSOR_SEEDS, targetUtxos: 0, budget: '0' },
      prover: { defaultNetwork: 'preview' },
    },
    { modules: [mountStats, mountProver, mountSponsorship], clock, devnet: false },
  );
  t.teardown(() => s.close());
  const stats = s.app.context.component<NetworkStats>('stats:preview')!;
  const service = s.app.context.component<SponsorshipComponent>(SPONSORSHIP_COMPONENT)!.service!;
  await service.whenSynced('preview');
  await stats.follower.waitForHeight(devnet.network.height);
  t.equal(stats.blockTimeMs, BLOCK_MS, "behind an indexer: judged by Midnight's 6 s block time");

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const r = await request(`${s.url}${path}`, { headers });
    return { status: r.statusCode, json: (await r.body.json()) as Record<string, any> };
  };
  const sponsor = async (path: string) => {
    const r = await request(`${s.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' },
      body: new Uint8Array([1, 2, 3]),
    });
    return { status: r.statusCode, retryAfter: r.headers['retry-after'], json: (await r.body.json()) as Record<string, unknown> };
  };
  const health = () => get('/health', { 'x-api-key': TEST_KEY });
  const summary = async () => (await get('/api/v1/preview/summary')).json;

  const fresh = async (when: string) => {
    t.strictSame(await get('/readyz'), { status: 200, json: { status: 'ready' } }, `${when}: ready`);
    // (The rest of /health is not this test's: the worker pool may report its own state.)
    t.match(
      (await health()).json['components']['stats:preview'],
      { status: 'ok', stale: null, blockTimeSeconds: 6, staleAfterSeconds: 60 },
      `${when}: /health says the network is ok`,
    );
    const sum = await summary();
    // After a stall the epoch has under-produced (the devnet's utilization says so): degraded by
    // production then, which is not freshness.
    const production = sum['uptime']['epochUtilization'] ?? 1;
    t.equal(sum['status'], production >= 0.8 ? 'healthy' : 'degraded', `${when}: the summary is degraded only if production (${production}) is low`);
    t.ok(sum['latestBlock']['ageSeconds'] < 60, `${when}: its newest block is ${sum['latestBlock']['ageSeconds']} s old`);
    for (const path of ['/prove-and-balance', '/balance-only']) {
      const r = await sponsor(path);
      // Past the freshness check: refused by the next one, the key's (empty) budget.
      t.strictSame([r.status, r.json['code']], [429, 'DUST_BUDGET_EXCEEDED'], `${when}: ${path} past the freshness check`);
    }
  };

  await fresh('fresh chain');
  const tip = stats.window.tip!;
  t.equal(tip.timestamp, clock.now(), 'the newest block is dated by the shared clock');

  // Block production stops; the indexer keeps answering. Just short of 10 block times: still fresh.
  clock.set(tip.timestamp + STALE_MS - 1);
  await fresh('59.999 s after the newest block');

  // Exactly 10 block times: stale.
  clock.set(tip.timestamp + STALE_MS);
  const reason = `newest block (height ${tip.height}) is 60 s old, at least 10 × the 6 s block time`;
  const ready = await get('/readyz');
  t.equal(ready.status, 503, '/readyz: not ready');
  t.strictSame(ready.json['missing'], [`stats:preview: chain stale: ${reason}`], 'naming the network and the age of its newest block');
  t.equal(ready.json['code'], 'SERVER_NOT_READY');
  const h = await health();
  t.equal(h.json['status'], 'degraded', '/health: degraded');
  t.match(h.json['components']['stats:preview'], { status: 'degraded', upstreamOk: true, latestHeight: tip.height, latestBlockAgeSeconds: 60, stale: reason });
  const sum = await summary();
  t.strictSame(
    [sum['status'], sum['uptime']['status'], sum['uptime']['score'], sum['latestBlock']['ageSeconds']],
    ['degraded', 'degraded', 0, 60],
    'the summary says degraded',
  );
  for (const path of ['/prove-and-balance', '/balance-only']) {
    const r = await sponsor(path);
    t.equal(r.status, 503, `${path}: 503`);
    t.equal(r.json['code'], 'CHAIN_STALE', `${path}: CHAIN_STALE`);
    t.equal(r.retryAfter, '6', `${path}: Retry-After one block`);
    t.equal(r.json['message'], `the preview chain is stale: ${reason}`);
  }
  t.equal(service.network('preview')!.table.counts().reserved, 0, 'nothing reserved');

  // Much later, still stopped: the age keeps growing.
  clock.advance(65_000);
  t.match((await get('/readyz')).json['missing'], [/^stats:preview: chain stale: newest block \(height \d+\) is 125 s old/]);

  // Production resumes: the next block, dated now, makes the chain fresh again by itself.
  await devnet.network.produceBlock();
  await stats.follower.waitForHeight(devnet.network.height);
  await fresh('one new block later');
});
