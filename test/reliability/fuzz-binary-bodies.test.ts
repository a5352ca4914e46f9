/**
 * Random bytes and mutated real bodies into every binary route — /prove, /verify, /k,
 * /prove-and-balance, /balance-only — time-boxed with fast-check. Every answer is a 400 naming
 * what is wrong (or, for a mutation that still makes sense, a well-formed 200); nothing crashes
 * a worker, no DUST reservation is left behind by a refusal, and valid requests afterwards are
 * served. (The wire walker alone: test/unit/prover/wire.test.ts.)
 */
import fc from 'fast-check';
import t from 'tap';
import * as L from '@midnight-ntwrk/ledger-v8';
import { Value } from '@sinclair/typebox/value';
import { ManualClock } from '../../src/clock.js';
import { SponsoredSchema } from '../../src/dust/routes.js';
import { ERRORS, type ErrorCode } from '../../src/errors.js';
import { TAG } from '../../src/prover/wire.js';
import { devProvingProvider } from '../../workers/lib/providers.js';
import { checkBody, proveBody, midnightFile } from '../fixtures/prover/samples.js';
import { sponsorApp, type Answer } from './helpers/apps.js';
import { fundedUser } from './helpers/users.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { junk, mutated } from './helpers/mutate.js';
import { registerFormats } from './helpers/formats.js';

registerFormats();

/** Codes a body's own fault may get: each a 400 with a reason. */
const BODY_FAULTS = new Set<ErrorCode>(['INVALID_BODY', 'PROVER_REJECTED', 'DEV_PROVER_UNSUPPORTED_CIRCUIT', 'WRONG_TRANSACTION_KIND', 'TRANSACTION_REJECTED']);
const TX_TAG = 'midnight:transaction[v9](signature[v1],proof-preimage,embedded-fr[v1]):';
const PROVEN_TAG = 'midnight:transaction[v9](signature[v1],proof,pedersen-schnorr[v1]):';
const TIME_BOX_MS = 5_000;

const clock = new ManualClock(Date.now());
const rig = await sponsorApp(t, { clock, overrides: { prover: { threads: 2, queueSize: 64 } } });
const user = await fundedUser(rig.devnet, 91);
let n = 0;
const unproven = user.transfer(n++).serialize();
const proven = (await user.transfer(n++).prove(devProvingProvider({}), L.CostModel.initialCostModel())).bind().serialize();
const samples = { '/prove': proveBody(), '/verify': checkBody(), '/k': midnightFile('zk/zswap_output.bzkir'), '/prove-and-balance': unproven, '/balance-only': proven };
const tags = [...Object.values(TAG), TX_TAG, PROVEN_TAG];
const seen = new Map<string, Map<string, number>>();

/** Sponsorships that still made sense hold their UTXO for 5 minutes: give them back so the fuzzer never runs dry. */
function reclaimIfLow(): void {
  if (rig.table.counts().free > 20) return;
  clock.advance(301_000);
  rig.service.reclaimDue();
}

function judge(path: string, r: Answer): void {
  const tally = seen.get(path) ?? new Map<string, number>();
  seen.set(path, tally);
  const key = r.status === 200 ? '200' : `${r.status} ${String(r.json?.['code'])}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
  if (r.status === 200) {
    if (path === '/prove-and-balance' || path === '/balance-only') {
      if (!Value.Check(SponsoredSchema, r.json)) throw new Error(`${path}: a 200 that does not match its schema: ${r.text.slice(0, 200)}`);
    } else if (path === '/prove' && !r.text.startsWith(TAG.proof)) throw new Error(`/prove: a 200 that is not a proof`);
    return;
  }
  const code = r.json?.['code'] as ErrorCode | undefined;
  const reason = r.json?.['message'];
  if (r.status !== 400 || code === undefined || !BODY_FAULTS.has(code)) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 300)}`);
  if (ERRORS[code].status !== 400) throw new Error(`${path}: ${code} with status ${r.status}`);
  if (typeof reason !== 'string' || reason.length < 10) throw new Error(`${path}: no reason given: ${r.text}`);
}

for (const [path, sample] of Object.entries(samples)) {
  t.test(`${path}: random and mutated bodies get 400 with a reason`, async (t) => {
    // One valid request first: the first /verify or /k loads zkir-v2 in each thread, which is not what the time box is for.
    t.equal((await rig.post(path, path === '/prove-and-balance' ? user.transfer(n++).serialize() : sample)).status, 200, `${path}: a valid body is served`);
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 1, arbitrary: junk(tags) }, { weight: 3, arbitrary: mutated(sample) }), async (body) => {
        reclaimIfLow();
        judge(path, await rig.post(path, body));
      }),
      { numRuns: 400, interruptAfterTimeLimit: TIME_BOX_MS, seed: Number(process.env['FUZZ_SEED'] ?? 0x6e67) + path.length },
    );
    const tally = Object.fromEntries(seen.get(path) ?? []);
    t.ok(Object.values(tally).reduce((a, b) => a + b, 0) >= 20, `${path}: ${JSON.stringify(tally)}`);
  });
}

t.test('found by the fuzzer: a transaction built for another network is a 400 with the ledger\'s reason, not a 500', async (t) => {
  // Give back what the fuzzing sponsored, so the count below can only move because of these requests.
  clock.advance(301_000);
  rig.service.reclaimDue();
  const reserved = rig.table.counts().reserved;
  t.equal(reserved, 0);
  const foreign = transferFrom(user.user, user.utxo, freshUser(99).address, 5_000n, 'preview');
  const unprovenAnswer = await rig.post('/prove-and-balance', foreign.serialize());
  t.equal(unprovenAnswer.status, 400);
  t.equal(unprovenAnswer.json?.['code'], 'TRANSACTION_REJECTED');
  t.match(unprovenAnswer.json?.['message'], /the ledger rejects the transaction: invalid network ID/, 'refused by the check before any reservation');
  const provenForeign = (await foreign.prove(devProvingProvider({}), L.CostModel.initialCostModel())).bind();
  const provenAnswer = await rig.post('/balance-only', provenForeign.serialize());
  t.equal(provenAnswer.status, 400);
  t.equal(provenAnswer.json?.['code'], 'TRANSACTION_REJECTED');
  t.equal(rig.table.counts().reserved, reserved, 'and the refusal holds no DUST UTXO');
});

t.test('afterwards: no worker crashed, no reservation left by a refusal, valid requests served', async (t) => {
  const health = rig.pool.health();
  t.equal(health.crashed, 0, 'no worker crashed');
  t.equal(health.threads, 2, 'both threads up');
  t.equal(health.queueSize, 0);
  clock.advance(301_000);
  rig.service.reclaimDue();
  t.equal(rig.table.counts().reserved, 0, 'every reservation came back (refusals released theirs at once)');
  const p = await rig.post('/prove', proveBody(undefined, 424242n));
  t.equal(p.status, 200, '/prove');
  const s = await rig.post('/prove-and-balance', user.transfer(n++).serialize());
  t.equal(s.status, 200, `/prove-and-balance (${s.text.slice(0, 100)})`);
  t.match(rig.s.app.health(), { status: 'ok' });
  t.notOk(rig.logs.lines.some((l) => l['msg'] === 'unhandled error'), 'no unhandled error was logged');
});
