/**
 * A worker thread that ends between `table.reserve` and recording the slot in the in-flight
 * registry leaves a reservation the main thread cannot see there. Each task gets a deadline no
 * other task has, and the service releases whatever is still reserved under it when the task ends
 * without an answer — at once, and again a little later for a task whose client left (its thread
 * may still be running when the pool gives up on it).
 */
import t from 'tap';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { GatewayError } from '../../../../src/core/errors.js';
import { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';
import type { BalanceArgs } from '../../../../src/features/sponsorship/common/balance-task.js';
import { MemoryBudgetStore, SponsorshipPolicy } from '../../../../src/features/sponsorship/admission/budget.js';
import { SharedSnapshot } from '../../../../src/features/sponsorship/allocator/shared-snapshot.js';
import { SponsorshipService } from '../../../../src/features/sponsorship/sponsorship.js';
import type { DustSyncHost } from '../../../../src/features/sponsorship/wallets/sync-host.js';
import type { AuthenticatedKey } from '../../../../src/core/guards/auth.js';
import type { ProverBackend } from '../../../../src/infra/prover/backend.js';
import type { WorkerPoolComponent } from '../../../../src/infra/pool/worker-pool.js';
import { captureLogs } from '../../../helpers/app.js';

const KEY: AuthenticatedKey = { id: 'k1', source: 'env' };
const TTL = 300_000;

/** Each call of the fake pool: what the "worker" does with the table before its thread "ends". */
type Behaviour = (table: DustAllocatorTable, args: BalanceArgs, signal: AbortSignal) => Promise<never>;

function rig(behaviour: Behaviour) {
  const clock = new ManualClock(1_000_000);
  const table = DustAllocatorTable.create(16);
  for (let i = 0; i < 4; i++) table.add({ walletIndex: 0, key: BigInt(i), value: 10n ** 9n });
  const deadlines: number[] = [];
  const pool = {
    run: (_task: string, payload: { args: BalanceArgs }, opts: { signal: AbortSignal }) => {
      deadlines.push(payload.args.sponsor.reclaimAt!);
      return behaviour(table, payload.args, opts.signal);
    },
  } as unknown as WorkerPoolComponent;
  const sync = {
    isSynced: () => true,
    onStatus: () => () => undefined,
    status: () => ({ phase: 'synced', era: 9, eraSwitches: 0 }),
    failure: () => undefined,
  } as unknown as DustSyncHost;
  const logs = captureLogs('debug');
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
        blockTimeMs: 6_000,
      },
    ],
    pool,
    sync,
    clock,
    logger: logs.logger,
    policy: new SponsorshipPolicy({ maxFee: 10n ** 18n, budget: 10n ** 20n, windowMs: 3_600_000 }, new MemoryBudgetStore()),
    margin: 3,
    reservationTtlMs: TTL,
    ttlSafetyMs: 60_000,
    dedupeWindowMs: 300_000,
    maxInFlight: 8,
    feeTtlMs: 60_000,
    maxReservationsPerKey: 8,
  });
  t.teardown(() => service.close());
  return { clock, table, service, deadlines, logs };
}

/** The worker reserved under its task's deadline, and its thread ended before it recorded the slot. */
const endsAfterReserving: Behaviour = async (table, args) => {
  table.reserve(1n, args.sponsor.reclaimAt!);
  throw new GatewayError('WORKER_CRASHED');
};

t.test('a reservation its task never recorded is released when the task ends', async (t) => {
  const r = rig(endsAfterReserving);
  await t.rejects(r.service.sponsor('balance-only', 'preview', KEY, Buffer.from([1]), new AbortController().signal), { code: 'WORKER_CRASHED' });
  t.equal(r.table.counts().reserved, 0, 'released at once, not left to the 5-minute reclaim');
  t.match(
    r.logs.lines.find((l) => String(l['msg']).startsWith('released a DUST reservation its task never recorded')),
    { network: 'preview', released: 1, deadline: r.deadlines[0] },
  );
});

t.test('every task gets its own deadline, at or after now + TTL', async (t) => {
  const r = rig(async () => {
    throw new GatewayError('INVALID_BODY');
  });
  for (let i = 0; i < 3; i++) {
    await t.rejects(r.service.sponsor('balance-only', 'preview', KEY, Buffer.from([i]), new AbortController().signal), { code: 'INVALID_BODY' });
  }
  r.clock.advance(5);
  await t.rejects(r.service.sponsor('balance-only', 'preview', KEY, Buffer.from([9]), new AbortController().signal));
  t.same(r.deadlines, [1_000_000 + TTL, 1_000_000 + TTL + 1, 1_000_000 + TTL + 2, 1_000_000 + TTL + 5], 'same millisecond: the next one; later: now + TTL');
});

t.test("another task's reservation is not touched", async (t) => {
  let calls = 0;
  const r = rig(async (table, args) => {
    // The first task answers nothing and reserves nothing; a reservation of another task (another
    // deadline) stands in the table meanwhile.
    if (calls++ === 0) table.reserve(1n, args.sponsor.reclaimAt! + 10_000);
    throw new GatewayError('INVALID_BODY');
  });
  await t.rejects(r.service.sponsor('balance-only', 'preview', KEY, Buffer.from([1]), new AbortController().signal));
  t.equal(r.table.counts().reserved, 1, 'still reserved');
});

t.test('a task whose client left: looked for again once its thread has surely ended', async (t) => {
  let late: (() => void) | undefined;
  let running: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (running = resolve));
  const r = rig(
    (table, args, signal) =>
      new Promise<never>((_resolve, reject) => {
        // The pool gives up on the task when the client leaves; the thread, not yet stopped,
        // still reserves afterwards.
        signal.addEventListener('abort', () => {
          late = () => void table.reserve(1n, args.sponsor.reclaimAt!);
          reject(new GatewayError('CLIENT_ABORTED'));
        });
        running();
      }),
  );
  const client = new AbortController();
  const pending = r.service.sponsor('balance-only', 'preview', KEY, Buffer.from([1]), client.signal);
  await started;
  client.abort(new GatewayError('CLIENT_ABORTED'));
  await t.rejects(pending, { code: 'CLIENT_ABORTED' });
  // The service's own bookkeeping runs when the task's promise settles.
  await new Promise((resolve) => setImmediate(resolve));
  late!();
  t.equal(r.table.counts().reserved, 1, 'the late reservation stands for now');
  r.clock.advance(1_999);
  r.service.reclaimDue();
  t.equal(r.table.counts().reserved, 1, 'not before the recheck');
  r.clock.advance(1_100);
  r.service.reclaimDue();
  t.equal(r.table.counts().reserved, 0, 'released by the recheck, minutes before its deadline');
});
