/**
 * Random bytes and mutated real bodies into every binary route — /prove, /verify, /k,
 * /prove-and-balance, /balance-only — time-boxed with fast-check. Every answer is a 400 naming
 * what is wrong (or, for a mutation that still makes sense, a well-formed 200, or a 409
 * INPUT_HELD with a reason and Retry-After when it is another spend of an input a sponsored
 * mutation already holds); nothing crashes a worker, no DUST reservation is left behind by a
 * refusal, and valid requests afterwards are served. Each sample and each valid request spends
 * its own UTXO, so none of them is held by another. (The wire walker alone: test/unit/features/proving/wire.test.ts.)
 *
 * The sponsorship routes are fuzzed on each ledger era (SPONSOR_ERAS, one app and devnet per era,
 * one after the other), with that era's transactions and tags; the proof-server routes, whose
 * bodies both eras build alike, on the default era's app only. (Bodies of the other era than the
 * network's: test/fuzz/sponsorship-era-mismatch.test.ts.)
 */
import fc from 'fast-check';
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { DEFAULT_ERA, ledger, type Era } from '../../src/infra/ledger/index.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { SponsoredSchema } from '../../src/features/sponsorship/routes.js';
import { ERRORS, type ErrorCode } from '../../src/core/errors.js';
import { TAG } from '../../src/features/proving/wire/wire.js';
import { devProvingProvider } from '../../src/infra/prover/worker/providers.js';
import { checkBody, proveBody, midnightFile } from '../fixtures/prover/samples.js';
import { eraOverrides, SPONSOR_ERAS } from '../fixtures/dust/sponsor-app.js';
import { sponsorApp, type Answer } from './helpers/apps.js';
import { fundedUser } from './helpers/users.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { junk, mutated } from './helpers/mutate.js';
import { registerFormats } from './helpers/formats.js';

registerFormats();

/** Codes a body's own fault may get: each a 400 with a reason. */
const BODY_FAULTS = new Set<ErrorCode>(['INVALID_BODY', 'PROVER_REJECTED', 'DEV_PROVER_UNSUPPORTED_CIRCUIT', 'WRONG_TRANSACTION_KIND', 'TRANSACTION_REJECTED']);
/**
 * The sponsorship routes' one other clean answer: a mutation that still makes sense but is a
 * different spend of an input a sponsored one (the sample, or an earlier mutation) holds.
 */
