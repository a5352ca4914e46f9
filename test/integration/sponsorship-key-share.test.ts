/**
 * Fair share of the pool: one key holds at most `dust.maxReservationsPerKey` DUST
 * UTXOs at once, past it 429 RESERVATION_LIMIT with Retry-After, and another key is never
 * starved; a landed transaction frees its slot of the share; an answer never submitted is
 * refunded to the key's budget when its reservation is reclaimed. The dedupe
 * of answers is per key (another key's identical bytes are not the first key's answer: they spend
 * inputs that answer holds, 409 INPUT_HELD). On each ledger era (SPONSOR_ERAS): a sponsored
 * transaction lands and its DUST UTXO is marked spent by the sync of that era.
 */
import t from 'tap';
import { request } from 'undici';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { OTHER_KEY } from '../helpers/app.js';
import { ManualClock } from '../helpers/manual-clock.js';

const SHARE = 4;

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: one key cannot hold more than its share; others still get UTXOs; landing and reclaim give the share back`, async (t) => {
    const clock = new ManualClock(Date.now());
    // The global fee cap and budget are not under test here: a fee covers a block of price rise per
    // second its prices are stale, which on a busy machine can pass the default cap (< 2x the fee).
    const app = await startSponsorApp(
      eraOverrides(era, {
        dust: { maxReservationsPerKey: SHARE, maxFee: '1000000000000000000', budget: '100000000000000000000' },
        rateLimit: { limit: 10_000 },
      }),
      clock,
    );
    t.teardown(() => app.close());
    await app.service.whenSynced('preview');
    t.equal(app.service.eraOf('preview'), era, `the wallets are synced in ledger ${era}`);
    // An answered sponsorship holds its inputs (409 INPUT_HELD to any other spend of them): each
    // distinct transaction below spends a UTXO of its own (12 at once, another key's, two after the landing).
    const { user, utxos } = await app.fundedUser(71, 100_000_000n, 15);
    const to = freshUser(72, era).address;
    const table = app.service.network('preview')!.table;
    const free = table.counts().free;
    // The fee intent's TTL is this clock + dust.feeTtlMs (20 s here), and the devnet checks it against
    // its own blocks' real timestamps: bring the clock to the real time now, after the start-up, the
    // DUST sync and the funding (seconds, more on a busy machine), so the transaction submitted below
    // is not already expired. From here on the clock moves only when told to.
    clock.set(Date.now());

    // 12 distinct transactions at once from one key.
    const bodies = Array.from({ length: 12 }, (_, i) => transferFrom(user, utxos[i]!, to, 5_000n + BigInt(i)).serialize());
    const answers = await Promise.all(bodies.map((b) => app.post('/prove-and-balance', b)));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    t.equal(ok.length, SHARE, `the key got exactly its share (${SHARE}) of ${free} free UTXOs`);
    t.same([...new Set(refused.map((a) => `${a.status} ${String(a.json['code'])}`))], ['429 RESERVATION_LIMIT'], 'the rest: 429 RESERVATION_LIMIT');
    t.equal(refused[0]!.headers['retry-after'], '1', 'Retry-After: one block (1 s devnet blocks here)');
    t.equal(table.counts().reserved, SHARE, 'refusals reserved nothing');

    // One of the key's transactions is submitted at once, well inside its fee intent's 20 s (the
    // checks below take more sponsorships; it lands in one of the next blocks).
    const first = ok[0]!;
    const submitted = await request(app.devnet.submitUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from(first.json['tx'] as string, 'hex'),
    });
    t.equal(submitted.statusCode, 202, `the devnet accepts the sponsored transaction: ${await submitted.body.text()}`);
    if (submitted.statusCode !== 202) return;
    const slot = (first.json['dustUtxo'] as { slot: number }).slot;

    // Another key is not starved.
    const other = await app.post('/prove-and-balance', transferFrom(user, utxos[12]!, to, 9_000n).serialize(), { 'x-api-key': OTHER_KEY });
    t.equal(other.status, 200, 'another key still gets a UTXO');

    // Same bytes as one of the first key's answers (one not submitted: the one submitted may already
    // have landed), other key: not the first key's answer (dedupe is per key), but a spend of inputs
    // that answer holds: 409 INPUT_HELD, nothing reserved, the other key holding nothing more.
    const answered = bodies[answers.indexOf(ok[1]!)]!;
    const reservedBefore = table.counts().reserved;
    const otherHeld = app.service.held('preview', 'env-2');
    const shared = await app.post('/prove-and-balance', answered, { 'x-api-key': OTHER_KEY });
    t.equal(shared.status, 409, `another key's identical bytes are not answered from the first key's dedupe entry: ${JSON.stringify(shared.json)}`);
    t.equal(shared.json['code'], 'INPUT_HELD', "their inputs are held by the first key's answer");
    t.not(shared.headers['x-dedupe'], 'HIT');
    // At most as many: the first key's submitted answer may land meanwhile and give its UTXO back.
    const reservedAfter = table.counts().reserved;
    t.ok(reservedAfter <= reservedBefore, `nothing reserved for it (${reservedBefore} → ${reservedAfter} reserved)`);
    t.equal(app.service.held('preview', 'env-2'), otherHeld, 'the other key holds nothing more');
    const same = await app.post('/prove-and-balance', answered);
    t.equal(same.headers['x-dedupe'], 'HIT', 'the same key sending the same bytes gets its own answer again');

    // The submitted transaction lands: its slot of the share is free again. Waited for on the DUST
    // sync's own status reports (each synced block), and for at most 20 of them, not for a time.
    let reports = 0;
    await app.untilSync(() => table.slotEntry(slot)?.state === 'spent' || ++reports > 20);
    t.equal(table.slotEntry(slot)?.state, 'spent', `its DUST UTXO is marked spent (after ${reports} sync reports)`);
    const next = await app.post('/prove-and-balance', transferFrom(user, utxos[13]!, to, 7_777n).serialize());
    t.equal(next.status, 200, 'a landed transaction gives its slot of the share back');
    const over = await app.post('/prove-and-balance', transferFrom(user, utxos[14]!, to, 7_778n).serialize());
    t.equal(over.status, 429, 'and the share is full again');

    // Never submitted: reclaimed at 300 s, and the budget of those answers comes back; only the
    // landed transaction's fee stays charged (unless the budget window itself rolled over).
    const policy = (app.service as unknown as { opts: { policy: { spent(id: string, now: number): bigint } } }).opts.policy;
    const t0 = clock.now();
    t.ok(policy.spent('env-1', t0) > BigInt(first.json['fee'] as string), 'the key was charged for every answer');
    clock.advance(301_000);
    app.service.reclaimDue();
    const windowMs = 3_600_000;
    const rolled = Math.floor(t0 / windowMs) !== Math.floor(clock.now() / windowMs);
    t.equal(
      policy.spent('env-1', clock.now()),
      rolled ? 0n : BigInt(first.json['fee'] as string),
      'answers reclaimed unspent are refunded; the landed one is not',
    );
    t.equal(app.service.held('preview', 'env-1'), 0, 'after the reclaim the key holds nothing: its whole share is available again');
    t.equal(table.counts().reserved, 0, 'every unsubmitted reservation came back');
  });
