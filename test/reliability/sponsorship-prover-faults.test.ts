/**
 * The upstream proof server failing in every way while a sponsorship proves through it (the
 * worker reaches it over the proving port): each fault gets the status the sponsorship routes
 * document — with Retry-After on the 503s, carried across both thread boundaries — the DUST
 * reservation is back before the client has its answer, and the next sponsorship succeeds. On each
 * ledger era (SPONSOR_ERAS).
 */
import t from 'tap';
import { sponsorApp } from './helpers/apps.js';
import { eraOverrides, SPONSOR_ERAS } from '../fixtures/dust/sponsor-app.js';
import { fundedUser } from './helpers/users.js';
import { ProofServerStub, STUB_FAULTS, type StubMode } from './helpers/proof-server-stub.js';

// Both eras, each with its own devnet funding two dozen UTXOs: more than tap's 120 s on a loaded machine.
t.setTimeout(240_000);

const TIMEOUT_MS = 1_500;
/**
 * Nothing here is submitted, so each answer's reservation would be released once its fee intent
 * expires unlanded, changing the reserved count the faults are checked against: not before the
 * reclaim, here.
 */
const UNTIL_RECLAIM_MS = 300_000;

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: every upstream fault during a sponsorship: documented status, reservation released, recovery`, async (t) => {
    const stub = await ProofServerStub.start();
    t.teardown(() => stub.stop());
    const rig = await sponsorApp(t, {
      proverUrl: stub.url,
      overrides: eraOverrides(era, { prover: { threads: 1, timeoutMs: TIMEOUT_MS }, dust: { expiryMarginMs: UNTIL_RECLAIM_MS } }),
    });
    t.equal(rig.service.eraOf('preview'), era, `the wallets are synced in ledger ${era}`);
    const user = await fundedUser(rig.devnet, 121, era);
    let n = 0;
    const sponsor = () => rig.post('/prove-and-balance', user.transfer(n++).serialize());
    const ok = async (what: string): Promise<void> => {
      stub.mode = 'ok';
      const before = rig.table.counts().reserved;
      const r = await sponsor();
      t.equal(r.status, 200, `${what}: sponsored again`);
      t.equal(rig.table.counts().reserved, before + 1);
    };
    await ok('at start');

    const faults: Array<readonly [StubMode | 'down' | 'slow', number, string, string | undefined]> = [
      ...STUB_FAULTS,
      ['down', 502, 'PROVER_UNREACHABLE', undefined],
      ['slow', 504, 'PROVER_TIMEOUT', undefined],
    ];
    for (const [mode, status, code, retryAfter] of faults) {
      const reserved = rig.table.counts().reserved;
      if (mode === 'down') await stub.stop();
      else if (mode === 'slow') stub.latencyMs = 2 * TIMEOUT_MS;
      else stub.mode = mode;
      const r = await sponsor();
      t.equal(r.status, status, `${mode} → ${status}`);
      t.equal(r.json?.['code'], code, `${mode} → ${code}`);
      t.ok(String(r.json?.['message'] ?? '').length > 10, `${mode}: with a reason`);
      t.equal(r.headers['retry-after'], retryAfter, `${mode}: Retry-After ${retryAfter ?? 'absent'}`);
      t.equal(rig.table.counts().reserved, reserved, `${mode}: the reservation was released before the answer`);
      if (mode === 'down') await stub.restart();
      stub.latencyMs = 0;
      await ok(`after ${mode}`);
    }
    t.match(rig.pool.health(), { crashed: 0 });
    t.notOk(
      rig.logs.lines.some((l) => l['msg'] === 'unhandled error'),
      'no unhandled error',
    );
  });
