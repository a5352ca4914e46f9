/**
 * GET /usage on a real server: a key reads its own usage, an admin key every key's; bad parameters
 * are 400 naming the parameter, another key's usage 403; the per-key request tally and the key's
 * Prometheus counters; and after a restart with the same state directory the figures are still
 * there. The usage ledger is mounted here by a test module and fed directly (the sponsorship
 * service's calls into it are not under test).
 */
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { ManualClock } from '../helpers/manual-clock.js';
import { sha256Hex } from '../../src/core/guards/auth.js';
import { childAppsSupported } from '../../src/core/http/threads/main.js';
import { loadUws } from '../../src/core/http/uws.js';
import type { Module } from '../../src/infra/app-context.js';
import { usageComponent } from '../../src/features/sponsorship/policy/usage-component.js';
import { UsageLedger } from '../../src/features/sponsorship/policy/usage.js';
import { usageRoutes } from '../../src/features/sponsorship/policy/usage-routes.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sample } from '../helpers/metrics-text.js';

const SHOP_KEY = 'shop-key-0123456789abcdef';
const OPS_KEY = 'ops-key-0123456789abcdef';
const KEYS = [
  { id: 'shop', sha256: sha256Hex(SHOP_KEY) },
  { id: 'ops', sha256: sha256Hex(OPS_KEY), admin: true },
];
/** 2025-06-10T12:00:00Z */
const NOW = Date.UTC(2025, 5, 10, 12);
const DAY = 86_400_000;

