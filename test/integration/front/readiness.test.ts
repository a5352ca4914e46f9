/**
 * /livez (the process answers) and /readyz (what the configuration asks for is usable: the
 * statistics followers have data, the DUST wallets of every sponsoring network have synced, the
 * provers answer), both without a key, for load balancers and systemd. A 503 names what is missing.
 */
import t from 'tap';
import { request } from 'undici';
import { ManualClock } from '../../helpers/manual-clock.js';
import { mountProver } from '../../../src/features/proving/index.js';
import { mountStats } from '../../../src/features/stats/index.js';
import type { NetworkStats } from '../../../src/features/stats/network-stats.js';
import { startApp } from '../../helpers/app.js';
import { upstreamConfig } from '../../fixtures/prover/apps.js';
import { FakeIndexer } from '../../fixtures/stats/fake-indexer.js';
import { T0 } from '../../fixtures/stats/stats-app.js';
import { ProofServerStub } from '../../reliability/helpers/proof-server-stub.js';
import { walletsNotSynced } from '../../../src/features/sponsorship/index.js';

async function get(url: string): Promise<{ status: number; body: Record<string, unknown>; cacheControl: unknown }> {
  const r = await request(url);
  return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown>, cacheControl: r.headers['cache-control'] };
}

t.test('/livez answers 200 without a key while the process runs', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  t.strictSame(await get(`${s.url}/livez`), { status: 200, body: { status: 'alive' }, cacheControl: 'no-store' });
  const head = await request(`${s.url}/livez`, { method: 'HEAD' });
  t.equal(head.statusCode, 200);
  await head.body.dump();
});

t.test('/readyz: 503 naming the statistics follower until it has data, then 200', async (t) => {
  const fake = await FakeIndexer.start();
  t.teardown(() => fake.close());
  const s = await startApp(
    { networks: { mainnet: fake.networkConfig() }, stats: { pollIntervalMs: 20, reconnectMinMs: 10, reconnectMaxMs: 40 } },
    { modules: [mountStats], clock: new ManualClock(T0) },
  );
  t.teardown(() => s.close());
  const before = await get(`${s.url}/readyz`);
  t.equal(before.status, 503);
  t.equal(before.cacheControl, 'no-store');
  t.match(before.body, { status: 'not-ready', missing: [/^stats:mainnet: no block from the indexer yet/] });
  t.equal((before.body['missing'] as string[]).length, 1, 'networks not served (no devnet here) are not waited for');
  fake.addBlock(T0, [fake.tx()]);
  await s.app.context.component<NetworkStats>('stats:mainnet')!.follower.waitForHeight(0);
  t.strictSame((await get(`${s.url}/readyz`)).body, { status: 'ready' });
});

t.test('/readyz: 503 naming the networks whose DUST wallets have not synced', async (t) => {
  const phases: Record<string, string> = { preview: 'replaying', preprod: 'synced' };
  const status = (): Record<string, unknown> => Object.fromEntries(Object.entries(phases).map(([n, phase]) => [n, { sync: { phase } }]));
  // The sponsorship component's own readiness, over a status whose phases the test sets.
  const sponsorship = { name: 'sponsorship', health: () => ({ status: 'starting' as const }), ready: () => walletsNotSynced(status()) };
  const s = await startApp({}, { modules: [(ctx) => ctx.addComponent(sponsorship)] });
  t.teardown(() => s.close());
  const r = await get(`${s.url}/readyz`);
  t.equal(r.status, 503);
  t.strictSame(r.body, {
    error: 'Service Unavailable',
    message: 'Not ready to serve what this server is configured for',
    code: 'SERVER_NOT_READY',
    status: 'not-ready',
    missing: ['dust:preview: server DUST wallets not synced (replaying)'],
  });
  phases['preview'] = 'synced';
  t.strictSame(await get(`${s.url}/readyz`), { status: 200, body: { status: 'ready' }, cacheControl: 'no-store' });
});

t.test('/readyz: 503 naming the network whose proof server does not answer', async (t) => {
  const stub = await ProofServerStub.start();
  t.teardown(() => stub.stop());
  const clock = new ManualClock(T0);
  const s = await startApp(upstreamConfig(stub.url), { modules: [mountProver], clock });
  t.teardown(() => s.close());
  t.strictSame((await get(`${s.url}/readyz`)).body, { status: 'ready' }, 'the proof server answers /ready');
  await stub.stop();
  t.strictSame((await get(`${s.url}/readyz`)).body, { status: 'ready' }, 'a probe is reused for a few seconds');
  clock.advance(10_000);
  const down = await get(`${s.url}/readyz`);
  t.equal(down.status, 503);
  t.match(down.body, { code: 'SERVER_NOT_READY' });
  t.strictSame(down.body['missing'], [
    'prover:mainnet: proof server unreachable (ECONNREFUSED)',
    'prover:preprod: proof server unreachable (ECONNREFUSED)',
    'prover:preview: proof server unreachable (ECONNREFUSED)',
  ]);
  t.notMatch(JSON.stringify(down.body), /127\.0\.0\.1/, 'no upstream address in a public answer');
  await stub.restart();
  clock.advance(10_000);
  t.equal((await get(`${s.url}/readyz`)).status, 200, 'ready again once it answers');
});

t.test('/livez and /readyz are in the OpenAPI document, without security', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const doc = (await (await request(`${s.url}/api/openapi.json`)).body.json()) as {
    paths: Record<string, { get: { security: unknown[]; responses: Record<string, unknown> } }>;
  };
  t.same(doc.paths['/livez']?.get.security, []);
  t.same(doc.paths['/readyz']?.get.security, []);
  t.ok(doc.paths['/readyz']?.get.responses['503'], '503 documented');
});
