/**
 * Apps for the reliability suite, each on 127.0.0.1 port 0 and closed by the test's teardown:
 *
 *  - `sponsorApp`: proving + sponsorship in front of an embedded devnet for `preview` (the other
 *    networks point at a closed port), its prover either the dev backend or an upstream URL;
 *  - `fullApp`: every module — statistics for `preview` (devnet) and `mainnet` (a fake indexer),
 *    `preprod` unreachable — so every route the product has is mounted.
 */
import type { Test } from 'tap';
import { request } from 'undici';
import type { Clock } from '../../../src/core/clock.js';
import type { ConfigInput } from '../../../src/core/config/index.js';
import { mountProver, WORKER_POOL, type WorkerPoolComponent } from '../../../src/features/proving/index.js';
import { mountSponsorship, SPONSORSHIP_COMPONENT, type SponsorshipComponent } from '../../../src/features/sponsorship/index.js';
import type { DustAllocatorTable } from '../../../src/features/sponsorship/allocator/allocator.js';
import type { SponsorshipService } from '../../../src/features/sponsorship/sponsorship.js';
import { mountStats } from '../../../src/features/stats/index.js';
import type { DevnetEndpoints } from '../../../src/infra/app-context.js';
import { startApp, TEST_KEY, type TestApp } from '../../helpers/app.js';
import { FakeIndexer } from '../../fixtures/stats/fake-indexer.js';
import { T0 } from '../../fixtures/stats/stats-app.js';
import { watchLogs, type WatchedLogs } from './logs.js';

export const CLOSED = { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream' as const, proverUrl: 'http://127.0.0.1:9' };
export const OCTET_KEYED = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' } as const;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown> | undefined;
}

/** One request, body read to the end; `json` when the body parses. */
export async function call(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Uint8Array | string; signal?: AbortSignal } = {},
): Promise<Answer> {
  const res = await request(url, {
    method: (opts.method ?? 'GET') as 'GET',
    headers: opts.headers ?? {},
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const text = await res.body.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

export interface SponsorRig {
  s: TestApp;
  logs: WatchedLogs;
  service: SponsorshipService;
  table: DustAllocatorTable;
  pool: WorkerPoolComponent;
  devnet: DevnetEndpoints;
  post(path: string, body: Uint8Array, opts?: { headers?: Record<string, string>; signal?: AbortSignal }): Promise<Answer>;
}

export interface SponsorRigOptions {
  /** Upstream proof server for preview; default: the dev backend. */
  proverUrl?: string;
  overrides?: ConfigInput;
  clock?: Clock;
  logLevel?: string;
  /** Wait until the server wallets are synced (default true). */
  synced?: boolean;
}

export async function sponsorApp(t: Test, opts: SponsorRigOptions = {}): Promise<SponsorRig> {
  const logs = watchLogs(opts.logLevel ?? 'info');
  const o = opts.overrides ?? {};
  const preview = opts.proverUrl ? { prover: 'upstream' as const, proverUrl: opts.proverUrl } : {};
  const s = await startApp(
    {
      ...o,
      networks: { mainnet: CLOSED, preprod: CLOSED, ...o.networks, preview: { ...preview, ...o.networks?.preview } },
      devnet: { blockTimeMs: 250, ...o.devnet },
      // 250 ms blocks: a fee covers four blocks of price rise a second of its life and of the prices'
      // age, and a loaded machine ages them; the cap is not what these tests are about.
      dust: { maxFee: (50n * 10n ** 15n).toString(), ...o.dust },
      prover: { defaultNetwork: 'preview', ...o.prover },
      rateLimit: { limit: 100_000, ...o.rateLimit },
    },
    { devnet: true, modules: [mountProver, mountSponsorship], logger: logs.logger, ...(opts.clock ? { clock: opts.clock } : {}) },
  );
  t.teardown(() => s.close());
  const service = s.app.context.component<SponsorshipComponent>(SPONSORSHIP_COMPONENT)!.service!;
  if (opts.synced ?? true) await service.whenSynced('preview');
  return {
    s,
    logs,
    service,
    table: service.network('preview')!.table,
    pool: s.app.context.component<WorkerPoolComponent>(WORKER_POOL)!,
    devnet: s.app.context.devnet.get('preview')!,
    post: (path, body, o2 = {}) =>
      call(`${s.url}${path}`, { method: 'POST', headers: { ...OCTET_KEYED, ...o2.headers }, body, ...(o2.signal ? { signal: o2.signal } : {}) }),
  };
}

export interface FullRig {
  s: TestApp;
  fake: FakeIndexer;
  logs: WatchedLogs;
}

/** Every module mounted; mainnet from a fake indexer holding `blocks` blocks, proved through `proverUrl`. */
export async function fullApp(t: Test, proverUrl: string, opts: { blocks?: number; overrides?: ConfigInput } = {}): Promise<FullRig> {
  const fake = await FakeIndexer.start();
  // Blocks of the last minute: older ones would make mainnet's chain stale (10 block times), and
  // readiness would miss it.
  const blocks = opts.blocks ?? 6;
  const first = Math.max(T0, Date.now() - blocks * 6000);
  for (let i = 0; i < blocks; i++) fake.addBlock(first + i * 6000, [fake.tx()]);
  const logs = watchLogs('info');
  const o = opts.overrides ?? {};
  const s = await startApp(
    {
      ...o,
      networks: { mainnet: { ...fake.networkConfig(), proverUrl }, preprod: { ...CLOSED, proverUrl }, preview: {} },
      devnet: { blockTimeMs: 500 },
      stats: { pollIntervalMs: 200, reconnectMinMs: 50, reconnectMaxMs: 200, upstreamTimeoutMs: 1_000 },
      prover: { defaultNetwork: 'preview', ...o.prover },
      rateLimit: { limit: 1_000_000, publicLimit: 1_000_000, ...o.rateLimit },
      auth: { failureLimit: 1_000_000, ...o.auth },
    },
    { devnet: true, modules: [mountStats, mountProver, mountSponsorship], logger: logs.logger },
  );
  t.teardown(async () => {
    await s.close();
    await fake.close();
  });
  return { s, fake, logs };
}