function stateDir(t: Test): string {
  const d = mkdtempSync(join(tmpdir(), 'ng-usage-route-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** The usage ledger kept in `dir` and its routes, fed the pipeline's per-key tally. */
function usageModule(dir: string, clock: ManualClock): { module: Module; ledger: () => UsageLedger } {
  let ledger: UsageLedger | undefined;
  const module: Module = (ctx) => {
    ledger = new UsageLedger({ clock, logger: ctx.logger });
    ledger.load(dir);
    ctx.addRoutes(usageRoutes({ ledger, keyRequests: ctx.metrics.requests.keys }));
    // The app's collector (collectUsage) finds the ledger through this component.
    ctx.addComponent(usageComponent(ledger));
  };
  return { module, ledger: () => ledger! };
}

async function start(dir: string, clock: ManualClock): Promise<{ s: TestApp; ledger: UsageLedger }> {
  const u = usageModule(dir, clock);
  const s = await startApp({ auth: { keys: KEYS, apiKeys: [] } }, { modules: [u.module], clock });
  return { s, ledger: u.ledger() };
}

async function get(s: TestApp, path: string, key: string) {
  const res = await request(`${s.url}${path}`, { headers: { 'x-api-key': key } });
  return { status: res.statusCode, headers: res.headers, body: (await res.body.json()) as Record<string, any> };
}

t.test('GET /usage: own usage, every key for an admin, refusals, requests, and the same figures after a restart', async (t) => {
  const dir = stateDir(t);
  const clock = new ManualClock(NOW);
  const first = await start(dir, clock);
  let s = first.s;
  t.teardown(() => s.close());
  const l = first.ledger;
  l.sponsored('shop', 'preview', ['alice'], 1_000n, NOW - DAY);
  l.sponsored('shop', 'preview', ['bob'], 500n, NOW);
  l.sponsored('shop', 'preview', ['alice'], 300n, NOW);
  l.expired('shop', 'preview', ['bob'], 500n, NOW);
  l.refused('shop', 'preview', 'allow.contracts', NOW);
  l.sponsored('game', 'preprod', ['carol'], 42n, NOW);

  // Refused requests first, so that the tally has something to show.
  const badGroup = await get(s, '/usage?groupBy=week', SHOP_KEY);
  t.equal(badGroup.status, 400);
  t.match(badGroup.body, { code: 'INVALID_PARAMETER', message: /^groupBy: / });
  const other = await get(s, '/usage?key=ops', SHOP_KEY);
  t.equal(other.status, 403, 'a key that is not admin asks for another key');
  t.match(other.body, { code: 'FORBIDDEN', message: /own usage only/ });

  const own = await get(s, '/usage', SHOP_KEY);
  t.equal(own.status, 200);
  t.equal(own.headers['cache-control'], 'no-store');
  t.same(
    own.body['keys'].map((k: { keyId: string }) => k.keyId),
    ['shop'],
    'its own key only',
  );
  t.match(own.body, { from: new Date(NOW - 30 * DAY).toISOString(), to: new Date(NOW).toISOString(), groupBy: 'day' }, 'the last 30 days by default');
  const shop = own.body['keys'][0];
  t.match(shop, { keyId: 'shop', sponsorships: 3, dust: '1300', dustUnit: 'SPECK', expired: 1, refusals: { 'allow.contracts': 1 } });
  t.same(shop.days, [
    { day: '2025-06-09', sponsorships: 1, dust: '1000', expired: 0, refusals: {} },
    { day: '2025-06-10', sponsorships: 2, dust: '300', expired: 1, refusals: { 'allow.contracts': 1 } },
  ]);
  t.same(shop.requests, { total: 2, refused: { INVALID_PARAMETER: 1, FORBIDDEN: 1 } }, 'its requests before this one, refused by code');
  t.same((await get(s, '/usage?key=shop', SHOP_KEY)).body['keys'][0].keyId, 'shop', 'naming its own key is allowed');

  const byUser = await get(s, '/usage?groupBy=user&from=2025-06-10&to=2025-06-10', SHOP_KEY);
  t.equal(byUser.status, 200);
  t.match(byUser.body, { from: '2025-06-10T00:00:00.000Z', to: '2025-06-11T00:00:00.000Z', groupBy: 'user' }, 'a bare date as to: its whole day');
  t.same(byUser.body['keys'][0].users, [
    { user: 'alice', sponsorships: 1, dust: '300' },
    { user: 'bob', sponsorships: 1, dust: '0' },
  ]);

  const all = await get(s, '/usage', OPS_KEY);
  t.equal(all.status, 200);
  t.same(
    all.body['keys'].map((k: { keyId: string }) => k.keyId),
    ['game', 'ops', 'shop'],
    'an admin key: every key with usage or requests',
  );
  t.match(all.body['keys'][0], { keyId: 'game', sponsorships: 1, dust: '42', networks: { preprod: { sponsorships: 1 } }, requests: { total: 0, refused: {} } });
  t.match(all.body['keys'][2], { keyId: 'shop', requests: { total: 5 } });
  const one = await get(s, '/usage?key=game&groupBy=user', OPS_KEY);
  t.same(
    one.body['keys'].map((k: { keyId: string }) => k.keyId),
    ['game'],
    'an admin key may ask for one key',
  );
  t.same(one.body['keys'][0].users, [{ user: 'carol', sponsorships: 1, dust: '42' }]);

  for (const [query, param] of [
    ['from=yesterday', 'from'],
    ['from=2025-02-30', 'from'],
    ['to=2025-06-10T12:00:00', 'to'], // no zone
    ['from=2025-06-10&to=2025-06-09', 'from'],
    ['from=2024-01-01&to=2025-06-01', 'from'], // over 400 days
    ['groupBy=', 'groupBy'],
    [`key=${'k'.repeat(200)}`, 'key'],
  ] as const) {
    const r = await get(s, `/usage?${query}`, OPS_KEY);
    t.equal(r.status, 400, query);
    t.match(r.body, { code: 'INVALID_PARAMETER', message: new RegExp(`^${param}: `) }, `${query}: names ${param}`);
  }
  t.equal((await get(s, '/usage?from=2025-06-01T00:00:00%2B02:00&to=2025-06-10T00:00:00.5Z', SHOP_KEY)).status, 200, 'date-times with an offset and fractions');
  const anonymous = await request(`${s.url}/usage`);
  t.equal(anonymous.statusCode, 401);
  await anonymous.body.dump();

  const metrics = await (await request(`${s.url}/metrics`)).body.text();
  t.equal(sample(metrics, 'nightgate_key_sponsorships_total', { key: 'shop', outcome: 'sponsored' }), 3);
  t.equal(sample(metrics, 'nightgate_key_sponsorships_total', { key: 'shop', outcome: 'expired' }), 1);
  t.equal(sample(metrics, 'nightgate_key_sponsorships_total', { key: 'shop', outcome: 'allow.contracts' }), 1);
  t.equal(sample(metrics, 'nightgate_key_sponsored_dust_speck_total', { key: 'game' }), 42);

  const openapi = (await (await request(`${s.url}/api/openapi.json`)).body.json()) as {
    paths: Record<string, { get?: { parameters?: Array<{ name: string }> } }>;
  };
  t.same(openapi.paths['/usage']?.get?.parameters?.map((p) => p.name).sort(), ['from', 'groupBy', 'key', 'to'], 'in the OpenAPI document with its parameters');

  // A restart with the same state directory: the ledger is written at close and read back.
  const before = (await get(s, '/usage?groupBy=user', OPS_KEY)).body['keys'].filter((k: { keyId: string }) => k.keyId !== 'ops');
  await s.close();
  const second = await start(dir, clock);
  s = second.s;
  const after = await get(s, '/usage?groupBy=user', OPS_KEY);
  const strip = (keys: Array<Record<string, unknown>>) => keys.map(({ requests: _, ...k }) => k);
  t.same(strip(after.body['keys'].filter((k: { keyId: string }) => k.keyId !== 'ops')), strip(before), 'the same usage after the restart');
  t.same(after.body['keys'].find((k: { keyId: string }) => k.keyId === 'ops').requests, { total: 0, refused: {} }, 'requests count from the new start');
  t.match((await get(s, '/usage', SHOP_KEY)).body['keys'][0], { sponsorships: 3, dust: '1300', expired: 1, requests: { total: 0 } });
});

t.test(
  'with HTTP threads, keyed requests are counted on the main thread',
  { skip: childAppsSupported(loadUws().uws) ? false : 'this uWS build has no child apps (20.30)' },
  async (t) => {
    const dir = stateDir(t);
    const clock = new ManualClock(NOW);
    const u = usageModule(dir, clock);
    const s = await startApp({ server: { threads: 2 }, auth: { keys: KEYS, apiKeys: [] } }, { modules: [u.module], clock });
    t.teardown(() => s.close());
    // A new connection each: handed to the threads in turn, and forwarded to the main thread.
    for (let i = 0; i < 6; i++) {
      const r = await request(`${s.url}/usage?groupBy=${i % 2 === 0 ? 'day' : 'week'}`, { headers: { 'x-api-key': SHOP_KEY, connection: 'close' } });
      await r.body.dump();
    }
    const r = await get(s, '/usage', SHOP_KEY);
    t.same(r.body['keys'][0].requests, { total: 6, refused: { INVALID_PARAMETER: 3 } });
  },
);
