/**
 * POST /submit and the typed client's `submit` / Midnight.js `submitTx`: a sponsored transaction
 * goes to the devnet's node through the server's submitter and lands; the same bytes again are
 * accepted as known; what is not a transaction, or what the node refuses, gets its code.
 */
import t from 'tap';
import { createClient } from '@nightgate/client';
import { nightgateMidnightProvider } from '@nightgate/client/midnight';
import { ledger } from '../../src/infra/ledger/index.js';
import { startSponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { TEST_KEY } from '../helpers/app.js';

t.test('a sponsored transfer submitted through nightgate lands', async (t) => {
  const app = await startSponsorApp();
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');
  const client = createClient({ baseUrl: app.url, apiKey: TEST_KEY, retries: false });
  const { user, utxo } = await app.fundedUser(71, 50_000_000n);
  const sponsored = await client.proveAndBalance(transferFrom(user, utxo, freshUser(72).address, 1_000n).serialize(), { network: 'preview' });
  const tx = Buffer.from(sponsored.tx, 'hex');

  const first = await client.submit(tx, { network: 'preview' });
  t.match(first, { network: 'preview', alreadyKnown: false, extrinsicHash: /^0x[0-9a-f]{64}$/ });
  const again = await client.submit(tx, { network: 'preview' });
  t.same(again, { network: 'preview', extrinsicHash: null, alreadyKnown: true }, 'the same bytes again: in the pool already');
  await app.untilSync(() => app.service.network('preview')!.table.slotEntry(sponsored.dustUtxo.slot)?.state === 'spent');
  t.pass('it landed: the DUST UTXO that paid is spent');

  await t.rejects(client.submit(new Uint8Array(Buffer.from('midnight:proof[v2]:x')), { network: 'preview' }), { status: 400, code: 'INVALID_BODY' });
  await t.rejects(client.submit(new Uint8Array(Buffer.from('midnight:transaction[v12]:garbage')), { network: 'preview' }), {
    status: 400,
    code: 'NODE_REJECTED',
    message: /The node refused the transaction: 1002/,
  });
  await t.rejects(createClient({ baseUrl: app.url, retries: false }).submit(tx, { network: 'preview' }), { status: 401, code: 'UNAUTHORIZED' });
  await t.rejects(client.submit(tx, { network: 'mainnet' }), { status: 502, code: 'NODE_UNAVAILABLE' }, 'a network without a node');
  t.ok(
    app.logs.lines.some((l) => l['audit'] === 'submission' && l['outcome'] === 'submitted' && l['keyId'] === 'env-1'),
    'an audit line per submission',
  );
});

t.test("Midnight.js' submitTx through nightgate", async (t) => {
  const app = await startSponsorApp();
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');
  const client = createClient({ baseUrl: app.url, apiKey: TEST_KEY, retries: false });
  const { user, utxo } = await app.fundedUser(73, 50_000_000n);
  const sponsored = await client.proveAndBalance(transferFrom(user, utxo, freshUser(74).address, 1_000n).serialize(), { network: 'preview' });
  const finalized = ledger(app.era).Transaction.deserialize('signature', 'proof', 'binding', Buffer.from(sponsored.tx, 'hex'));
  const id = await nightgateMidnightProvider(client, { network: 'preview' }).submitTx(finalized);
  t.equal(id, finalized.identifiers()[0], 'resolves to the first identifier');
  await app.untilSync(() => app.service.network('preview')!.table.slotEntry(sponsored.dustUtxo.slot)?.state === 'spent');
  t.pass('landed');
});
