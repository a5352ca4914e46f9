// Genesis registers the sponsor DUST keys with SPONSOR_DUST_UTXOS UTXOs each, dated in the past so
// DUST has accrued: a consumer replaying `dustLedgerEvents` holds a positive balance, and the
// event stream continues, in order, with every new block.
import t from 'tap';
import { SPONSOR_DUST_UTXOS } from '../../../src/devnet/genesis.js';
import { SPONSOR_SEEDS, startNetwork } from '../../fixtures/devnet/harness.js';
import { allDustEvents, syncDust } from '../../fixtures/devnet/wallet-sync.js';

t.test('sponsor DUST keys are funded, registered and accruing from genesis', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  const client = h.ws();
  for (const seed of SPONSOR_SEEDS) {
    const wallet = await syncDust(client, seed);
    t.equal(wallet.state.utxos.length, SPONSOR_DUST_UTXOS, 'one DUST UTXO per registered NIGHT output');
    t.ok(wallet.state.walletBalance(new Date()) > 0n, 'DUST has accrued since genesis');
  }
  const events = await allDustEvents(client);
  t.same(
    events.map((e) => e.id),
    Array.from({ length: events.length }, (_, i) => i + 1),
    'event ids are consecutive from 1, in order',
  );
  t.ok(events.every((e) => e.maxId === events.length), 'maxId is the highest id');

  await h.network.produceBlock();
  const { data } = await h.gql('{ block { transactions { dustLedgerEvents { id } } } }');
  const fresh = data.block.transactions.flatMap((tx: any) => tx.dustLedgerEvents.map((e: any) => e.id));
  t.ok(fresh.length > 0, 'the new block carries DUST events');
  t.equal(fresh[0], events.length + 1, 'they continue the id sequence');
});
