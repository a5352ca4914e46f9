import t, { type Test } from 'tap';
import { ledger, type Era, type L } from '../../src/infra/ledger/index.js';
import { startNetwork, SPONSOR_WALLETS, type Harness } from '../fixtures/devnet/harness.js';
import { SPONSOR_ERAS } from '../fixtures/dust/sponsor-app.js';
import { freshUser, fund, unprovenTransfer } from '../fixtures/dust/user-tx.js';
import { DustAllocatorTable } from '../../src/features/sponsorship/allocator/allocator.js';
import { SharedSnapshot } from '../../src/features/sponsorship/allocator/shared-snapshot.js';
import { NetworkDustSync, type SyncStatus } from '../../src/features/sponsorship/wallets/wallet-sync.js';
import { sponsor, type SponsorArgs } from '../../src/features/sponsorship/worker/sponsor.js';
import { devProvingProvider } from '../../src/infra/prover/worker/providers.js';
import { replicaOf } from '../../src/features/sponsorship/worker/wallet-replica.js';

interface Rig {
  h: Harness;
  table: DustAllocatorTable;
  snapshot: SharedSnapshot;
  /** Resolves with the first status after `eventId` passes `after`. */
  nextStatus(after: number): Promise<SyncStatus>;
  last(): SyncStatus;
}

async function rig(t: Test, era: Era): Promise<Rig> {
  const h = await startNetwork({ ledger: era });
  t.teardown(() => h.close());
  const table = DustAllocatorTable.create(256);
  const snapshot = SharedSnapshot.create(8 * 1024 * 1024);
  const waiters: Array<{ after: number; resolve: (s: SyncStatus) => void }> = [];
  let last: SyncStatus | undefined;
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
    (s) => {
      last = s;
      for (const w of [...waiters])
        if (s.phase === 'synced' && s.eventId > w.after) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(s);
        }
    },
  );
  t.teardown(() => sync.close());
  const nextStatus = (after: number) => new Promise<SyncStatus>((resolve) => waiters.push({ after, resolve }));
  const first = nextStatus(-1);
  await sync.start();
  await first;
  return { h, table, snapshot, nextStatus, last: () => last! };
}

const args = (era: Era, kind: SponsorArgs['kind'], over: Partial<SponsorArgs> = {}): SponsorArgs => ({
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
  ...over,
});

