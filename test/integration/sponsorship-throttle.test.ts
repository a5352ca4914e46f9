/**
 * Answers that never land give their DUST back at the fee intent's TTL, and a key whose answers
 * keep expiring unlanded is throttled: its share of the pool shrinks (429 RESERVATION_LIMIT with
 * Retry-After and the reason), and grows back as its transactions land. Injected clock for the
 * server's side; the devnet's chain runs on real time, so the test waits for its blocks through
 * the DUST sync's own reports, never for a time.
 */
import t from 'tap';
import { request } from 'undici';
import { ManualClock } from '../helpers/manual-clock.js';
import { eraOverrides, expireThrough, SPONSOR_ERAS, startSponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';

const SHARE = 4;
const SLACK = 2;
const MARGIN = 1_000;

/** Counts decay with time (by < 2 % over this test's seconds): compared whole. */
function rounded(c: { landed: number; expired: number }): { landed: number; expired: number } {
  return { landed: Math.round(c.landed), expired: Math.round(c.expired) };
}

const era = SPONSOR_ERAS[SPONSOR_ERAS.length - 1]!;
t.test(`ledger ${era}: unlanded answers are released at their TTL; a key whose answers never land is throttled and recovers`, async (t) => {
  const clock = new ManualClock(Date.now());
  const app = await startSponsorApp(
    eraOverrides(era, {
      dust: { maxReservationsPerKey: SHARE, throttleSlack: SLACK, expiryMarginMs: MARGIN, feeTtlMs: 10_000, maxFee: '1000000000000000000' },
      rateLimit: { limit: 10_000 },
    }),
    clock,
  );
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');
  const table = app.service.network('preview')!.table;
  // An answered sponsorship holds its inputs (409 INPUT_HELD to any other spend of them): each
  // transaction below spends a UTXO of its own (a: 4 in round 1, 2 in round 2; b: 1; c: 5 in round 3).
  const a = await app.fundedUser(101, 100_000_000n, 6);
  const b = await app.fundedUser(102, 100_000_000n);
  const c = await app.fundedUser(104, 100_000_000n, 5);
  const to = freshUser(103, era).address;
  clock.set(Date.now());
  const policy = (app.service as unknown as { opts: { policy: { spent(id: string, now: number): bigint } } }).opts.policy;

  // Round 1: the key's whole share, never submitted.
  const first = await Promise.all(
    [1, 2, 3, 4].map((i) => app.post('/prove-and-balance', transferFrom(a.user, a.utxos[i - 1]!, to, 1_000n + BigInt(i)).serialize())),
  );
  t.same(
    first.map((r) => r.status),
    [200, 200, 200, 200],
    'the full share is answered',
  );
  t.equal(table.counts().reserved, SHARE);
  const expires = Math.max(...first.map((r) => Date.parse(r.json['expiresAt'] as string)));
  t.ok(expires < clock.now() + 60_000, 'the fee intents expire within seconds, far before the 300 s reclaim');
  await expireThrough(app, clock, expires, MARGIN);
  t.equal(table.counts().reserved, 0, 'released at the fee intent TTL + margin, not at 300 s');
  t.equal(app.service.held('preview', 'env-1'), 0, 'the key holds nothing');
  t.equal(policy.spent('env-1', clock.now()), 0n, 'and is refunded: nothing landed');
  t.same(rounded(app.service.health.counts('preview', 'env-1')), { landed: 0, expired: SHARE }, '4 answers expired unlanded');

  // Round 2: throttled to half its share (4 expired > slack 2 → halved).
  // The fee intents below are submitted: built on the real time the devnet checks them against.
  clock.set(Math.max(clock.now(), Date.now()));
  const ok = await Promise.all(
    [{ user: a.user, utxo: a.utxos[4]! }, b].map((u, i) => app.post('/prove-and-balance', transferFrom(u.user, u.utxo, to, 2_000n + BigInt(i)).serialize())),
  );
  t.same(
    ok.map((r) => r.status),
    [200, 200],
    'two are answered',
  );
  const over = await app.post('/prove-and-balance', transferFrom(a.user, a.utxos[5]!, to, 2_999n).serialize());
  t.equal(over.status, 429, 'a third is refused: half its share now');
  t.equal(over.json['code'], 'RESERVATION_LIMIT');
  t.match(String(over.json['message']), /cut to 2 of 4.*expired without landing/, `the refusal says why: ${String(over.json['message'])}`);
  t.ok(Number(over.headers['retry-after']) >= 1, 'with Retry-After');

  // Both answered transactions are submitted at once (each spends its own UTXO) and land.
  for (const r of ok) {
    const submitted = await request(app.devnet.submitUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from(r.json['tx'] as string, 'hex'),
    });
    t.equal(submitted.statusCode, 202, `the devnet accepts it: ${await submitted.body.text()}`);
  }
  const slots = ok.map((r) => (r.json['dustUtxo'] as { slot: number }).slot);
  let reports = 0;
  await app.untilSync(() => slots.every((s) => table.slotEntry(s)?.state === 'spent') || ++reports > 30);
  t.ok(
    slots.every((s) => table.slotEntry(s)?.state === 'spent'),
    `both landed (after ${reports} sync reports)`,
  );
  await expireThrough(app, clock, Math.max(...ok.map((r) => Date.parse(r.json['expiresAt'] as string))), MARGIN);
  t.same(rounded(app.service.health.counts('preview', 'env-1')), { landed: 2, expired: SHARE }, 'two landed');
  t.ok(
    slots.every((s) => table.slotEntry(s)?.state === 'spent'),
    'a landed reservation is never released',
  );
  t.ok(policy.spent('env-1', clock.now()) > 0n, 'the landed fees stay charged');

  // Round 3: landings gave the share back.
  const third = await Promise.all(
    [1, 2, 3, 4, 5].map((i) => app.post('/prove-and-balance', transferFrom(c.user, c.utxos[i - 1]!, to, 3_000n + BigInt(i)).serialize())),
  );
  t.equal(third.filter((r) => r.status === 200).length, SHARE, 'the full share again');
  t.same(
    [...new Set(third.filter((r) => r.status !== 200).map((r) => `${r.status} ${String(r.json['code'])}`))],
    ['429 RESERVATION_LIMIT'],
    'past it, the plain share limit',
  );
});
