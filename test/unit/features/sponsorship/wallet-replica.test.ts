import t from 'tap';
import { ledger, type Era } from '../../../../src/infra/ledger/index.js';
import { SharedSnapshot } from '../../../../src/features/sponsorship/allocator/shared-snapshot.js';
import { encodeWalletState } from '../../../../src/features/sponsorship/wallets/wallet-state.js';
import { replicaOf } from '../../../../src/features/sponsorship/worker/wallet-replica.js';

function publishWallets(s: SharedSnapshot, count: number, eventId: number, era: Era = 8): void {
  const L = ledger(era);
  const params = L.LedgerParameters.initialParameters();
  const wallets = Array.from({ length: count }, () => new L.DustLocalState(params.dust).serialize());
  s.publish(encodeWalletState({ era, chainTime: 0, params: params.serialize(), paramsAt: 0, wallets, eventId }));
}

t.test('a snapshot is decoded once per version, whichever SharedArrayBuffer object carries it', async (t) => {
  const s = SharedSnapshot.create(1 << 20);
  t.ok(s.identity > 0, 'a created snapshot has an identity');
  t.equal(replicaOf(s.buffer), undefined, 'nothing published yet');
  publishWallets(s, 2, 1);
  const first = replicaOf(s.buffer);
  t.equal(first?.wallets.length, 2);
  // Every task message hands the worker a new SharedArrayBuffer object over the same memory;
  // structuredClone does the same here.
  const carried = structuredClone(s.buffer);
  t.not(carried, s.buffer, 'a different object');
  t.equal(new SharedSnapshot(carried).identity, s.identity, 'with the same identity');
  t.equal(replicaOf(carried), first, 'the cached replica is returned');
  t.equal(replicaOf(structuredClone(s.buffer)), first);

  publishWallets(s, 3, 2);
  const second = replicaOf(structuredClone(s.buffer));
  t.equal(second?.wallets.length, 3, 'a new version is decoded');
  const pointer = (o: unknown): number => (o as { __wbg_ptr: number }).__wbg_ptr;
  t.equal(pointer(first!.params), 0, "the replaced replica's ledger objects are freed at once (WASM memory), not at a major GC");
  t.same(first!.wallets.map(pointer), [0, 0]);
  t.ok(pointer(second!.params) > 0, 'the current one is alive');
  t.not(second, first, 'a new replica');
  t.equal(replicaOf(structuredClone(s.buffer)), second, 'which is the cached one from then on');
});

t.test('two snapshots (two networks) keep separate replicas', async (t) => {
  const a = SharedSnapshot.create(1 << 20);
  const b = SharedSnapshot.create(1 << 20);
  t.not(a.identity, b.identity);
  publishWallets(a, 1, 1);
  publishWallets(b, 2, 1);
  const ra = replicaOf(a.buffer);
  const rb = replicaOf(b.buffer);
  t.equal(ra?.wallets.length, 1);
  t.equal(rb?.wallets.length, 2);
  t.equal(replicaOf(structuredClone(a.buffer)), ra, 'each decoded once');
  t.equal(replicaOf(structuredClone(b.buffer)), rb);
});

t.test('a snapshot is read with the ledger of the era it names; a new era replaces the replica', async (t) => {
  const s = SharedSnapshot.create(1 << 20);
  publishWallets(s, 2, 1, 8);
  const eight = replicaOf(s.buffer)!;
  t.equal(eight.era, 8);
  t.match(Buffer.from(eight.params.serialize().subarray(0, 40)).toString('latin1'), /^midnight:ledger-parameters\[v5\]/, 'ledger-8 parameters');
  publishWallets(s, 2, 2, 9);
  const nine = replicaOf(s.buffer)!;
  t.equal(nine.era, 9, 'the wallets of the new era');
  t.match(Buffer.from(nine.params.serialize().subarray(0, 40)).toString('latin1'), /^midnight:ledger-parameters\[v8\]/, 'ledger-9 parameters');
  t.equal(nine.wallets.length, 2);
  t.equal((eight.params as unknown as { __wbg_ptr: number }).__wbg_ptr, 0, 'the ledger-8 replica is freed');
});
