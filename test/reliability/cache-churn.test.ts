/**
 * Key churn against every bounded store: the rate-limit counters (client IPs through
 * X-Forwarded-For, API keys), the statistics lookup cache and the proof result cache stay within
 * their configured caps; churn never resets a client in use, and never makes clients share a counter.
 */
import t from 'tap';
import { request } from 'undici';
import { ManualClock } from '../helpers/manual-clock.js';
import { MemoryRateLimitStore } from '../../src/core/guards/rate-limit.js';
import { createProverModule, PROVER_COMPONENT, type ProverComponent } from '../../src/features/proving/index.js';
import { startApp, TEST_KEY, OTHER_KEY } from '../helpers/app.js';
import { testRoutes } from '../helpers/routes.js';
import { statsApp } from '../fixtures/stats/stats-app.js';
import { proveBody } from '../fixtures/prover/samples.js';
import { OCTET_KEYED } from './helpers/apps.js';
import type { LookupCache } from '../../src/features/stats/lookup-cache.js';

const CAP = 50;

/** Entries the lookup cache really holds (quick-lru iterates both of its generations). */
function held(cache: LookupCache): number {
  return [...(cache as unknown as { lru: Map<string, unknown> }).lru.keys()].length;
}
const CHURN = 3_000;

t.test('rate-limit store: churned IPs and keys stay within the cap; clients in use keep their counts; new ones get their own', async (t) => {
  const routes = testRoutes();
  const clock = new ManualClock(1_700_000_000_000);
  const store = new MemoryRateLimitStore('sliding', CAP);
  const s = await startApp(
    { server: { trustedProxies: ['127.0.0.1/32'] }, rateLimit: { limit: 10, publicLimit: 1_000, windowMs: 60_000, maxEntries: CAP } },
    { modules: [routes.module], clock, rateLimitStore: store },
  );
  t.teardown(() => s.close());
  const hit = async (path: string, headers: Record<string, string>): Promise<{ status: number; remaining: string | undefined }> => {
    const r = await request(`${s.url}${path}`, { headers });
    await r.body.dump();
    return { status: r.statusCode, remaining: r.headers['x-ratelimit-remaining'] as string | undefined };
  };
  const realIp = { 'x-forwarded-for': '203.0.113.7' };
  const realKey = { 'x-api-key': TEST_KEY };
  for (let i = 0; i < 3; i++) {
    await hit('/t/public', realIp);
    await hit('/t/keyed', realKey);
  }

  // Churn: a new client IP per request, and requests with keys that do not exist; the real IP
  // comes back after every batch (fewer new clients than half the cap in between).
  const BATCH = 20;
  let shared = 0;
  for (let i = 0; i < CHURN; i += BATCH) {
    const answers = await Promise.all(
      Array.from({ length: BATCH }, (_, j) => {
        const n = i + j;
        return n % 10 === 0
          ? hit('/t/keyed', { 'x-api-key': `churn-key-${n}-0123456789`, 'x-forwarded-for': `192.0.2.${n % 200}` })
          : hit('/t/public', { 'x-forwarded-for': n % 2 ? `2001:db8:${n.toString(16)}::1` : `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` });
      }),
    );
    shared += answers.filter((a) => a.status === 200 && a.remaining !== '999').length;
    await hit('/t/public', realIp);
  }
  t.equal(shared, 0, 'every churned client had a budget of its own');
  t.ok(store.size <= 2 * CAP, `${store.size} counters tracked after ${CHURN} churned clients (cap ${CAP} per scope)`);

  const batches = CHURN / BATCH;
  t.same(await hit('/t/public', realIp), { status: 200, remaining: String(1_000 - 3 - batches - 1) }, 'the real IP, in use all along, kept its count');
  t.same(
    await hit('/t/public', { 'x-forwarded-for': '198.51.100.200' }),
    { status: 200, remaining: '999' },
    'a client first seen after the churn gets its full budget',
  );
  t.same(await hit('/t/keyed', realKey), { status: 200, remaining: '6' }, 'the real key kept its count');
  t.same(await hit('/t/keyed', { 'x-api-key': OTHER_KEY }), { status: 200, remaining: '9' }, 'a key first seen after the churn gets its own counter');
  for (let i = 0; i < 6; i++) await hit('/t/keyed', realKey);
  t.equal((await hit('/t/keyed', realKey)).status, 429, 'and the real key is limited at exactly its quota');

  // Two windows later the churned counters no longer matter: the next cap hit sweeps them.
  clock.advance(120_000);
  for (let i = 0; i < CAP; i++) await hit('/t/public', { 'x-forwarded-for': `198.51.100.${i}` });
  t.ok(store.size <= CAP + 3, `swept: ${store.size} counters`);
});

t.test('lookup cache: block and transaction churn stays within stats.lookupCacheSize', async (t) => {
  const BLOCKS = 40;
  const SIZE = 8;
  const { get, net, fake } = await statsApp(t, { blocks: BLOCKS, stats: { lookupCacheSize: SIZE } });
  let max = 0;
  for (let h = 0; h < BLOCKS; h++) {
    const [b, tx] = await Promise.all([
      get(`/api/v1/mainnet/block?height=${h}`),
      get(`/api/v1/mainnet/transaction?hash=${fake.blocks[h]!.transactions[0]!.hash}`),
    ]);
    t.equal(b.status, 200);
    t.equal(tx.status, 200);
    max = Math.max(max, held(net.cache));
  }
  for (let h = BLOCKS; h < BLOCKS + 200; h++) {
    const missing = await get(`/api/v1/mainnet/block?height=${h}`);
    t.equal(missing.status, 404);
    max = Math.max(max, held(net.cache));
  }
  t.ok(max <= SIZE, `at most ${max} entries retained (setting ${SIZE}); misses are never cached`);
  t.equal(net.cache.inFlight, 0, 'no lookup left in flight');
  const again = await get(`/api/v1/mainnet/block?height=${BLOCKS - 1}`);
  t.equal(again.headers['x-cache'], 'HIT', 'the most recent entries are still served from the cache');
});

t.test('proof result cache: distinct proofs stay within prover.cacheMaxBytes', async (t) => {
  const MAX = 24_000;
  const s = await startApp({ prover: { threads: 1, cacheMaxBytes: MAX } }, { modules: [createProverModule()] });
  t.teardown(() => s.close());
  const prover = s.app.context.component<ProverComponent>(PROVER_COMPONENT)!;
  let peak = 0;
  for (let i = 0; i < 40; i++) {
    const r = await request(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(undefined, BigInt(i + 1)) });
    t.equal(r.statusCode, 200);
    await r.body.dump();
    const cache = prover.health()['cache'] as { bytes: number; entries: number };
    peak = Math.max(peak, cache.bytes);
  }
  t.ok(peak > 0 && peak <= MAX, `peak ${peak} bytes cached (cap ${MAX})`);
});
