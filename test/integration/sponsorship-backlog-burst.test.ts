/**
 * Back-pressure at reservation: requests admitted at once all find the queue empty as they come in
 * (nothing is reserved yet); each task counts the queue again as it reserves, and past what its fee
 * intent outlasts it is refused 503 SPONSOR_BACKLOG_FULL with nothing reserved.
 */
import t from 'tap';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';

/** 3 s of fee intent at 1 s blocks: 3 blocks, of which 2 are the answer's own: 1 block of room. */
const FEE_TTL_MS = 3_000;

const era = SPONSOR_ERAS[SPONSOR_ERAS.length - 1]!;
t.test(`ledger ${era}: a burst admitted at once is judged as each task reserves, not as it came in`, async (t) => {
  const app = await startSponsorApp(
    eraOverrides(era, { dust: { maxReservationsPerKey: 1_000, feeTtlMs: FEE_TTL_MS, maxFee: '1000000000000000000' }, rateLimit: { limit: 10_000 } }),
  );
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');
  const table = app.service.network('preview')!.table;
  const { user, utxos } = await app.fundedUser(113, 1_000_000n, 40);
  const to = freshUser(114, era).address;
  // All 40 pass the early check at once (nothing reserved yet); one block of room holds about 21.
  const answers = await Promise.all(utxos.map((u) => app.post('/prove-and-balance', transferFrom(user, u, to, 1_000n).serialize())));
  const ok = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status !== 200);
  // Each task counts the reservations before its own and then reserves: not one atomic step, so
  // each other worker thread (2 here) may add one past the block.
  t.ok(ok >= 15 && ok <= 21 + 2, `${ok} answered: a block of queue, not 40`);
  t.same(
    [...new Set(refused.map((a) => `${a.status} ${String(a.json['code'])} ${String(a.headers['retry-after'])}`))],
    ['503 SPONSOR_BACKLOG_FULL 1'],
    'the rest refused as they would reserve',
  );
  t.equal(table.counts().reserved, ok, 'the refused reserved nothing');
});
