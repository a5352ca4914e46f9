// Soak: WebAssembly memory grew ≈ 7 MiB/min with live chains because hot paths left
// ledger-v8 objects to the garbage collector, which frees them only after a major GC that a small
// JS heap seldom runs (packages/ledger/src/release.ts). These tests count live ledger objects by class
// (test/helpers/ledger-census.ts) around each repeated path: after a warm-up, repeating the path
// must leave nothing behind. Every path runs on each ledger era (SPONSOR_ERAS): the census counts
// both eras' objects, and `census(era)` tells which package made them. The census must be evaluated
// before any ledger package: keep it first.
import { census, growth, liveSites, traceSites } from '../helpers/ledger-census.js';
import t, { type Test } from 'tap';
import { ledger, type Era, type L } from '../../src/infra/ledger/index.js';
import { SPONSOR_ERAS } from '../fixtures/dust/sponsor-app.js';
import { startNetwork, SPONSOR_WALLETS, type Harness } from '../fixtures/devnet/harness.js';
import type { BlockRecord } from '../../packages/devnet/src/indexer-records.js';
import type { DevnetLogger } from '../../packages/devnet/src/logger.js';
import { freshUser, fund, unprovenTransfer } from '../fixtures/dust/user-tx.js';
import { checkBody, proveBody, midnightFile } from '../fixtures/prover/samples.js';
import { DustAllocatorTable } from '../../src/features/sponsorship/allocator/allocator.js';
import { release } from '../../packages/ledger/src/release.js';
import { SharedSnapshot } from '../../src/features/sponsorship/allocator/shared-snapshot.js';
import { NetworkDustSync, type SyncStatus } from '../../src/features/sponsorship/wallets/wallet-sync.js';
import { pricesWithin, replicaOf } from '../../src/features/sponsorship/worker/wallet-replica.js';
import { pack, unpack, type TaskOutcome } from '../../src/infra/pool/tasks.js';
import { sponsor, type SponsorArgs } from '../../src/features/sponsorship/worker/sponsor.js';
import { devProvingProvider } from '../../src/infra/prover/worker/providers.js';
import { prove } from '../../src/features/proving/worker/tasks/prove.js';
import { check } from '../../src/features/proving/worker/tasks/check.js';
import { k } from '../../src/features/proving/worker/tasks/k.js';

/** Runs `body` and answers what it left alive, by class and, when any, by the line that made it. */
async function leftBehind(body: () => Promise<void>): Promise<{ growth: Record<string, number>; sites: string[] }> {
  const before = census();
  traceSites(true);
  try {
    await body();
    return {
      growth: growth(before, census()),
      sites: liveSites()
        .filter(([site]) => !site.startsWith('closure'))
        .map(([site, n]) => `${n} × ${site}`),
    };
  } finally {
    traceSites(false);
  }
}

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: the census sees a ledger object nobody freed, and stops counting it once freed`, async (t) => {
    let intent: L.UnprovenIntent | undefined;
    const before = census(era);
    const leaked = await leftBehind(async () => {
      intent = ledger(era).Intent.new(new Date(Date.now() + 60_000));
    });
    t.same(leaked.growth, { intent: 1 });
    t.same(growth(before, census(era)), { intent: 1 }, `counted as ledger ${era}'s`);
    t.match(leaked.sites[0], /^1 × intent .*ledger-objects\.test\.ts/, 'and names the line that made it');
    const freed = await leftBehind(async () => release(intent));
    t.same(census().get('intent') ?? 0, 0, 'freed: no longer live');
    t.same(freed.growth, {});
  });

interface Rig {
  h: Harness;
  table: DustAllocatorTable;
  snapshot: SharedSnapshot;
  /** One block, resolved once the DUST sync has replayed it. */
  block(): Promise<BlockRecord>;
}

/** What the devnet logged at warn or error (a synthetic transaction it could not build is a warning). */
const complaints: string[] = [];
const recording: DevnetLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (obj, msg) => void complaints.push(`${msg} ${JSON.stringify(obj)}`),
  error: (obj, msg) => void complaints.push(`${msg} ${JSON.stringify(obj)}`),
};

