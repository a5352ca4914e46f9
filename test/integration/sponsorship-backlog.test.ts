/**
 * Back-pressure: once this server's answered transactions that have not landed fill the blocks a
 * new fee intent would live through, sponsorships are refused (503 SPONSOR_BACKLOG_FULL, a
 * Retry-After of the excess's drain time, nothing reserved) instead of answered with a transaction
 * that would expire in the mempool; /wallet-status and /metrics show the backlog and how answers
 * ended. Injected clock for the server; the devnet's chain runs on real time, so the test waits
 * for its blocks through the DUST sync's reports, never for a time.
 */
import t from 'tap';
import { request } from 'undici';
import { ManualClock } from '../helpers/manual-clock.js';
import { eraOverrides, expireThrough, SPONSOR_ERAS, startSponsorApp, type SponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { sample } from '../helpers/metrics-text.js';

const MARGIN = 1_000;
/** 2 s blocks, 6 s of fee intent: 3 blocks, of which 2 are the answer's own: 1 block of room (and 6 s to submit on a loaded machine). */
const BLOCK_MS = 2_000;
const FEE_TTL_MS = 6_000;
const UTXOS = 60;

interface Backlog {
  blocks: number;
  limitBlocks: number;
  landed: number;
  expiredUnlanded: number;
}

const backlogOf = (app: SponsorApp): Backlog => (app.service.status()['preview'] as { backlog: Backlog }).backlog;

const era = SPONSOR_ERAS[SPONSOR_ERAS.length - 1]!;
t.test(`ledger ${era}: a backlog a new fee intent cannot outlast is refused, and how answers ended is counted`, async (t) => {
  const clock = new ManualClock(Date.now());
  const app = await startSponsorApp(
    eraOverrides(era, {
      devnet: { blockTimeMs: BLOCK_MS },
      dust: { maxReservationsPerKey: 1_000, expiryMarginMs: MARGIN, feeTtlMs: FEE_TTL_MS, maxFee: '1000000000000000000' },
      rateLimit: { limit: 10_000 },
    }),
    clock,
  );
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');
  const table = app.service.network('preview')!.table;
  const { user, utxos } = await app.fundedUser(111, 1_000_000n, UTXOS);
  const to = freshUser(112, era).address;
  t.same(backlogOf(app), { blocks: 0, limitBlocks: 1, landed: 0, expiredUnlanded: 0 }, 'an empty backlog, one block of room');

  // Answers nobody submits, one at a time, until the queue they make is more than a block.
  let answered = 0;
  let refusal: Awaited<ReturnType<SponsorApp['post']>> | undefined;
  let lastExpiry = 0;
  for (const utxo of utxos) {
    const r = await app.post('/prove-and-balance', transferFrom(user, utxo, to, 1_000n).serialize());
    if (r.status !== 200) {
      refusal = r;
      break;
    }
    answered++;
    lastExpiry = Math.max(lastExpiry, Date.parse(r.json['expiresAt'] as string));
  }
  t.ok(refusal, `refused after ${answered} unlanded answers`);
  t.ok(answered >= 10 && answered < UTXOS, `a block of sponsored transfers was answered first (${answered})`);
  t.equal(refusal?.status, 503);
  t.equal(refusal?.json['code'], 'SPONSOR_BACKLOG_FULL');
  t.equal(refusal?.headers['retry-after'], '2', 'one block of excess at 2 s blocks');
  t.match(
    refusal?.json['message'],
    new RegExp(`^${answered} sponsored transactions of preview have not landed yet, about 2 blocks of queue: a fee intent answered now lives 3 blocks`),
  );
  t.equal(table.counts().reserved, answered, 'the refusal reserved nothing');
  const full = backlogOf(app);
  t.ok(full.blocks >= full.limitBlocks, `the status shows the queue at or past its limit (${full.blocks} blocks, to 3 decimals)`);
  const status = (await (await request(`${app.url}/wallet-status`, { headers: { 'x-api-key': 'test-key-0123456789abcdef' } })).body.json()) as Record<
    string,
    { backlog: Backlog }
  >;
  t.same(status['preview']!.backlog, full, '/wallet-status shows the same');

  // Never submitted: each expires unlanded and leaves the queue.
  await expireThrough(app, clock, lastExpiry, MARGIN, BLOCK_MS);
  t.equal(table.counts().reserved, 0, 'every reservation ended');
  t.same(backlogOf(app), { blocks: 0, limitBlocks: 1, landed: 0, expiredUnlanded: answered }, 'each counted as expired unlanded');

  // A submitted one lands and is counted so; the backlog has room again.
  clock.set(Date.now());
  const next = await app.post('/prove-and-balance', transferFrom(user, utxos[answered]!, to, 1_000n).serialize());
  t.equal(next.status, 200, 'answered again once the queue drained');
  const sent = await request(app.devnet.submitUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: Buffer.from(next.json['tx'] as string, 'hex'),
  });
  t.equal(sent.statusCode, 202);
  await sent.body.dump();
  await expireThrough(app, clock, Date.parse(next.json['expiresAt'] as string), MARGIN, BLOCK_MS);
  t.same(backlogOf(app), { blocks: 0, limitBlocks: 1, landed: 1, expiredUnlanded: answered }, 'it landed');

  const metrics = await (await request(`${app.url}/metrics`)).body.text();
  t.equal(sample(metrics, 'nightgate_dust_answers_total', { network: 'preview', outcome: 'expired' }), answered);
  t.equal(sample(metrics, 'nightgate_dust_answers_total', { network: 'preview', outcome: 'landed' }), 1);
  t.equal(sample(metrics, 'nightgate_dust_backlog_blocks', { network: 'preview' }), 0);
  t.equal(sample(metrics, 'nightgate_dust_backlog_limit_blocks', { network: 'preview' }), 1);
  const usage = await (await request(`${app.url}/metrics`)).body.text();
  t.equal(
    sample(usage, 'nightgate_sponsorships_total', { network: 'preview', kind: 'prove-and-balance', outcome: 'SPONSOR_BACKLOG_FULL' }),
    1,
    'the refusal is counted by its code',
  );
});