const SPONSOR_PATHS = new Set(['/prove-and-balance', '/balance-only']);
const HELD: ErrorCode = 'INPUT_HELD';
/** The transaction tags of each era: unproven (what /prove-and-balance takes) and finalized. */
const TX_TAGS: Record<Era, readonly string[]> = {
  8: ['midnight:transaction[v9](signature[v1],proof-preimage,embedded-fr[v1]):', 'midnight:transaction[v9](signature[v1],proof,pedersen-schnorr[v1]):'],
  9: ['midnight:transaction[v12](signature[v2],proof-preimage,embedded-fr[v1]):', 'midnight:transaction[v12](signature[v2],proof,pedersen-schnorr[v1]):'],
};
const TIME_BOX_MS = 5_000;
/** Bodies posted to /k, whatever the time they take. */
const K_RUNS = 30;
/** The era whose app also takes the proof-server routes (they do not depend on the era). */
const PROVER_ERA: Era = SPONSOR_ERAS.includes(DEFAULT_ERA) ? DEFAULT_ERA : SPONSOR_ERAS[0]!;

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}`, async (t) => {
    const L = ledger(era);
    const clock = new ManualClock(Date.now());
    // The fee cap is not under test (a valid body must be served): at 250 ms blocks a fee covers a
    // block of price rise (up to x1.108) per 250 ms its prices are stale, and while the fuzzer keeps
    // both threads and the DUST sync busy on a loaded machine that staleness took a valid ledger-9
    // body's fee to 1e17 SPECK, past the helper's 5e16 cap (FEE_CAP_EXCEEDED, a 403).
    const rig = await sponsorApp(t, {
      clock,
      overrides: eraOverrides(era, { prover: { threads: 2, queueSize: 64 }, dust: { maxFee: (10n ** 19n).toString(), budget: (10n ** 22n).toString() } }),
    });
    t.equal(rig.service.eraOf('preview'), era, `the wallets are synced in ledger ${era}`);
    // A sponsored transaction holds its inputs: each sample and each valid request below spends a UTXO of its own.
    const user = await fundedUser(rig.devnet, 91, era, 5);
    const [unprovenUtxo, provenUtxo, validUtxo, foreignUtxo, afterUtxo] = [0, 1, 2, 3, 4].map((i) => user.utxos[i]!) as [
      typeof user.utxo,
      typeof user.utxo,
      typeof user.utxo,
      typeof user.utxo,
      typeof user.utxo,
    ];
    let n = 0;
    const unproven = user.transfer(n++, unprovenUtxo).serialize();
    const proven = (await user.transfer(n++, provenUtxo).prove(devProvingProvider({}, era), L.CostModel.initialCostModel())).bind().serialize();
    for (const [tag, bytes] of [
      [TX_TAGS[era][0]!, unproven],
      [TX_TAGS[era][1]!, proven],
    ] as const)
      t.ok(Buffer.from(bytes).toString('latin1').startsWith(tag), `a ledger-${era} body starts ${tag}`);
    const sponsorSamples = { '/prove-and-balance': unproven, '/balance-only': proven };
    const samples =
      era === PROVER_ERA ? { '/prove': proveBody(), '/verify': checkBody(), '/k': midnightFile('zk/zswap_output.bzkir'), ...sponsorSamples } : sponsorSamples;
    const tags = [...Object.values(TAG), ...TX_TAGS[era]];
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
      if (SPONSOR_PATHS.has(path) && r.status === 409 && code === HELD) {
        if (ERRORS[code].status !== 409) throw new Error(`${path}: ${code} with status ${r.status}`);
        if (typeof reason !== 'string' || reason.length < 10) throw new Error(`${path}: no reason given: ${r.text}`);
        if (!/^[1-9][0-9]*$/.test(String(r.headers['retry-after']))) throw new Error(`${path}: ${code} without Retry-After: ${JSON.stringify(r.headers)}`);
        return;
      }
      if (r.status !== 400 || code === undefined || !BODY_FAULTS.has(code)) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 300)}`);
      if (ERRORS[code].status !== 400) throw new Error(`${path}: ${code} with status ${r.status}`);
      if (typeof reason !== 'string' || reason.length < 10) throw new Error(`${path}: no reason given: ${r.text}`);
    }

    for (const [path, sample] of Object.entries(samples)) {
      await t.test(`${path}: random and mutated bodies get 400 with a reason`, async (t) => {
        // One valid request first: the first /verify or /k loads zkir-v2 in each thread, which is not what the time box is for.
        t.equal(
          (await rig.post(path, path === '/prove-and-balance' ? user.transfer(n++, validUtxo).serialize() : sample)).status,
          200,
          `${path}: a valid body is served`,
        );
        await fc.assert(
          fc.asyncProperty(fc.oneof({ weight: 1, arbitrary: junk(tags) }, { weight: 3, arbitrary: mutated(sample) }), async (body) => {
            reclaimIfLow();
            judge(path, await rig.post(path, body));
          }),
          // /k reads each body into the circuit IR reader (≈ 80 ms a body on a quiet machine): it runs a
          // fixed number of bodies instead of a time box, which a loaded machine would leave with a handful.
          {
            ...(path === '/k' ? { numRuns: K_RUNS } : { numRuns: 400, interruptAfterTimeLimit: TIME_BOX_MS }),
            seed: Number(process.env['FUZZ_SEED'] ?? 0x6e67) + path.length + (era === PROVER_ERA ? 0 : era),
          },
        );
        const tally = Object.fromEntries(seen.get(path) ?? []);
        t.ok(Object.values(tally).reduce((a, b) => a + b, 0) >= 20, `${path}: ${JSON.stringify(tally)}`);
      });
    }

    await t.test("found by the fuzzer: a transaction built for another network is a 400 with the ledger's reason, not a 500", async (t) => {
      // Give back what the fuzzing sponsored, so the count below can only move because of these requests.
      clock.advance(301_000);
      rig.service.reclaimDue();
      const reserved = rig.table.counts().reserved;
      t.equal(reserved, 0);
      const foreign = transferFrom(user.user, foreignUtxo, freshUser(99, era).address, 5_000n, 'preview');
      const unprovenAnswer = await rig.post('/prove-and-balance', foreign.serialize());
      t.equal(unprovenAnswer.status, 400);
      t.equal(unprovenAnswer.json?.['code'], 'TRANSACTION_REJECTED');
      t.match(unprovenAnswer.json?.['message'], /the ledger rejects the transaction: invalid network ID/, 'refused by the check before any reservation');
      const provenForeign = (await foreign.prove(devProvingProvider({}, era), L.CostModel.initialCostModel())).bind();
      const provenAnswer = await rig.post('/balance-only', provenForeign.serialize());
      t.equal(provenAnswer.status, 400);
      t.equal(provenAnswer.json?.['code'], 'TRANSACTION_REJECTED');
      t.equal(rig.table.counts().reserved, reserved, 'and the refusal holds no DUST UTXO');
    });

    await t.test('afterwards: no worker crashed, no reservation left by a refusal, valid requests served', async (t) => {
      const health = rig.pool.health();
      t.equal(health.crashed, 0, 'no worker crashed');
      t.equal(health.threads, 2, 'both threads up');
      t.equal(health.queueSize, 0);
      clock.advance(301_000);
      rig.service.reclaimDue();
      t.equal(rig.table.counts().reserved, 0, 'every reservation came back (refusals released theirs at once)');
      const p = await rig.post('/prove', proveBody(undefined, 424242n));
      t.equal(p.status, 200, '/prove');
      const s = await rig.post('/prove-and-balance', user.transfer(n++, afterUtxo).serialize());
      t.equal(s.status, 200, `/prove-and-balance (${s.text.slice(0, 100)})`);
      t.match(rig.s.app.health(), { status: 'ok' });
      t.notOk(
        rig.logs.lines.some((l) => l['msg'] === 'unhandled error'),
        'no unhandled error was logged',
      );
    });
  });
