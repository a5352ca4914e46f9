/**
 * Shutdown while sponsorships are in flight (two proving through a stalled upstream prover, one
 * waiting in the pool's queue) and the drain deadline passes: every client gets 503
 * SHUTTING_DOWN with a reason, and every DUST reservation those tasks held is back in the table
 * when close() resolves. (The process entry under proving load: shutdown-under-load.test.ts.)
 */
import t from 'tap';
import { sponsorApp } from './helpers/apps.js';
import { fundedUser } from './helpers/users.js';
import { ProofServerStub } from './helpers/proof-server-stub.js';
import { spyOnPool } from './helpers/pool-spy.js';

const DEADLINE_MS = 1_000;

t.test('past the drain deadline: in-flight and queued sponsorships end with 503 and release their UTXOs', async (t) => {
  const stub = await ProofServerStub.start();
  t.teardown(() => stub.stop());
  stub.mode = 'hold';
  const rig = await sponsorApp(t, { proverUrl: stub.url, overrides: { prover: { threads: 2, queueSize: 8 }, server: { shutdownTimeoutMs: DEADLINE_MS } } });
  const spy = spyOnPool(rig.pool);
  const user = await fundedUser(rig.devnet, 111);

  const twoHeld = stub.times('held', 2);
  const running = [0, 1].map((i) => rig.post('/prove-and-balance', user.transfer(i).serialize()));
  await twoHeld;
  const queued = spy.nextQueued();
  const waiting = rig.post('/prove-and-balance', user.transfer(2).serialize());
  await queued;
  t.equal(rig.table.counts().reserved, 2, 'two reservations held by the tasks proving');
  t.equal(rig.pool.health().queueSize, 1, 'one task waiting');

  const started = performance.now();
  await rig.s.app.close();
  const took = performance.now() - started;
  const answers = await Promise.all([...running, waiting]);
  for (const a of answers) {
    t.equal(a.status, 503);
    t.same(a.json, { error: 'Server shut down before the request finished', code: 'SHUTTING_DOWN' }, 'with a reason');
  }
  t.equal(rig.table.counts().reserved, 0, 'every reservation released by the time close() resolved');
  t.ok(took >= DEADLINE_MS && took < DEADLINE_MS + 5_000, `close took ${Math.round(took)} ms: the deadline, then the components`);
  t.equal(rig.s.app.server.inFlight, 0);
});
