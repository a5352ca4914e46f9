/**
 * Sponsorship over HTTP: the error table (404 disabled, 503 syncing, 400 wrong kind, 403 cap,
 * 429 budget), and 200 concurrent requests against fewer DUST UTXOs: each gets a distinct UTXO
 * or a clean 503, none is reserved twice, and every reservation comes back. The devnet test runs on
 * each ledger era (SPONSOR_ERAS); the two without a devnet (disabled, syncing) are HTTP only and run
 * once.
 */
import t from 'tap';
import { request } from 'undici';
import { ledger, provingProvider } from '../../src/infra/ledger/index.js';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { mountProver } from '../../src/features/proving/index.js';
import { mountSponsorship } from '../../src/features/sponsorship/index.js';
import { sha256Hex } from '../../src/core/guards/auth.js';
import { ManualClock } from '../helpers/manual-clock.js';

const OCTET = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };
const CLOSED = { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream' as const, proverUrl: 'http://127.0.0.1:9' };

t.test('balancing disabled: both routes 404, wallet-status 404', async (t) => {
  const s = await startApp(
    { dust: { enabled: false }, networks: { mainnet: CLOSED, preprod: CLOSED, preview: CLOSED } },
    { modules: [mountProver, mountSponsorship] },
  );
  t.teardown(() => s.close());
  for (const path of ['/prove-and-balance', '/balance-only']) {
    const r = await request(`${s.url}${path}`, { method: 'POST', headers: OCTET, body: Buffer.from('x') });
    t.equal(r.statusCode, 404, path);
    t.same(await r.body.json(), { error: 'Not Found', message: 'Balancing is disabled on this server', code: 'BALANCING_DISABLED' });
  }
  const w = await request(`${s.url}/wallet-status`, { headers: { 'x-api-key': TEST_KEY } });
  t.equal(w.statusCode, 404);
  await w.body.dump();
});

t.test('wallet still syncing: 503 with Retry-After 30', async (t) => {
  // Server wallets for a network whose indexer never answers: the sync cannot finish.
  const s = await startApp(
    { dust: { walletDerivation: 'legacy', walletSeeds: ['ab'.repeat(32)] }, networks: { mainnet: CLOSED, preprod: CLOSED, preview: CLOSED } },
    { modules: [mountProver, mountSponsorship] },
  );
  t.teardown(() => s.close());
  const r = await request(`${s.url}/prove-and-balance?network=mainnet`, {
    method: 'POST',
    headers: OCTET,
    body: Buffer.from('midnight:transaction[v9](signature[v1],proof-preimage,embedded-fr[v1]):'),
  });
  t.equal(r.statusCode, 503);
  t.equal(r.headers['retry-after'], '30');
  t.same(await r.body.json(), { error: 'Service Unavailable', message: 'the server DUST wallets of mainnet are still syncing', code: 'WALLET_SYNCING' });
  const bad = await request(`${s.url}/balance-only?network=moonnet`, { method: 'POST', headers: OCTET, body: Buffer.from('x') });
  t.equal(bad.statusCode, 400);
  t.match(await bad.body.json(), { code: 'INVALID_NETWORK' });
});

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}, on the devnet: wrong kinds, cap, budget, and 200 concurrent requests over fewer UTXOs`, async (t) => {
    const L = ledger(era);
    // Time stands still while the requests run, so every reservation has the same reclaim time.
    const clock = new ManualClock(Date.now());
    const capped = 'capped-key-0123456789';
    const poor = 'poor-key-0123456789abc';
    const app = await startSponsorApp(
      eraOverrides(era, {
        auth: {
          keys: [
            { id: 'capped', sha256: sha256Hex(capped), maxFee: '1000' },
            { id: 'poor', sha256: sha256Hex(poor), dustBudget: '1000' },
          ],
        },
        prover: { queueSize: 512 },
        rateLimit: { limit: 10_000 },
        // The pool's exhaustion, not the per-key share (sponsorship-key-share.test.ts), is tested here.
        // Nor the global fee cap and budget (the keys above have their own): a fee covers one block of
        // price rise (x1.046) per second its prices are stale, and with 200 requests queued on a busy
        // machine that staleness grew past the default cap (5e15 SPECK, under 2x the fee here) and a
        // late one got 403 FEE_CAP_EXCEEDED. 1e18 is ~330x the fee: prices 2 minutes stale.
        dust: { maxReservationsPerKey: 1_000, maxFee: '1000000000000000000', budget: '100000000000000000000' },
      }),
      clock,
    );
    t.teardown(() => app.close());
    await app.service.whenSynced('preview');
    t.equal(app.service.eraOf('preview'), era, `the wallets are synced in ledger ${era}`);
    // One UTXO for the refusals below, and one for each of the 200 concurrent transactions: an
    // answered sponsorship holds its inputs (409 INPUT_HELD to any other spend of them).
    const { user, utxo, utxos } = await app.fundedUser(61, 10_000_000n, 201);
    const to = freshUser(62, era).address;
    const unproven = transferFrom(user, utxo, to, 1_000n);
    const finalized = (
      await unproven.prove(
        provingProvider({
          check: async () => [],
          prove: async () => {
            throw new Error('no proofs needed for a NIGHT transfer');
          },
        }),
        L.CostModel.initialCostModel(),
      )
    ).bind();

    const kind = await app.post('/prove-and-balance', finalized.serialize());
    t.equal(kind.status, 400);
    t.same(kind.json, { error: 'Bad Request', message: 'expected an unproven transaction, got a finalized one', code: 'WRONG_TRANSACTION_KIND' });
    const kind2 = await app.post('/balance-only', unproven.serialize());
    t.equal(kind2.status, 400);
    t.equal(kind2.json['message'], 'expected a proven transaction or a finalized transaction, got an unproven one');
    const junk = await app.post('/prove-and-balance', Buffer.from('hello'));
    t.equal(junk.status, 400);
    t.equal(junk.json['code'], 'WRONG_TRANSACTION_KIND');

    const cap = await app.post('/prove-and-balance', unproven.serialize(), { 'x-api-key': capped });
    t.equal(cap.status, 403);
    t.equal(cap.json['code'], 'FEE_CAP_EXCEEDED');
    t.equal(cap.headers['retry-after'], '1', 'prices move every block: ask again after one (1 s blocks here)');
    const budget = await app.post('/prove-and-balance', unproven.serialize(), { 'x-api-key': poor });
    t.equal(budget.status, 429);
    t.equal(budget.json['code'], 'DUST_BUDGET_EXCEEDED');
    const table = app.service.network('preview')!.table;
    t.equal(table.counts().reserved, 0, 'refusals hold no UTXO');

    // 200 distinct transactions (distinct amounts), each spending its own UTXO, at once.
    const free = table.counts().free;
    const bodies = Array.from({ length: 200 }, (_, i) => transferFrom(user, utxos[i + 1]!, to, 2_000n + BigInt(i)).serialize());
    const answers = await Promise.all(bodies.map((b) => app.post('/prove-and-balance', b)));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    t.equal(ok.length + refused.length, 200);
    t.ok(ok.length > 0 && ok.length <= free, `${ok.length} sponsored with ${free} free UTXOs`);
    t.same([...new Set(refused.map((a) => `${a.status} ${String(a.json['code'])}`))], ['503 NO_DUST_AVAILABLE'], 'every other answer is a clean 503');
    const slots = ok.map((a) => (a.json['dustUtxo'] as { slot: number }).slot);
    t.equal(new Set(slots).size, slots.length, 'no UTXO was given to two requests');
    t.equal(table.counts().reserved, ok.length, 'exactly one reservation per sponsored transaction');
    const c = table.counts();
    t.equal(c.free + c.reserved + c.spent, c.total);

    // None is submitted: each returns once the chain is past its fee intent's TTL (plus
    // dust.expiryMarginMs), at the latest at 300 s (plus a tick). The devnet's chain runs on real
    // time, so how many are back before 300 s depends on this machine's pace: only the end is fixed.
    clock.advance(301_000);
    app.service.reclaimDue();
    t.equal(table.counts().reserved, 0, 'all reservations came back');
    t.equal(table.counts().free, free);
  });
