import t from 'tap';
import { eraOfBytes, ledger } from '../../src/infra/ledger/index.js';
import { SPONSOR_ERAS } from '../fixtures/dust/sponsor-app.js';
import { startNetwork, SPONSOR_WALLETS } from '../fixtures/devnet/harness.js';
import { DustAllocatorTable } from '../../src/features/sponsorship/allocator/allocator.js';
import { SharedSnapshot } from '../../src/features/sponsorship/allocator/shared-snapshot.js';
import { NetworkDustSync, type SyncStatus } from '../../src/features/sponsorship/wallets/wallet-sync.js';
import { decodeWalletState } from '../../src/features/sponsorship/wallets/wallet-state.js';

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: DUST sync replays the devnet events: every sponsor UTXO in the table, state published to workers`, async (t) => {
    const L = ledger(era);
    const h = await startNetwork({ ledger: era });
    t.teardown(() => h.close());
    const table = DustAllocatorTable.create(256);
    const snapshot = SharedSnapshot.create(8 * 1024 * 1024);
    const statuses: SyncStatus[] = [];
    let onStatus: (s: SyncStatus) => void = () => undefined;
    let synced!: () => void;
    const ready = new Promise<void>((r) => (synced = r));
    const sync = new NetworkDustSync(
      {
        network: 'preview',
        graphqlUrl: h.info.graphqlUrl,
        graphqlWsUrl: h.info.graphqlWsUrl,
        seeds: SPONSOR_WALLETS,
        table: table.buffer,
        snapshot: snapshot.buffer,
        timeoutMs: 5000,
        spentRetentionMs: 60_000,
        reconnectMinMs: 50,
        reconnectMaxMs: 500,
        blockTimeMs: 6_000,
      },
      (s) => {
        statuses.push(s);
        onStatus(s);
        if (s.phase === 'synced') synced();
      },
    );
    t.teardown(() => sync.close());
    await sync.start();
    await ready;
    const last = statuses[statuses.length - 1]!;
    t.equal(last.lastError, undefined);
    t.equal(last.phase, 'synced');
    t.equal(last.eventId, last.maxId);
    t.equal(last.era, era, `synced in ledger ${era}`);
    t.equal(last.wallets.length, 2);
    for (const w of last.wallets) {
      t.equal(w.utxos, 33, `wallet ${w.index}: 33 DUST UTXOs registered at genesis`);
      t.ok(BigInt(w.balance) > 0n, `wallet ${w.index} has accrued DUST`);
    }
    const counts = table.counts();
    t.same(counts, { free: 66, reserved: 0, spent: 0, total: 66 });
    t.ok(table.totalValue() > 0n);

    const snap = snapshot.read();
    t.ok(snap, 'published');
    const state = decodeWalletState(snap!.data);
    t.equal(state.eventId, last.eventId);
    t.equal(state.era, era, 'the published state says its era');
    t.equal(eraOfBytes(state.params), era, `the parameters are ledger ${era}'s`);
    const replica = L.DustLocalState.deserialize(state.wallets[0]!);
    t.equal(replica.utxos.length, 33, 'a worker replica has the same UTXOs');
    t.ok(L.LedgerParameters.deserialize(state.params).dust, 'with the ledger parameters');

    // A new block with DUST traffic keeps the sync live and synced.
    const before = last.eventId;
    const next = new Promise<SyncStatus>((resolve) => (onStatus = (s) => s.eventId > before && resolve(s)));
    await h.network.produceBlock();
    const after = await next;
    t.equal(after.phase, 'synced');
    t.equal(after.era, era);

    // An error shows in the status while it lasts, and is gone once events replay again.
    const failed = new Promise<SyncStatus>((resolve) => (onStatus = (s) => s.lastError !== undefined && resolve(s)));
    (sync as unknown as { onEvent(e: unknown): void }).onEvent({ id: 'not a number' });
    const broken = await failed;
    t.equal(broken.lastError, 'the indexer sent a malformed DUST event');
    t.equal(broken.phase, 'reconnecting');
    const mark = broken.eventId;
    const healed = new Promise<SyncStatus>((resolve) => (onStatus = (s) => s.eventId > mark && s.phase === 'synced' && resolve(s)));
    await h.network.produceBlock();
    t.equal((await healed).lastError, undefined, 'cleared by the next replay');
  });
