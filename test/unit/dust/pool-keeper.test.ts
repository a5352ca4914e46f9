import t from 'tap';
import { pino } from 'pino';
import { ManualClock } from '../../../src/clock.js';
import { DustAllocatorTable } from '../../../src/dust/allocator.js';
import { KEEPER_RESERVE, lowWater, PoolKeeper, type PoolKeeperOptions } from '../../../src/dust/pool-keeper.js';
import type { SponsoredNetwork, SponsorshipService } from '../../../src/dust/sponsorship.js';
import type { WorkerPoolComponent } from '../../../src/prover/worker-pool.js';

function keeper(over: Partial<PoolKeeperOptions>, utxos = 20): { keeper: PoolKeeper; table: DustAllocatorTable; runs: string[] } {
  const table = DustAllocatorTable.create(64);
  for (let i = 0; i < utxos; i++) table.add({ walletIndex: 0, key: BigInt(i + 1), value: 10n ** 9n });
  const runs: string[] = [];
  const pool = { run: async (name: string) => { runs.push(name); throw new Error('no worker here'); } } as unknown as WorkerPoolComponent;
  const net = { name: 'preview', networkId: 'undeployed', seeds: ['00'.repeat(32)], table, blockTimeMs: 6_000 } as unknown as SponsoredNetwork;
  const service = { held: () => 0 } as unknown as SponsorshipService;
  const k = new PoolKeeper({ net, target: 40, submitUrl: 'http://127.0.0.1:9/submit', indexerWsUrl: 'ws://127.0.0.1:9/ws', service, pool, clock: new ManualClock(0), logger: pino({ level: 'silent' }), maxSplits: 16, timeoutMs: 1_000, ...over });
  return { keeper: k, table, runs };
}

t.test('without a submit endpoint the keeper is unavailable and says how to fix it', async (t) => {
  const { keeper: k, runs } = keeper({ submitUrl: undefined });
  k.poke();
  t.equal(k.status().maintenance.state, 'unavailable');
  t.match(k.status().maintenance.reason, /set networks\.preview\.submitUrl/);
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

t.test('target 0: never', async (t) => {
  const { keeper: k, table, runs } = keeper({ target: 0 });
  for (let i = 0; i < 20; i++) table.reserve(1n, Number.MAX_SAFE_INTEGER);
  k.poke();
  t.same(runs, []);
  t.equal(k.wantsReserve(), false);
});
