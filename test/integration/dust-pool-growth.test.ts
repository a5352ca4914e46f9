/**
 * A pool that grows with demand: below `dust.targetUtxos` the keeper splits the server
 * wallets' NIGHT into more DUST-generating UTXOs through the ordinary sponsorship path, never
 * touching a reserved UTXO, journaled with `dust.stateDir`, shown in /wallet-status; and a spent
 * UTXO's change is back in the pool once the block that spent it is synced.
 */
import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startSponsorApp, type SponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { TEST_KEY } from '../helpers/app.js';
import { SPLIT_OUTPUTS } from '../../src/features/sponsorship/pool/pool-keeper.js';

/** Resolves at the first status of the DUST sync for which `done()` holds. */
function until(app: SponsorApp, done: () => boolean): Promise<void> {
  return app.untilSync(done);
}

async function submit(app: SponsorApp, hex: string): Promise<number> {
  const res = await request(app.devnet.submitUrl, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from(hex, 'hex') });
  await res.body.dump();
  return res.statusCode;
}

t.test('under demand the keeper splits NIGHT until the pool holds the target, leaving reserved UTXOs alone', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'nightgate-pool-'));
  t.teardown(() => rmSync(stateDir, { recursive: true, force: true }));
  const target = 84;
  const app = await startSponsorApp({ dust: { targetUtxos: target, stateDir, maxReservationsPerKey: 100 }, rateLimit: { limit: 10_000 } });
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');
  const table = app.service.network('preview')!.table;
  const live = (): number => table.counts().free + table.counts().reserved;
  t.equal(live(), 66, 'genesis: 2 wallets × 33 DUST UTXOs');
  const keeper = app.service.keeper('preview')!;
  t.equal(keeper.status().maintenance.state, 'idle', 'no demand, no growth: an idle server leaves its NIGHT be');

  // Demand: a user's answered reservations take more than three quarters of the pool.
  // A sponsored transaction holds its inputs until it lands or expires: each of the 52 spends a UTXO of its own.
  const { user, utxos } = await app.fundedUser(91, 500_000_000n, 52);
  const answers = await Promise.all(
    utxos.map((utxo, i) => app.post('/prove-and-balance', transferFrom(user, utxo, freshUser(92).address, 1_000n + BigInt(i)).serialize())),
  );
  t.equal(
    answers.filter((a) => a.status === 200).length,
    52,
    `52 sponsored: 14 of 66 left free (${answers
      .filter((a) => a.status !== 200)
      .map((a) => String(a.json['code']))
      .join(' ')})`,
  );
  const held = answers[0]!;
  const heldSlot = (held.json['dustUtxo'] as { slot: number }).slot;

  // Once the keeper has submitted splits, the user's reservation is still the user's, and lands.
  await until(app, () => keeper.status().maintenance.splitsSubmitted > 0);
  t.equal(table.slotEntry(heldSlot)?.state, 'reserved', "the user's reserved UTXO was never touched");
  t.equal(await submit(app, held.json['tx'] as string), 202, "and the user's transaction still lands");

  await until(app, () => live() >= target && table.slotEntry(heldSlot)?.state === 'spent');
  await keeper.settled();
  const status = keeper.status();
  t.ok(status.live >= target, `the pool grew to ${status.live} DUST UTXOs (target ${target})`);
  t.ok(
    status.maintenance.splitsSubmitted >= Math.ceil((target - 66) / SPLIT_OUTPUTS),
    `${status.maintenance.splitsSubmitted} splits of ${SPLIT_OUTPUTS} outputs`,
  );
  t.equal(status.maintenance.splitsFailed, 0, `no split was refused (${String(status.maintenance.reason)})`);
  await until(app, () => table.counts().reserved === 51);
  t.pass("every split spent its fee UTXO: only the user's 51 unsubmitted answers stay reserved");

  const journal = join(stateDir, 'preview', 'pool-splits.json');
  t.ok(existsSync(journal), 'the split NIGHT UTXOs are journaled');
  t.equal((JSON.parse(readFileSync(journal, 'utf8')) as unknown[]).length, status.maintenance.pendingSplits);

  const res = await request(`${app.url}/wallet-status`, { headers: { 'x-api-key': TEST_KEY } });
  const body = (await res.body.json()) as Record<
    string,
    { pool: { target: number; live: number; maintenance: { state: string }; sustainableTxPerSecond: number } }
  >;
  t.equal(body['preview']!.pool.target, target, '/wallet-status shows the target');
  t.ok(body['preview']!.pool.live >= target, '… the UTXOs held');
  t.match(body['preview']!.pool.maintenance.state, /^(idle|waiting)$/, '… the keeper at rest');
  t.equal(
    body['preview']!.pool.sustainableTxPerSecond,
    Math.round((body['preview']!.pool.live / 2) * 100) / 100,
    '… and the rate it sustains (UTXOs per two 1 s blocks)',
  );

  // The server's own fees count as DUST spent: one audit line and one count per split.
  const splitLines = app.logs.lines.filter((l) => l['audit'] === 'sponsorship' && l['kind'] === 'pool-split');
  t.equal(splitLines.length, status.maintenance.splitsSubmitted, 'an audit line per split');
  t.match(splitLines[0], { keyId: 'nightgate-pool', network: 'preview', outcome: 'sponsored', txHash: /^[0-9a-f]{64}$/, fee: /^\d+$/ });
  const metrics = await (await request(`${app.url}/metrics`)).body.text();
  t.match(metrics, new RegExp(`nightgate_sponsorships_total\\{network="preview",kind="pool-split",outcome="sponsored"\\} ${splitLines.length}\\n`));
});

t.test("a spent UTXO's change is back in the pool once the block that spent it is synced", async (t) => {
  const app = await startSponsorApp({ dust: { targetUtxos: 0 } });
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');
  const table = app.service.network('preview')!.table;
  const { user, utxo } = await app.fundedUser(93, 500_000_000n);
  const freeBefore = table.counts().free;
  const res = await app.post('/prove-and-balance', transferFrom(user, utxo, freshUser(94).address, 4_000n).serialize());
  t.equal(res.status, 200);
  t.equal(table.counts().free, freeBefore - 1);
  const slot = (res.json['dustUtxo'] as { slot: number }).slot;
  t.equal(await submit(app, res.json['tx'] as string), 202);
  await until(app, () => table.slotEntry(slot)?.state === 'spent');
  t.equal(table.counts().free, freeBefore, 'in the same sync that marked it spent, its change is FREE: the pool is whole again');
  t.equal(app.service.keeper('preview')!.status().maintenance.state, 'idle', 'target 0: the keeper never splits');
});
