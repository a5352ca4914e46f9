/**
 * The DUST sync across a switch from ledger 8 to 9, block by block (the devnet in manual mode):
 * the switch seen first on the tip's parameters (before any DUST event of the new era), then on
 * the new era's events; a sponsorship of the old era caught in between; and a sync started after
 * the switch. The tip's parameters are read through a proxy the test can make answer ledger 9's
 * while the chain's events are still of ledger 8 (the window a chain leaves when the first blocks
 * of an era carry no DUST event). Then the main thread's side, with a scripted sync: what a
 * request gets while the wallets switch. Waits are on sync statuses; nothing sleeps.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { request } from 'undici';
import { DustAllocatorTable } from '../../src/features/sponsorship/allocator/allocator.js';
import { SharedSnapshot } from '../../src/features/sponsorship/allocator/shared-snapshot.js';
import { NetworkDustSync, type SyncStatus } from '../../src/features/sponsorship/wallets/wallet-sync.js';
import { SponsorshipService } from '../../src/features/sponsorship/sponsorship.js';
import { MemoryBudgetStore, SponsorshipPolicy } from '../../src/features/sponsorship/admission/budget.js';
import { expectEra } from '../../src/features/sponsorship/common/transaction-tag.js';
import type { BalanceArgs } from '../../src/features/sponsorship/common/balance-task.js';
import type { DustSyncHost } from '../../src/features/sponsorship/wallets/sync-host.js';
import type { WorkerPoolComponent } from '../../src/infra/pool/worker-pool.js';
import type { ProverBackend } from '../../src/infra/prover/backend.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { captureLogs } from '../helpers/app.js';
import { SPONSOR_DUST_UTXOS } from '../../packages/devnet/src/genesis.js';
import { ledger, NetworkEras, type Era } from '../../src/infra/ledger/index.js';
import { sponsor, type SponsorArgs } from '../../src/features/sponsorship/worker/sponsor.js';
import { devProvingProvider } from '../../src/infra/prover/worker/providers.js';
import { startNetwork, SPONSOR_SEEDS, SPONSOR_WALLETS, type Harness } from '../fixtures/devnet/harness.js';
import { freshUser, fund, unprovenTransfer } from '../fixtures/dust/user-tx.js';

/** The first ledger-9 block; the devnet starts at height 3. */
const SWITCH_AT = 6;
/** What the server wallets hold in each era after the devnet's setup blocks. */
const POOL = SPONSOR_DUST_UTXOS * SPONSOR_SEEDS.length;

interface Rig {
  table: DustAllocatorTable;
  snapshot: SharedSnapshot;
  last(): SyncStatus;
  /** Resolves at the first status (now or later) for which `done` holds. */
  until(done: (s: SyncStatus) => boolean): Promise<SyncStatus>;
}

function startSync(t: Test, graphqlUrl: string, graphqlWsUrl: string): Rig {
  const table = DustAllocatorTable.create(512);
  const snapshot = SharedSnapshot.create(8 * 1024 * 1024);
  let last: SyncStatus | undefined;
  const waiters: Array<{ done: (s: SyncStatus) => boolean; resolve: (s: SyncStatus) => void }> = [];
  const sync = new NetworkDustSync(
    {
      network: 'preview',
      graphqlUrl,
      graphqlWsUrl,
      seeds: SPONSOR_WALLETS,
      table: table.buffer,
      snapshot: snapshot.buffer,
      timeoutMs: 5000,
      spentRetentionMs: 600_000,
      paramsRefreshMs: 50,
      reconnectMinMs: 50,
      reconnectMaxMs: 500,
      blockTimeMs: 6_000,
    },
    (s) => {
      last = s;
      for (const w of [...waiters])
        if (w.done(s)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(s);
        }
    },
  );
  t.teardown(() => sync.close());
  void sync.start();
  return {
    table,
    snapshot,
    last: () => last!,
    until: (done) => (last && done(last) ? Promise.resolve(last) : new Promise((resolve) => waiters.push({ done, resolve }))),
  };
}

