// Genesis registers the sponsor DUST keys with SPONSOR_DUST_UTXOS UTXOs each, dated in the past so
// DUST has accrued: a consumer replaying `dustLedgerEvents` holds a positive balance, and the
// event stream continues, in order, with every new block.
import t from 'tap';
import { SPONSOR_DUST_UTXOS } from '../../../packages/devnet/src/genesis.js';
import { kitFor } from '../../../packages/devnet/src/ledger-kit.js';
import { SPONSOR_SEEDS, take } from '../../fixtures/devnet/harness.js';
import { ERAS, startEra, syncDust } from './eras.js';

const DUST_EVENTS = 'subscription($id: Int) { dustLedgerEvents(id: $id) { __typename id raw maxId } }';

for (const era of ERAS)
  t.test(`ledger ${era}: sponsor DUST keys are funded, registered and accruing from genesis`, async (t) => {
    const h = await startEra(era);
    t.teardown(() => h.close());
    const client = h.ws();
    for (const seed of SPONSOR_SEEDS) {
      const wallet = syncDust(h, kitFor(era), seed);
      t.equal(wallet.state.utxos.length, SPONSOR_DUST_UTXOS, 'one DUST UTXO per registered NIGHT output');
      t.ok(wallet.state.walletBalance(new Date()) > 0n, 'DUST has accrued since genesis');
    }
    const [first] = await take<any>(client, DUST_EVENTS, { id: 1 }, 1);
    const events = (await take<any>(client, DUST_EVENTS, { id: 1 }, first.dustLedgerEvents.maxId)).map((e) => e.dustLedgerEvents);
    t.same(
      events.map((e) => e.id),
      Array.from({ length: events.length }, (_, i) => i + 1),
      'event ids are consecutive from 1, in order',
    );
    t.ok(
      events.every((e) => e.maxId === events.length),
      'maxId is the highest id',
    );

    await h.network.produceBlock();
    const { data } = await h.gql('{ block { transactions { dustLedgerEvents { id } } } }');
    const fresh = data.block.transactions.flatMap((tx: any) => tx.dustLedgerEvents.map((e: any) => e.id));
    t.ok(fresh.length > 0, 'the new block carries DUST events');
    t.equal(fresh[0], events.length + 1, 'they continue the id sequence');
  });

t.test('a new genesis starts with a head dated now: the chain reads live before its first scheduled block', async (t) => {
  const now = Date.parse('2026-12-07T12:00:00Z');
  const h = await startEra(9, { genesisAgeMs: 6 * 60 * 60 * 1000, now: () => now });
  t.teardown(() => h.close());
  const { data } = await h.gql('{ block { height timestamp transactions { hash } } }');
  t.equal(data.block.timestamp, now, 'the newest block is dated at start');
  t.same(data.block.transactions, [], 'and holds nothing');
  const { data: setup } = await h.gql(`{ block(offset: { height: ${data.block.height - 1} }) { timestamp } }`);
  t.ok(setup.block.timestamp < now - 5 * 60 * 60 * 1000, 'the setup blocks before it keep their past dates');
});
