/**
 * Clients that leave a sponsorship half-way: while its task waits in the pool's queue, while the
 * worker proves (its DUST spend proof held by the upstream prover), and at random moments of
 * every stage. The process keeps serving, the task is cancelled, the upstream call is dropped,
 * and the DUST reservation is back in the table as soon as the abort is processed — not after
 * the 5-minute reclaim. On each ledger era (SPONSOR_ERAS): one devnet, stub and app per era.
 */
import t from 'tap';
import { call, sponsorApp, type SponsorRig } from './helpers/apps.js';
import { eraOverrides, SPONSOR_ERAS } from '../fixtures/dust/sponsor-app.js';
import { fundedUser, type FundedUser } from './helpers/users.js';
import { ProofServerStub } from './helpers/proof-server-stub.js';
import type { LogLine } from './helpers/logs.js';
import { spyOnPool } from './helpers/pool-spy.js';

// Both eras, each with its own devnet funding two dozen UTXOs: more than tap's 120 s on a loaded machine.
t.setTimeout(240_000);

/** The table's live reservations, each as slot:generation. */
function reservedSlots(rig: SponsorRig): Set<string> {
  const out = new Set<string>();
  for (let slot = 0; slot < rig.table.snapshot().slotsInUse; slot++) {
    const e = rig.table.slotEntry(slot);
    if (e?.state === 'reserved') out.add(`${slot}:${e.generation}`);
  }
  return out;
}

const isAccess =
  (status: number) =>
  (l: LogLine): boolean =>
    l['msg'] === 'request' && l['status'] === status;

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}`, async (t) => {
    const stub = await ProofServerStub.start();
    t.teardown(() => stub.stop());
    const rig: SponsorRig = await sponsorApp(t, {
      proverUrl: stub.url,
      logLevel: 'debug',
      overrides: eraOverrides(era, { prover: { threads: 1, queueSize: 8 } }),
    });
    t.equal(rig.service.eraOf('preview'), era, `the wallets are synced in ledger ${era}`);
    const user: FundedUser = await fundedUser(rig.devnet, 71, era);
    let nextAmount = 0;
    const body = (): Uint8Array => user.transfer(nextAmount++).serialize();

    const spy = spyOnPool(rig.pool);

    await t.test('abort while the worker proves: upstream call dropped, reservation released at once, next request served', async (t) => {
      stub.mode = 'hold';
      const client = new AbortController();
      const pending = rig.post('/prove-and-balance', body(), { signal: client.signal });
      await stub.next('held', '/prove');
      t.equal(rig.table.counts().reserved, 1, 'the worker holds one DUST UTXO while its proof is computed');

      const abandoned = stub.next('abandoned', '/prove');
      const logged = rig.logs.next(isAccess(499));
      client.abort();
      await t.rejects(pending);
      await logged;
      // The task ends as soon as the abort is processed (not after the grace period, nor the
      // 5-minute reclaim): its own failure path, or the main thread, gives the UTXO back.
      await spy.idle();
      t.equal(rig.table.counts().reserved, 0, 'released as the abort was processed');
      // The proving port answers the worker's cancelled proof call, so the task ends at once and
      // keeps its thread; it used to wait out the grace period for an answer that never came.
      t.match(rig.pool.health(), { abandoned: { finished: 1, cutShort: 0 } }, 'the task ended within the grace period: its thread is kept');
      await abandoned;
      t.pass('the upstream proof request was cancelled');
      t.match(rig.pool.health(), { crashed: 0 }, 'a cancelled task is not a crash');

      stub.mode = 'ok';
      const ok = await rig.post('/prove-and-balance', body());
      t.equal(ok.status, 200, `then a sponsorship succeeds (${ok.text.slice(0, 120)})`);
      t.equal(rig.table.counts().reserved, 1, 'holding exactly its own reservation');
    });

    await t.test('abort while queued: the task leaves the queue without ever reserving', async (t) => {
      stub.mode = 'hold';
      const reservedBefore = rig.table.counts().reserved;
      const first = new AbortController();
      const running = rig.post('/prove-and-balance', body(), { signal: first.signal });
      await stub.next('held', '/prove');
      const second = new AbortController();
      const queuedEvent = spy.nextQueued();
      const queued = rig.post('/prove-and-balance', body(), { signal: second.signal });
      await queuedEvent;
      t.equal(rig.pool.health().queueSize, 1, 'the second task waits for the only thread');

      const gone = rig.logs.next(isAccess(499));
      second.abort();
      await t.rejects(queued);
      await gone;
      t.equal(rig.pool.health().queueSize, 0, 'removed from the queue when its client left');
      t.equal(rig.table.counts().reserved, reservedBefore + 1, 'it never reserved; the running task still holds its own');

      first.abort();
      await t.rejects(running);
      await spy.idle();
      t.equal(rig.table.counts().reserved, reservedBefore, 'and the running one released its UTXO');
      stub.mode = 'ok';
    });

    await t.test('random disconnects at every stage leak no reservation and never stop the server', async (t) => {
      stub.mode = 'ok';
      const N = 12;
      // Reservations made from here on: an earlier subtest's answer is never submitted and may expire
      // and be released meanwhile (its fee intent lives 20 s of the devnet's real-time chain).
      const before = reservedSlots(rig);
      const madeSince = (): number => [...reservedSlots(rig)].filter((r) => !before.has(r)).length;
      // Deterministic "random" delays: a different stage for each request (upload, queue, proving, answer).
      const delays = Array.from({ length: N }, (_, i) => (i * 7919) % 3000);
      stub.latencyMs = 15;
      const outcomes = await Promise.all(
        delays.map(async (ms) => {
          const client = new AbortController();
          const timer = setTimeout(() => client.abort(), ms);
          try {
            const r = await rig.post('/prove-and-balance', body(), { signal: client.signal });
            return r.status;
          } catch {
            return 'aborted';
          } finally {
            clearTimeout(timer);
          }
        }),
      );
      // A last exchange on a new connection: the server has read every earlier client's close by then.
      t.equal((await call(`${rig.s.url}/health`)).status, 200, 'the server answers after the disconnects');
      await rig.s.app.server.drained();
      await spy.idle();
      stub.latencyMs = 0;
      const ok = outcomes.filter((o) => o === 200).length;
      t.ok(
        outcomes.every((o) => o === 200 || o === 'aborted' || o === 503),
        `only answers or aborts: ${JSON.stringify(outcomes)}`,
      );
      t.equal(madeSince(), ok, `one reservation per answered sponsorship (${ok} of ${N}), none left by an aborted one`);

      const after = await rig.post('/prove-and-balance', body());
      t.equal(after.status, 200, 'the server still sponsors');
      t.match(rig.pool.health(), { crashed: 0, queueSize: 0 });
      // Closing ends every worker thread: anything a terminated thread could still have written is written.
      await rig.s.close();
      t.equal(madeSince(), ok + 1, 'no reservation appeared after the threads ended');
    });
  });