/** The devnet's GraphQL over HTTP, except the tip's ledger parameters while `override` is set. */
async function paramsProxy(t: Test, h: Harness): Promise<{ url: string; override: { block: Record<string, unknown> } | undefined }> {
  const state: { url: string; override: { block: Record<string, unknown> } | undefined } = { url: '', override: undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const answer = (status: number, text: string): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      if (state.override && body.includes('NightgateLedgerParameters')) return answer(200, JSON.stringify({ data: state.override }));
      request(h.info.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        async (r) => answer(r.statusCode, await r.body.text()),
        (err: Error) => answer(502, JSON.stringify({ errors: [{ message: err.message }] })),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4/graphql`;
  return state;
}

const args = (era: Era, over: Partial<SponsorArgs> = {}): SponsorArgs => ({
  kind: 'prove-and-balance',
  era,
  networkId: 'undeployed',
  seeds: SPONSOR_WALLETS,
  margin: 1,
  maxFee: (10n ** 18n).toString(),
  budgetLeft: (10n ** 19n).toString(),
  now: Date.now(),
  reservationTtlMs: 300_000,
  ttlSafetyMs: 60_000,
  blockTimeMs: 6_000,
  feeTtlMs: 60_000,
  ...over,
});

async function submit(h: Harness, bytes: Uint8Array): Promise<number> {
  const res = await request(h.info.submitUrl, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
  await res.body.dump();
  return res.statusCode;
}

t.test("the DUST sync across a switch: first seen on the tip, then on the new era's events; a sync started after it", async (t) => {
  const h = await startNetwork({ ledger: 8, ledger9AtHeight: SWITCH_AT });
  t.teardown(() => h.close());
  const proxy = await paramsProxy(t, h);
  const r = startSync(t, proxy.url, h.info.graphqlWsUrl);
  await r.until((s) => s.phase === 'synced');
  t.equal(r.last().era, 8, 'synced on ledger 8');
  t.equal(r.snapshot.era, 8, 'and says so to the workers');
  const oldSlots = r.table.counts().total;
  t.equal(oldSlots, POOL, `${oldSlots} ledger-8 DUST UTXOs`);

  // A ledger-8 answer held over the switch, and a ledger-8 transfer built but not yet sponsored.
  const alice = freshUser(71, 8);
  const bob = freshUser(72, 8);
  await fund(h, alice, 50_000_000n);
  await fund(h, bob, 50_000_000n);
  await r.until((s) => s.phase === 'synced' && s.eventId >= s.maxId);
  const held = await sponsor(
    (await unprovenTransfer(h, alice, alice.address, 1_000_000n)).serialize(),
    args(8),
    r.table.buffer,
    r.snapshot.buffer,
    devProvingProvider({}, 8),
  );
  t.equal(r.table.counts().reserved, 1, 'one ledger-8 UTXO reserved for an answer');
  const late = (await unprovenTransfer(h, bob, bob.address, 1_000_000n)).serialize();

  // The tip says ledger 9 before any DUST event of it: the sync switches on the tip.
  const L9 = ledger(9);
  const params9 = L9.LedgerParameters.initialParameters();
  proxy.override = {
    block: {
      height: h.network.height + 1,
      timestamp: Date.now(),
      protocolVersion: 2_001_000,
      ledgerParameters: Buffer.from(params9.serialize()).toString('hex'),
    },
  };
  const switched = await r.until((s) => s.era === 9);
  t.equal(switched.phase, 'syncing', 'on the tip: ledger 9, syncing until its first DUST event');
  t.equal(switched.eraSwitches, 1, 'one switch');
  t.equal(r.snapshot.era, 9, 'announced to the workers');
  t.strictSame(r.table.counts(), { free: 0, reserved: 0, spent: oldSlots, total: oldSlots }, 'every ledger-8 UTXO is SPENT, the reserved one too');
  t.equal(r.table.release({ slot: held.slot, generation: held.generation }), false, "the ledger-8 answer's reservation cannot go back to the pool");
  await t.rejects(
    sponsor(late, args(8), r.table.buffer, r.snapshot.buffer, devProvingProvider({}, 8)),
    { code: 'LEDGER_ERA_CHANGED', status: 409 },
    'a ledger-8 task sent before the main thread knew: 409',
  );
  t.equal(r.table.counts().reserved, 0, 'nothing reserved');

  // The devnet switches: its first ledger-9 blocks register the server wallets again.
  while (h.network.height < SWITCH_AT) await h.network.produceBlock();
  const synced = await r.until((s) => s.era === 9 && s.phase === 'synced');
  proxy.override = undefined;
  t.equal(synced.eraSwitches, 1, 'still one switch: the events of ledger 9 found the wallets in it');
  t.strictSame(r.table.counts(), { free: POOL, reserved: 0, spent: oldSlots, total: oldSlots + POOL }, 'the ledger-9 UTXOs are free, the ledger-8 ones SPENT');
  t.equal(await submit(h, held.tx), 400, 'the devnet refuses the ledger-8 answer now');

  // Sponsorship works on ledger 9 and lands.
  const carol = freshUser(73, 9);
  await fund(h, carol, 50_000_000n);
  await r.until((s) => s.phase === 'synced' && s.eventId >= s.maxId);
  const res = await sponsor(
    (await unprovenTransfer(h, carol, carol.address, 1_000_000n)).serialize(),
    args(9),
    r.table.buffer,
    r.snapshot.buffer,
    devProvingProvider({}, 9),
  );
  t.equal(await submit(h, res.tx), 202, 'a ledger-9 answer is taken');
  const before = r.last().eventId;
  await h.network.produceBlock();
  await r.until((s) => s.phase === 'synced' && s.eventId > before);
  t.equal(r.table.slotEntry(res.slot)?.state, 'spent', 'and its DUST UTXO is SPENT once it lands');

  // A sync started on the switched chain begins in ledger 9 and skips ledger 8's events.
  const fresh = startSync(t, h.info.graphqlUrl, h.info.graphqlWsUrl);
  const first = await fresh.until((s) => s.phase === 'synced');
  t.strictSame([first.era, first.eraSwitches, fresh.snapshot.era], [9, 0, 9], 'a fresh sync: ledger 9, no switch of its own');
  // The table follows each batch of events the replay gets: when the indexer's events arrive in
  // more than one batch, the UTXO the ledger-9 answer spent is held for a batch, then SPENT.
  const counts = fresh.table.counts();
  t.strictSame([counts.free, counts.reserved], [POOL, 0], 'and only the ledger-9 UTXOs free now');
  t.ok(counts.spent <= 1 && counts.total === POOL + counts.spent, `no ledger-8 UTXO held (SPENT: ${counts.spent}, the ledger-9 answer's at most)`);
});

t.test(
  'the main thread while the wallets switch era: refuse the old era at once, hold the new one for the wallets, answer nothing twice across eras',
  async (t) => {
    const clock = new ManualClock(1_000_000);
    const table = DustAllocatorTable.create(16);
    for (let i = 0; i < 4; i++) table.add({ walletIndex: 0, key: BigInt(i), value: 10n ** 9n });
    const status = (era: Era, phase: SyncStatus['phase'], eraSwitches: number): SyncStatus => ({
      network: 'preview',
      phase,
      era,
      eraSwitches,
      eventId: 10,
      maxId: 10,
      balance: '0',
      wallets: [],
      fees: undefined,
      lastError: undefined,
      updatedAt: 0,
    });
    let current = status(8, 'synced', 0);
    const listeners = new Set<(s: SyncStatus) => void>();
    const emit = (s: SyncStatus): void => {
      current = s;
      for (const l of [...listeners]) l(s);
    };
    const sync = {
      isSynced: () => current.phase === 'synced',
      onStatus: (l: (s: SyncStatus) => void) => (listeners.add(l), () => listeners.delete(l)),
      status: () => current,
      failure: () => undefined,
    } as unknown as DustSyncHost;
    // The worker as far as eras go: the body's era against the task's, then a reservation.
    const tasks: Era[] = [];
    const pool = {
      run: async (_task: string, payload: { args: BalanceArgs; data: Uint8Array }) => {
        tasks.push(payload.args.sponsor.era);
        expectEra(payload.data, payload.args.sponsor.era);
        const r = table.reserve(1n, payload.args.sponsor.reclaimAt!)!;
        return {
          tx: new Uint8Array([1]),
          txHash: 'ab'.repeat(32),
          identifiers: [],
          fee: '1',
          walletIndex: 0,
          slot: r.slot,
          generation: r.generation,
          expiresAt: clock.now() + 60_000,
          reclaimAt: r.deadline,
        };
      },
    } as unknown as WorkerPoolComponent;
    const service = new SponsorshipService({
      networks: [
        {
          name: 'preview',
          networkId: 'undeployed',
          seeds: ['00'.repeat(64)],
          table,
          snapshot: SharedSnapshot.create(65_536),
          prover: { backend: 'dev', keyDir: '' },
          backend: {} as ProverBackend,
          blockTimeMs: 3_000,
        },
      ],
      pool,
      sync,
      clock,
      logger: captureLogs().logger,
      policy: new SponsorshipPolicy({ maxFee: 10n ** 18n, budget: 10n ** 20n, windowMs: 3_600_000 }, new MemoryBudgetStore()),
      margin: 1,
      reservationTtlMs: 300_000,
      ttlSafetyMs: 60_000,
      dedupeWindowMs: 300_000,
      maxInFlight: 8,
      feeTtlMs: 20_000,
      maxReservationsPerKey: 8,
    });
    t.teardown(() => service.close());
    const key = { id: 'k1', source: 'env' } as const;
    const body8 = Buffer.from('midnight:transaction[v9](signature[v1],proof-preimage,embedded-fr[v1]):');
    const body9 = Buffer.from('midnight:transaction[v12](signature[v2],proof-preimage,embedded-fr[v1]):');
    const ask = (body: Buffer) => service.sponsor('prove-and-balance', 'preview', key, body, new AbortController().signal);

    t.equal((await ask(body8)).deduplicated, false, 'ledger 8: answered');
    t.equal((await ask(body8)).deduplicated, true, 'the same bytes again: the same answer');

    // The sync switched to ledger 9 and is reading its first events and parameters.
    emit(status(9, 'syncing', 1));
    await t.rejects(ask(body8), { code: 'LEDGER_ERA_MISMATCH', status: 400 }, 'a ledger-8 body: 400 at once, no task');
    t.strictSame(tasks, [8], 'no task was started for it');
    let held: Awaited<ReturnType<typeof ask>> | undefined;
    const waiting = ask(body9).then((a) => (held = a));
    await new Promise((resolve) => setImmediate(resolve));
    t.equal(held, undefined, 'a ledger-9 body waits for the wallets');
    emit(status(9, 'synced', 1));
    await waiting;
    t.equal(held?.deduplicated, false, 'and is answered once they are synced');
    t.strictSame(tasks, [8, 9], 'by a task of ledger 9');
    await t.rejects(ask(body8), { code: 'LEDGER_ERA_MISMATCH' }, 'the ledger-8 bytes answered before the switch are not answered from the dedupe cache now');

    // Waiting is bounded: two blocks, then 503 as for any sync.
    emit(status(9, 'syncing', 2));
    const bounded = ask(Buffer.concat([body9, Buffer.from([1])]));
    clock.advance(2 * 3_000 + 1_000);
    service.reclaimDue();
    await t.rejects(bounded, { code: 'WALLET_SYNCING', status: 503 }, 'not synced within two blocks: 503');
  },
);

t.test('the era registry follows a switch forward and does not flap back', async (t) => {
  const eras = new NetworkEras([['preview', 9]]);
  const changes: string[] = [];
  eras.on('change', (c) => changes.push(`${c.from}→${c.to}`));
  eras.set('preview', 8);
  t.equal(eras.of('preview'), 8, 'the configured guess gives way to the chain');
  eras.set('preview', 9);
  eras.set('preview', 8);
  t.equal(eras.of('preview'), 9, 'a reader still behind the switch does not move it back');
  t.strictSame(changes, ['9→8', '8→9']);
});
