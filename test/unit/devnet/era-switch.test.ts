// A ledger-8 network switching to ledger 9 at height H: blocks below H are ledger 8, block H starts
// a fresh ledger-9 state that re-funds the same accounts and server wallets, old blocks are still
// served with their ledger-8 bytes, each era's submissions are refused in the other, and a restart
// from the state directory resumes on ledger 9.
import t from 'tap';
import { DEVNET_PROTOCOL_VERSION, eraOfBytes } from '../../../src/infra/ledger/index.js';
import { SPONSOR_DUST_UTXOS } from '../../../packages/devnet/src/genesis.js';
import { kitFor } from '../../../packages/devnet/src/ledger-kit.js';
import { devnetTestAccount } from '../../../packages/devnet/src/test-accounts.js';
import { SPONSOR_SEEDS, tempDir } from '../../fixtures/devnet/harness.js';
import { post, startEra, syncDust, testAccountTransfer, unspentNight } from './eras.js';

const account = devnetTestAccount('preview');

t.test('ledger 8 switches to a fresh ledger 9 at the configured height', async (t) => {
  const dir = tempDir();
  t.teardown(() => dir.remove());
  let now = Date.now();
  const config = { ledger: 8 as const, ledger9AtHeight: 5, stateDir: dir.path, now: () => now };
  const h = await startEra(8, config);
  const store = h.network.store;
  t.equal(h.info.ledger, 8);
  t.equal(h.info.ledger9AtHeight, 5, 'the planned switch height is reported');
  const before = await testAccountTransfer(h, 8, { timeMs: now });
  t.equal((await post(h, before.bytes)).status, 202);
  while (h.network.height < 4) {
    now += 6000;
    await h.network.produceBlock();
  }
  const oldUtxos = unspentNight(h, before.owner.address);
  t.ok(oldUtxos.length > 0);
  const early9 = await post(h, kitFor(9).L.Transaction.fromParts('undeployed').mockProve().serialize());
  t.equal(early9.status, 400);
  t.equal(early9.body.code, 'DEVNET_LEDGER_ERA_MISMATCH');
  t.match(early9.body.error, /ledger 9 transaction .* ledger 8.*until height 5/);
  const pending8 = await testAccountTransfer(h, 8, { timeMs: now });
  t.equal((await post(h, pending8.bytes)).status, 202, 'a ledger-8 submission waits for the next block');

  now += 6000;
  const last = await h.network.produceBlock();
  t.equal(h.network.era, 9);
  t.ok(last.height > 5, 'the switch block and its setup blocks are produced together');
  for (let height = 0; height <= last.height; height++) {
    const block = store.block(height);
    t.equal(block?.protocolVersion, DEVNET_PROTOCOL_VERSION[height < 5 ? 8 : 9], `block ${height} carries its era`);
  }
  t.equal(store.block(5)?.parentHash, store.block(4)?.hash, 'the hash chain continues across the switch');
  t.equal(store.transactionsByHash(pending8.tx.transactionHash()).length, 0, 'the waiting ledger-8 submission never lands');
  const old = store.transactionsByHash(before.tx.transactionHash())[0];
  t.equal(old?.protocolVersion, DEVNET_PROTOCOL_VERSION[8]);
  t.equal(old && eraOfBytes(old.raw), 8, 'a transaction before the switch keeps its ledger-8 bytes');
  for (const u of oldUtxos) t.not(store.utxo(`${u.intentHash}#${u.outputNo}`)?.spentAtTransactionId, null, 'ledger-8 UTXOs are shown spent at the switch');

  const kit9 = kitFor(9);
  for (const seed of SPONSOR_SEEDS) {
    t.equal(syncDust(h, kit9, seed, 5).state.utxos.length, SPONSOR_DUST_UTXOS, 'a server wallet is re-funded with the same DUST UTXOs');
  }
  const health = h.network.health() as { ledger: { era: number; ledger9AtHeight: number; switch: string; ledger9State: string } };
  t.equal(health.ledger.era, 9);
  t.equal(health.ledger.ledger9AtHeight, 5);
  t.equal(health.ledger.switch, 'done');
  t.match(health.ledger.ledger9State, /fresh/);

  const late8 = await testAccountTransfer(h, 8, { timeMs: now }).catch(() => undefined);
  const bytes8 = late8?.bytes ?? kitFor(8).L.Transaction.fromParts('undeployed').mockProve().serialize();
  const refused = await post(h, bytes8);
  t.equal(refused.status, 400);
  t.equal(refused.body.code, 'DEVNET_LEDGER_ERA_MISMATCH');
  t.match(refused.body.error, /ledger 8 transaction .* ledger 9 .*height 5/);

  now = Math.max(now, (store.latestBlock?.timestamp ?? now) + 1000);
  const after = await testAccountTransfer(h, 9, { timeMs: now, payer: syncDust(h, kit9, account.dustSeed, 5) });
  t.equal((await post(h, after.bytes)).status, 202, 'ledger-9 transfers are accepted after the switch');
  now += 6000;
  const landed = await h.network.produceBlock();
  t.equal(store.transactionsByHash(after.tx.transactionHash())[0]?.blockHeight, landed.height);
  const height = h.network.height;
  await h.close();

  const resumed = await startEra(8, config);
  t.teardown(() => resumed.close());
  t.equal(resumed.network.era, 9, 'a restart resumes on ledger 9');
  t.equal(resumed.network.height, height);
  t.equal(resumed.info.ledger9AtHeight, 5);
  t.equal(resumed.network.store.block(2)?.protocolVersion, DEVNET_PROTOCOL_VERSION[8], 'blocks before the switch are still served');
  now += 6000;
  t.equal((await resumed.network.produceBlock()).protocolVersion, DEVNET_PROTOCOL_VERSION[9]);
});
