import t from 'tap';
import { pino } from 'pino';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';
import { KEEPER_RESERVE } from '../../../../src/features/sponsorship/common/pool-constants.js';
import { lowWater, PoolKeeper, type PoolKeeperOptions } from '../../../../src/features/sponsorship/pool/pool-keeper.js';
import type { SponsoredNetwork } from '../../../../src/features/sponsorship/common/sponsored-network.js';
import type { SponsorshipService } from '../../../../src/features/sponsorship/sponsorship.js';
import type { WorkerPoolComponent } from '../../../../src/infra/pool/worker-pool.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { Metrics } from '../../../../src/infra/metrics/metrics.js';
import { collectSponsorship } from '../../../../src/features/sponsorship/metrics.js';
import type { AppContext } from '../../../../src/infra/app-context.js';
import { Submitter } from '../../../../src/infra/node/submitter.js';
import { MIDNIGHT_EXTRINSIC } from '../../../../src/infra/ledger/index.js';

function keeper(
  over: Partial<PoolKeeperOptions>,
  utxos = 20,
  failWith: () => Error = () => new Error('no worker here'),
): { keeper: PoolKeeper; table: DustAllocatorTable; runs: string[] } {
  const table = DustAllocatorTable.create(64);
  for (let i = 0; i < utxos; i++) table.add({ walletIndex: 0, key: BigInt(i + 1), value: 10n ** 9n });
  const runs: string[] = [];
  const pool = {
    run: async (name: string) => {
      runs.push(name);
      throw failWith();
    },
  } as unknown as WorkerPoolComponent;
  const net = { name: 'preview', networkId: 'undeployed', seeds: ['00'.repeat(64)], table, blockTimeMs: 6_000 } as unknown as SponsoredNetwork;
  const service = { held: () => 0, eraOf: () => 9 } as unknown as SponsorshipService;
  const k = new PoolKeeper({
    net,
    target: 40,
    submitter: new Submitter({ network: 'preview', nodeRpc: 'http://127.0.0.1:9/rpc', framing: MIDNIGHT_EXTRINSIC, timeoutMs: 1_000 }),
    indexerWsUrl: 'ws://127.0.0.1:9/ws',
    service,
    pool,
    clock: new ManualClock(0),
    logger: pino({ level: 'silent' }),
    maxSplits: 16,
    timeoutMs: 1_000,
    ...over,
  });
  return { keeper: k, table, runs };
}

t.test('without a submit endpoint the keeper is unavailable and says how to fix it', async (t) => {
  const { keeper: k, runs } = keeper({ submitter: new Submitter({ network: 'preview', nodeRpc: undefined, framing: MIDNIGHT_EXTRINSIC, timeoutMs: 1_000 }) });
  k.poke();
  t.equal(k.status().maintenance.state, 'unavailable');
  t.match(k.status().maintenance.reason, /no node to submit to on preview: set networks\.preview\.nodeRpc \(NIGHTGATE_PREVIEW_NODE_RPC\), or grow the pool/);
  t.equal(k.wantsReserve(), false, 'no reserve is kept for a keeper that cannot split');
  t.same(runs, []);
});

t.test('no demand, no round; below target with half the pool in use, a round starts', async (t) => {
  const { keeper: k, table, runs } = keeper({});
  k.poke();
  t.equal(k.status().maintenance.state, 'idle', '20 of 20 free: nothing to do though below target');
  t.same(runs, []);
  t.equal(k.wantsReserve(), true, 'below target: the last free UTXOs are kept for splits');
  const held = Array.from({ length: 11 }, () => table.reserve(1n, Number.MAX_SAFE_INTEGER));
  t.ok(held.every(Boolean));
  t.equal(table.counts().free < lowWater(20), true, `9 free < ${lowWater(20)}`);
  k.poke();
  await k.settled();
  t.same(runs, ['poolAddresses'], 'a round started (it failed here: no worker), and says so');
  t.equal(k.status().maintenance.state, 'failing');
  t.match(k.status().maintenance.reason, /no worker here/);
  t.equal(k.wantsReserve(), false, 'a failing keeper keeps no UTXO from users');
  t.equal(KEEPER_RESERVE, 8);
});

t.test('growth started by a shortage continues to the target after the demand falls', async (t) => {
  const { keeper: k, table, runs } = keeper({});
  const held = Array.from({ length: 11 }, () => table.reserve(1n, Number.MAX_SAFE_INTEGER)!);
  k.poke();
  await k.settled();
  t.same(runs, ['poolAddresses'], '9 of 20 free: a round');
  for (const r of held) table.release(r);
  t.equal(table.counts().free, 20, 'the demand is gone: every UTXO free again');
  k.poke();
  await k.settled();
  t.same(runs, ['poolAddresses', 'poolAddresses'], 'still below target (20 of 40): the growth goes on');
  const idle = keeper({});
  idle.keeper.poke();
  await idle.keeper.settled();
  t.same(idle.runs, [], 'a pool that never ran short is left alone');
});

t.test('target 0: never', async (t) => {
  const { keeper: k, table, runs } = keeper({ target: 0 });
  for (let i = 0; i < 20; i++) table.reserve(1n, Number.MAX_SAFE_INTEGER);
  k.poke();
  t.same(runs, []);
  t.equal(k.wantsReserve(), false);
});

