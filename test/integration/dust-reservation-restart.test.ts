/**
 * DUST reservations survive a restart (`dust.stateDir`): a fee intent answered before the server
 * restarts keeps its UTXO reserved after it, so no new sponsorship is built on that UTXO, and the
 * transaction still lands. The embedded devnet resumes from `devnet.stateDir`, with the sponsor
 * wallets it funded at genesis (their seeds are kept beside the chain).
 */
import t, { type Test } from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startSponsorApp, type SponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, fundViaFaucet, transferFrom } from '../fixtures/dust/user-tx.js';
import { JOURNAL_FILE } from '../../src/features/sponsorship/reservations/reservation-journal.js';
import { SPONSOR_SEEDS_FILE } from '../../packages/devnet/src/sponsor-seeds.js';

const dirs = { devnet: mkdtempSync(join(tmpdir(), 'ng-devnet-')), dust: mkdtempSync(join(tmpdir(), 'ng-dust-')) };
t.teardown(() => {
  rmSync(dirs.devnet, { recursive: true, force: true });
  rmSync(dirs.dust, { recursive: true, force: true });
});

// The transaction answered before the restart is submitted after it, and the devnet checks its fee
// intent's TTL against its blocks' real timestamps: the fixture's 20 s life (at 1 s blocks) was
// shorter than a restart takes on a busy machine (the devnet answered 400 "Intent TTL has expired").
// 60 s at 3 s blocks covers the same 20 blocks of price rise, so the fee stays about the same.
async function start(t: Test): Promise<SponsorApp> {
  const app = await startSponsorApp({ devnet: { stateDir: dirs.devnet, blockTimeMs: 3_000 }, dust: { stateDir: dirs.dust, feeTtlMs: 60_000 } });
  let closed = false;
  t.teardown(async () => {
    if (!closed) await app.close();
  });
  const close = app.close;
  app.close = async () => {
    closed = true;
    await close();
  };
  await app.service.whenSynced('preview');
  return app;
}

/** A DUST-less user's unproven transfer, funded by the devnet faucet. */
async function userTransfer(app: SponsorApp, seedByte: number): Promise<Uint8Array> {
  const user = freshUser(seedByte);
  const client = app.ws();
  const utxo = await fundViaFaucet(app.devnet.faucetUrl, client, user, 50_000_000n);
  await client.dispose();
  return transferFrom(user, utxo, freshUser(seedByte + 1).address, 1_000_000n).serialize();
}

function slotOf(app: SponsorApp, wallet: number, key: bigint): number {
  const table = app.service.network('preview')!.table;
  for (let slot = 0; slot < table.capacity; slot++) {
    const e = table.slotEntry(slot);
    if (e && e.walletIndex === wallet && e.key === key) return slot;
  }
  return -1;
}

function restoredLine(app: SponsorApp): Record<string, unknown> | undefined {
  return app.logs.lines.find((l) => l['msg'] === 'DUST reservations restored from the journal');
}

async function submit(app: SponsorApp, hex: string): Promise<{ status: number; text: string }> {
  const res = await request(app.devnet.submitUrl, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from(hex, 'hex') });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Resolves when chain sync has marked the slot spent, or after 20 of its status reports (blocks) without. */
async function spent(app: SponsorApp, slot: number): Promise<boolean> {
  const table = app.service.network('preview')!.table;
  let reports = 0;
  await app.untilSync(() => table.slotEntry(slot)?.state === 'spent' || ++reports > 20);
  return table.slotEntry(slot)?.state === 'spent';
}

t.test('an answered reservation is restored after a restart, and its transaction still lands', async (t) => {
  // First run: sponsor one transfer, do not submit it. (The user of the second run is funded now,
  // so that its funding block is not between the answer and the submission.)
  const a = await start(t);
  t.notOk(restoredLine(a), 'nothing to restore on the first start');
  const secondTransfer = await userTransfer(a, 81);
  const first = await a.post('/prove-and-balance', await userTransfer(a, 71));
  t.equal(first.status, 200, `prove-and-balance answered ${first.status} ${String(first.json['message'] ?? '')}`);
  const paid = a.service.network('preview')!.table.slotEntry((first.json['dustUtxo'] as { slot: number }).slot)!;
  t.equal(paid.state, 'reserved');
  t.ok(paid.deadline !== null && paid.deadline > Date.now(), 'the reservation has its reclaim deadline');
  const lines = readFileSync(join(dirs.dust, JOURNAL_FILE), 'utf8').trim().split('\n');
  t.same(
    lines.map((l) => JSON.parse(l)),
    [{ network: 'preview', wallet: paid.walletIndex, key: paid.key.toString(), deadline: paid.deadline }],
    'the journal holds the answered reservation',
  );
  t.equal(statSync(join(dirs.devnet, 'preview', SPONSOR_SEEDS_FILE)).mode & 0o777, 0o600, 'the sponsor seeds are kept beside the chain, owner-only');
  await a.close();

  // Second run: the devnet resumes, the wallets sync, the UTXO is reserved again until the same deadline.
  const b = await start(t);
  t.match(restoredLine(b), { network: 'preview', restored: 1, expired: 0, gone: 0 });
  const slot = slotOf(b, paid.walletIndex, paid.key);
  t.ok(slot >= 0, 'the UTXO is in the synced table');
  const entry = b.service.network('preview')!.table.slotEntry(slot)!;
  t.equal(entry.state, 'reserved', 'reserved again before any request could take it');
  t.equal(entry.deadline, paid.deadline, 'until its original deadline');
  const status = (await (await request(`${b.url}/wallet-status`, { headers: { 'x-api-key': 'test-key-0123456789abcdef' } })).body.json()) as Record<
    string,
    { utxos: { reserved: number }; reclaimTimers: number }
  >;
  t.equal(status['preview']!.utxos.reserved, 1);
  t.equal(status['preview']!.reclaimTimers, 1, 'with its reclaim timer');

  // A new sponsorship gets another UTXO.
  const second = await b.post('/prove-and-balance', secondTransfer);
  t.equal(second.status, 200, `prove-and-balance answered ${second.status} ${String(second.json['message'] ?? '')}`);
  t.not((second.json['dustUtxo'] as { slot: number }).slot, slot, 'not the restored UTXO');

  // The transaction answered before the restart lands, and spends the restored UTXO.
  const submitted = await submit(b, first.json['tx'] as string);
  t.equal(submitted.status, 202, `the devnet accepts it: ${submitted.text}`);
  if (submitted.status !== 202) return;
  t.ok(await spent(b, slot), 'the restored UTXO is marked spent by chain sync');
  await b.close();

  // Third run: the first line's UTXO is spent, so only the second reservation comes back.
  const c = await start(t);
  t.match(restoredLine(c), { network: 'preview', restored: 1, expired: 0, gone: 1 });
  await c.close();
});