async function rig(t: Test, era: Era): Promise<Rig> {
  const h = await startNetwork({ ledger: era }, recording);
  t.teardown(() => h.close());
  const table = DustAllocatorTable.create(256);
  const snapshot = SharedSnapshot.create(8 * 1024 * 1024);
  // Resolves once the sync has replayed every DUST event up to `until`.
  let waiter: { until: number; resolve: () => void } | undefined;
  let last = -1;
  const sync = new NetworkDustSync(
    {
      network: 'preview',
      graphqlUrl: h.info.graphqlUrl,
      graphqlWsUrl: h.info.graphqlWsUrl,
      seeds: SPONSOR_WALLETS,
      table: table.buffer,
      snapshot: snapshot.buffer,
      timeoutMs: 5000,
      spentRetentionMs: 600_000,
      reconnectMinMs: 50,
      reconnectMaxMs: 500,
      blockTimeMs: 6_000,
    },
    (s: SyncStatus) => {
      if (s.phase !== 'synced') return;
      last = s.eventId;
      if (waiter && last >= waiter.until) {
        waiter.resolve();
        waiter = undefined;
      }
    },
  );
  t.teardown(() => sync.close());
  const replayedUpTo = (until: number): Promise<void> => (last >= until ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { until, resolve })));
  await sync.start();
  await replayedUpTo(Math.max(0, h.network.store.maxDustEventId));
  return {
    h,
    table,
    snapshot,
    async block() {
      // Waits for the events the indexer holds once the block is visible, not for "one more
      // event": a block may carry no DUST event, and a resubscribe may replay a block's events in
      // parts (CI once waited on a block whose events had already been counted).
      const record = await h.network.produceBlock();
      await replayedUpTo(h.network.store.maxDustEventId);
      return record;
    },
  };
}