async function submit(h: Harness, bytes: Uint8Array): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(h.info.submitUrl, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

for (const era of SPONSOR_ERAS) {
  const L = ledger(era);

  t.test(`ledger ${era}: prove-and-balance: a DUST-less user transfer is sponsored, lands, and its DUST UTXO is marked SPENT`, async (t) => {
    const r = await rig(t, era);
    const alice = freshUser(11, era);
    const bob = freshUser(12, era);
    await fund(r.h, alice, 50_000_000n);
    const user = await unprovenTransfer(r.h, alice, bob.address, 1_000_000n);

    // Without a fee the ledger refuses it.
    const unbalanced = await submit(r.h, (await user.prove(devProvingProvider({}, era), L.CostModel.initialCostModel())).bind().serialize());
    t.equal(unbalanced.status, 400, 'the unsponsored transfer is unbalanced');

    const res = await sponsor(user.serialize(), args(era, 'prove-and-balance'), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era));
    t.equal(r.table.counts().reserved, 1, 'one UTXO reserved for it');
    const tx = L.Transaction.deserialize('signature', 'proof', 'binding', res.tx);
    t.equal(tx.transactionHash(), res.txHash, 'hash of the returned bytes is txHash');
    t.ok(BigInt(res.fee) > 0n);
    t.ok(res.expiresAt < res.reclaimAt, 'the fee intent expires before the reservation is reclaimed');

    const landed = await submit(r.h, res.tx);
    t.equal(landed.status, 202, JSON.stringify(landed.body));
    const before = r.last().eventId;
    const next = r.nextStatus(before);
    await r.h.network.produceBlock();
    await next;
    const slot = r.table.slotEntry(res.slot);
    t.equal(slot?.state, 'spent', 'chain sync marked the spent DUST UTXO SPENT');
    t.equal(r.table.counts().reserved, 0);
    t.equal(r.table.release({ slot: res.slot, generation: res.generation }), false, 'the old reservation can no longer be released');
  });

  t.test(`ledger ${era}: balance-only: a proven transfer gets a proven, bound fee part merged in, and lands`, async (t) => {
    const r = await rig(t, era);
    const carol = freshUser(21, era);
    await fund(r.h, carol, 50_000_000n);
    const user = await unprovenTransfer(r.h, carol, freshUser(22, era).address, 2_000_000n);
    const proven = await user.prove(devProvingProvider({}, era), L.CostModel.initialCostModel());
    // The proven (unbound) body is sponsored and the answer dropped; the finalized one lands.
    for (const [i, body] of [proven.serialize(), proven.bind().serialize()].entries()) {
      const res = await sponsor(body, args(era, 'balance-only'), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era));
      const tx = L.Transaction.deserialize('signature', 'proof', 'binding', res.tx);
      t.equal(tx.transactionHash(), res.txHash);
      if (i === 0) t.ok(r.table.release({ slot: res.slot, generation: res.generation }), 'released by its holder');
      else {
        const landed = await submit(r.h, res.tx);
        t.equal(landed.status, 202, JSON.stringify(landed.body));
        const next = r.nextStatus(r.last().eventId);
        await r.h.network.produceBlock();
        await next;
        t.equal(r.table.slotEntry(res.slot)?.state, 'spent');
      }
    }
  });

  t.test(`ledger ${era}: wrong kinds, cap and budget are refused before any UTXO stays reserved`, async (t) => {
    const r = await rig(t, era);
    const dave = freshUser(31, era);
    await fund(r.h, dave, 50_000_000n);
    const user = await unprovenTransfer(r.h, dave, freshUser(32, era).address, 1n);
    const finalized = (await user.prove(devProvingProvider({}, era), L.CostModel.initialCostModel())).bind().serialize();
    await t.rejects(sponsor(finalized, args(era, 'prove-and-balance'), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era)), {
      code: 'WRONG_TRANSACTION_KIND',
      message: 'expected an unproven transaction, got a finalized one',
    });
    await t.rejects(sponsor(user.serialize(), args(era, 'balance-only'), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era)), {
      code: 'WRONG_TRANSACTION_KIND',
      message: 'expected a proven transaction or a finalized transaction, got an unproven one',
    });
    await t.rejects(
      sponsor(user.serialize(), args(era, 'prove-and-balance', { maxFee: '1' }), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era)),
      { code: 'FEE_CAP_EXCEEDED' },
    );
    await t.rejects(
      sponsor(user.serialize(), args(era, 'prove-and-balance', { budgetLeft: '1' }), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era)),
      { code: 'DUST_BUDGET_EXCEEDED' },
    );
    const failing: L.ProvingProvider = {
      check: async () => [],
      prove: async () => {
        throw new Error('prover exploded');
      },
    };
    await t.rejects(sponsor(user.serialize(), args(era, 'prove-and-balance'), r.table.buffer, r.snapshot.buffer, failing), { code: 'PROVER_FAILED' });
    t.same(r.table.counts().reserved, 0, 'every failure released its reservation at once');
    t.equal(r.table.counts().free, r.table.counts().total);
  });

  t.test(`ledger ${era}: a fee part cost learned at a lower price is caught on the proven result and the fee rebuilt`, async (t) => {
    const r = await rig(t, era);
    // Our own copy: a worker frees a replica's ledger objects when a newer snapshot replaces it.
    const params = L.LedgerParameters.deserialize(replicaOf(r.snapshot.buffer)!.params.serialize());
    const erin = freshUser(41, era);
    const frank = freshUser(42, era);
    await fund(r.h, erin, 50_000_000n);
    await fund(r.h, frank, 50_000_000n);
    const finalized = async (from: ReturnType<typeof freshUser>, to: number) =>
      (await (await unprovenTransfer(r.h, from, freshUser(to).address, 1_000_000n)).prove(devProvingProvider({}, era), L.CostModel.initialCostModel()))
        .bind()
        .serialize();
    const first = await finalized(erin, 43);
    const second = await finalized(frank, 44);

    // Margin 0 here: this thread learns what a fee part costs at margin 0. The next request asks
    // margin 4 (prices ~20% up), so user fee + learned cost is short of what it is charged.
    const cheap = await sponsor(first, args(era, 'balance-only', { margin: 0 }), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era));
    const cheapTx = L.Transaction.deserialize('signature', 'proof', 'binding', cheap.tx);
    t.ok(BigInt(cheap.fee) >= cheapTx.feesWithMargin(params, 0), 'the fee covers the proven transaction');
    const dear = await sponsor(second, args(era, 'balance-only', { margin: 4 }), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, era));
    const dearTx = L.Transaction.deserialize('signature', 'proof', 'binding', dear.tx);
    const charged = dearTx.feesWithMargin(params, 4);
    t.ok(BigInt(dear.fee) >= charged, `the fee ${dear.fee} covers the ${charged} SPECK charged at margin 4`);
    t.ok(BigInt(dear.fee) > BigInt(cheap.fee), 'and is higher than at margin 0');
    t.equal(r.table.counts().reserved, 2, 'the short attempt released its UTXO: one reservation per answer');
    for (const res of [cheap, dear]) t.equal((await submit(r.h, res.tx)).status, 202, 'lands');
  });
}