/** A pino logger whose lines land in `lines`, parsed. */
function capture(): { logger: PoolKeeperOptions['logger']; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

t.test('a keeper failing for want of a free DUST UTXO keeps its reserve, counts each failure and warns on a log scale', async (t) => {
  const { logger, lines } = capture();
  let failure: () => Error = () => new GatewayError('NO_DUST_AVAILABLE', 'no free DUST UTXO covers a fee of 1 SPECK; retry shortly');
  const { keeper: k, table } = keeper({ logger }, 20, () => failure());
  for (let i = 0; i < 11; i++) table.reserve(1n, Number.MAX_SAFE_INTEGER);
  for (let round = 1; round <= 5; round++) {
    k.poke();
    await k.settled();
  }
  t.equal(k.status().maintenance.state, 'failing');
  t.equal(k.wantsReserve(), true, "failing for want of DUST: the reserve stays the keeper's, or users would take the UTXOs it waits for");
  t.same(k.failureCounts(), { byReason: { 'no-dust': 5, 'no-night': 0, 'submit-refused': 0, sponsorship: 0, error: 0 }, consecutive: 5 });
  const warned = (): Array<Record<string, unknown>> => lines.filter((l) => l['code'] === 'POOL_SPLIT_FAILED');
  t.same(
    warned().map((l) => l['consecutiveFailures']),
    [1, 2, 4],
    'warned at the 1st, 2nd and 4th failure in a row, not at every block',
  );
  t.match(warned()[0], { level: 40, network: 'preview', reason: 'no-dust', err: /no free DUST UTXO/, free: 9, live: 20, target: 40 });

  failure = () => new Error('indexer unreachable');
  k.poke();
  await k.settled();
  t.same(
    warned()
      .map((l) => [l['consecutiveFailures'], l['reason']])
      .at(-1),
    [6, 'error'],
    'a new reason warns at once',
  );
  t.equal(k.wantsReserve(), false, 'a failure the reserve cannot cure gives the UTXOs back to users');
  t.equal(k.failureCounts().byReason.error, 1);

  // /metrics, registered with the other pool gauges (src/features/sponsorship/metrics.ts) and set at scrape.
  const metrics = new Metrics({ defaultMetrics: false });
  const service = {
    stats: () => ({ inFlight: 0 }),
    status: () => ({ preview: { sync: { phase: 'synced' }, balance: '0', wallets: [], utxos: table.counts(), pool: k.status() } }),
    keeper: () => k,
    network: () => undefined,
  };
  const ctx = { metrics, component: (name: string) => (name === 'sponsorship' ? { service } : undefined) } as unknown as AppContext;
  collectSponsorship(ctx);
  const text = await metrics.render();
  t.match(text, /nightgate_dust_pool_keeper_failures_total\{network="preview",reason="no-dust"\} 5\n/);
  t.match(text, /nightgate_dust_pool_keeper_failures_total\{network="preview",reason="error"\} 1\n/);
  t.match(text, /nightgate_dust_pool_keeper_consecutive_failures\{network="preview"\} 6\n/);
});

t.test('no NIGHT left to split is a failure too: counted, warned, and the reserve given back', async (t) => {
  const { logger, lines } = capture();
  const { keeper: k, table } = keeper({ logger });
  // The round gets as far as the wallets' NIGHT: none worth splitting (the indexer answers nothing).
  (k as unknown as { opts: { pool: unknown } }).opts.pool = { run: async () => ({ nightToken: '00', wallets: [] }) };
  for (let i = 0; i < 11; i++) table.reserve(1n, Number.MAX_SAFE_INTEGER);
  k.poke();
  await k.settled();
  t.equal(k.status().maintenance.state, 'failing');
  t.same(k.failureCounts(), { byReason: { 'no-dust': 0, 'no-night': 1, 'submit-refused': 0, sponsorship: 0, error: 0 }, consecutive: 1 });
  t.match(
    lines.find((l) => l['code'] === 'POOL_SPLIT_FAILED'),
    { reason: 'no-night', err: /fund the wallets' NIGHT addresses/ },
  );
  t.equal(k.wantsReserve(), false);
});

t.test('a pool no larger than the reserve grows though every UTXO is free: it serves no user', async (t) => {
  const { keeper: k, runs } = keeper({ target: 9 }, 3);
  k.poke();
  await k.settled();
  t.same(runs, ['poolAddresses'], '3 free of 3, all within the reserve of 8: a round starts');
  const big = keeper({ target: 40 }, 20);
  big.keeper.poke();
  await big.keeper.settled();
  t.same(big.runs, [], '20 free, above the reserve and half the pool: no demand, no round');
});

t.test('dust.growAtStart: grows from the first block with every UTXO free, and is filling until the target is held', async (t) => {
  const { keeper: k, table, runs } = keeper({ growAtStart: true });
  t.equal(k.status().filling, true, 'filling before the first block');
  k.poke();
  await k.settled();
  t.same(runs, ['poolAddresses'], '20 of 20 free, 20 of 40 held: a round at once (it failed here: no worker)');
  t.equal(k.status().filling, true, 'a failed round is retried after the next block: still filling');
  for (let i = 20; i < 40; i++) table.add({ walletIndex: 0, key: BigInt(i + 1), value: 10n ** 9n });
  k.poke();
  t.equal(k.status().filling, false, 'the target held: ready');
  t.equal(k.status().maintenance.state, 'idle');
  const off = keeper({});
  t.equal(off.keeper.status().filling, false, 'off by default');
  const none = keeper({ growAtStart: true, target: 0 });
  t.equal(none.keeper.status().filling, false, 'target 0: nothing to fill');
});

t.test('dust.growAtStart: wallets with no NIGHT left to split stop the filling, not the server', async (t) => {
  const { keeper: k } = keeper({ growAtStart: true });
  (k as unknown as { opts: { pool: unknown } }).opts.pool = { run: async () => ({ nightToken: '00', wallets: [] }) };
  k.poke();
  await k.settled();
  t.equal(k.failureCounts().byReason['no-night'], 1);
  t.equal(k.status().filling, false, 'the target cannot be reached: /readyz stops waiting for it');
});