for (const era of SPONSOR_ERAS)
  t.test(
    `ledger ${era}: devnet blocks with their synthetic traffic, a DUST sync following them, and zswap tree queries leave no ledger object behind`,
    async (t) => {
      const r = await rig(t, era);
      // Warm-up: the first blocks learn the mock proofs' shapes and deploy the counter contract.
      for (let i = 0; i < 4; i++) await r.block();
      complaints.length = 0;
      let transactions = 0;
      const left = await leftBehind(async () => {
        // 12 blocks: every kind of synthetic transaction (traffic.ts) comes round at least once.
        for (let i = 0; i < 12; i++) {
          transactions += (await r.block()).transactionIds.length;
          const res = await r.h.gql('query($s: Int!, $e: Int!) { zswapMerkleTreeCollapsedUpdate(startIndex: $s, endIndex: $e) { update } }', { s: 0, e: 1 });
          t.equal(res.errors, undefined, 'the zswap query answers');
        }
      });
      // What a block replaces (the chain's state, the wallets' states, the observer) is freed with it:
      // the same objects stay live, none accumulate.
      t.same(left.growth, {}, 'no ledger object accumulates', { madeAt: left.sites });
      t.ok(census(era).size > 0, `the census counts ledger ${era}'s objects (the chain's state is live: ${[...census(era).keys()].slice(0, 5).join(', ')}, …)`);
      t.ok(r.h.network.height >= 16, 'the blocks were produced');
      // A path that failed would make fewer objects and pass the census: the devnet skips a synthetic
      // transaction it cannot build with a warning, so none may have been logged.
      t.strictSame(complaints, [], 'every synthetic transaction was built and applied');
      t.ok(
        transactions >= 18,
        `the blocks carried the synthetic traffic (${transactions}` +
          ` transactions; a transfer in every block, shielded transfers, contract actions, a registration)`,
      );
    },
  );

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: sponsoring (prove-and-balance, balance-only proven and finalized) leaves no ledger object behind`, async (t) => {
    const L = ledger(era);
    const r = await rig(t, era);
    const alice = freshUser(41, era);
    await fund(r.h, alice, 50_000_000n);
    const args = (kind: SponsorArgs['kind']): SponsorArgs => ({
      kind,
      era,
      networkId: 'undeployed',
      seeds: SPONSOR_WALLETS,
      margin: 3,
      maxFee: (10n ** 18n).toString(),
      budgetLeft: (10n ** 19n).toString(),
      now: Date.now(),
      reservationTtlMs: 300_000,
      ttlSafetyMs: 60_000,
      blockTimeMs: 6_000,
      feeTtlMs: 60_000,
    });
    const user = await unprovenTransfer(r.h, alice, freshUser(42, era).address, 1_000_000n);
    const proven = await user.prove(devProvingProvider({}, era), L.CostModel.initialCostModel());
    const bodies = [
      { kind: 'prove-and-balance' as const, bytes: user.serialize() },
      { kind: 'balance-only' as const, bytes: proven.serialize() },
      { kind: 'balance-only' as const, bytes: proven.bind().serialize() },
    ];
    const once = async (kind: SponsorArgs['kind'], bytes: Uint8Array): Promise<void> => {
      const res = await sponsor(bytes, args(kind), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era));
      r.table.release({ slot: res.slot, generation: res.generation });
    };
    // Warm-up: the replica is decoded, the fee part's cost learned, keys and cost model made once.
    for (const { kind, bytes } of bodies) await once(kind, bytes);
    // The fee holds at the prices of as many blocks as the tip's age and the intent's life span, so
    // the thread's price history (one set of parameters per block and fullness pattern, kept for the
    // next requests) grows by a block whenever the wall clock crosses a block time since the tip. Build
    // it past any age this test reaches, so only what a request makes is counted.
    pricesWithin(replicaOf(r.snapshot.buffer)!, 'undeployed', 200);
    let sponsored = 0;
    const left = await leftBehind(async () => {
      for (let round = 0; round < 4; round++) {
        for (const { kind, bytes } of bodies) {
          await once(kind, bytes);
          sponsored++;
        }
      }
      // Refusals take the error paths: the fee cap (before anything is built), and a fee part that
      // cannot merge with the user's transaction, on the first-time path that estimates the fee on
      // mock-proven shapes (a network this thread has not learned a fee part for: the user's
      // transaction was built for `undeployed`).
      await t.rejects(
        sponsor(bodies[0]!.bytes, { ...args('prove-and-balance'), maxFee: '1' }, r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era)),
        { code: 'FEE_CAP_EXCEEDED' },
      );
      for (const networkId of ['other-net-a', 'other-net-b']) {
        await t.rejects(
          sponsor(bodies[0]!.bytes, { ...args('prove-and-balance'), networkId }, r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era)),
          { code: 'TRANSACTION_REJECTED' },
        );
      }
    });
    t.equal(sponsored, 12);
    t.same(left.growth, {}, 'no ledger object accumulates', { madeAt: left.sites });
    t.equal(r.table.counts().reserved, 0, 'every reservation was released');
  });

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: the prove, check and k tasks leave no ledger or zkir object behind`, async (t) => {
    const input = (args: unknown, data: Uint8Array) => ({ args: pack(args), data, shared: undefined, port: undefined });
    const tasks = [
      { name: 'prove', run: () => prove(input({ backend: 'dev', keyDir: '', era }, proveBody(undefined, undefined, era))) },
      { name: 'check', run: () => check(input({ backend: 'dev', keyDir: '', era }, checkBody(undefined, undefined, era))) },
      { name: 'k', run: () => k(input({}, midnightFile('zk/zswap_output.bzkir'))) },
    ];
    for (const task of tasks) {
      const outcome = unpack<TaskOutcome<unknown>>(await task.run());
      t.ok(outcome.ok, `${task.name} succeeds (warm-up)`);
    }
    let ok = 0;
    const left = await leftBehind(async () => {
      for (let i = 0; i < 5; i++) for (const task of tasks) if (unpack<TaskOutcome<unknown>>(await task.run()).ok) ok++;
    });
    t.equal(ok, 15, 'every task succeeded');
    t.same(left.growth, {}, 'no ledger object accumulates', { madeAt: left.sites });
  });
