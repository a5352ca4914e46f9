/**
 * Indexer 4.4 (the public networks since November 2026) beside 4.3: bridge claims are their own
 * transaction kind, the fee is read from `fee` (from the deprecated `fees` only where an indexer
 * lacks it), and the latest block, block and transaction detail and the summary say the protocol
 * version and its ledger era. What the indexer supports is asked once per connection and asked
 * again after a reconnect.
 */
import t from 'tap';
import { DEVNET_PROTOCOL_VERSION } from '../../packages/ledger/src/era.js';
import { networkEras } from '../../src/infra/ledger/network-eras.js';
import { BASELINE_FEATURES } from '../../src/features/stats/queries.js';
import { FakeIndexer, hashOf, type FakeTx } from '../fixtures/stats/fake-indexer.js';
import { T0, statsApp } from '../fixtures/stats/stats-app.js';

const V8 = DEVNET_PROTOCOL_VERSION[8];
const V9 = DEVNET_PROTOCOL_VERSION[9];
const RECIPIENT = hashOf('bridge-recipient');
/** 1 000 000 STAR (1 NIGHT) as the indexer sends it: a 16-byte big-endian u128 in hex. */
const ONE_NIGHT_U128 = '000000000000000000000000000f4240';

type Json = Record<string, any>;

function claim(fake: FakeIndexer): FakeTx {
  return fake.tx({ kind: 'BridgeClaimTransaction', identifiers: [], bridgeClaim: { recipient: RECIPIENT, amount: ONE_NIGHT_U128 } });
}

/** Block 0 under ledger 8, block 1 under ledger 9 with a regular transaction and a bridge claim. */
async function acrossTheSwitch(schema: 'v4.4'): Promise<{ fake: FakeIndexer; regular: FakeTx; bridge: FakeTx }> {
  const fake = await FakeIndexer.start({ schema });
  fake.addBlock(T0, [], { protocolVersion: V8 });
  const regular = fake.tx({ fee: '4242', paidFees: '1', estimatedFees: '2' });
  const bridge = claim(fake);
  fake.addBlock(T0 + 6000, [regular, bridge], { protocolVersion: V9 });
  return { fake, regular, bridge };
}

t.test('4.4: bridge claims, fee, protocol version and ledger era on every route that shows them', async (t) => {
  const { fake, regular, bridge } = await acrossTheSwitch('v4.4');
  const { get, net } = await statsApp(t, { fake, blocks: 0 });
  t.strictSame(net.features.current, { fee: true, legacyFees: true, bridgeClaims: true }, 'the probe found 4.4');

  const recent = (await get('/api/v1/mainnet/recent-transactions')).json as Json;
  t.strictSame(
    recent.transactions.map((x: Json) => [x.hash, x.kind, x.status, x.paidFees]),
    [
      [bridge.hash, 'bridge-claim', null, null],
      [regular.hash, 'regular', 'SUCCESS', '4242'],
    ],
    'a bridge claim is not a system transaction; the fee comes from fee',
  );

  const latest = (await get('/api/v1/mainnet/latest-block')).json as Json;
  t.strictSame([latest.height, latest.protocolVersion, latest.ledger], [1, V9, 9]);
  const summary = (await get('/api/v1/mainnet/summary')).json as Json;
  t.strictSame([summary.ledger, summary.latestBlock.protocolVersion, summary.latestBlock.ledger], [9, V9, 9], "the summary says the tip's era");

  const b1 = (await get('/api/v1/mainnet/block?height=1')).json as Json;
  t.strictSame([b1.protocolVersion, b1.ledger], [V9, 9]);
  t.strictSame(
    b1.transactions.map((x: Json) => [x.kind, x.protocolVersion, x.status, x.fees]),
    [
      ['regular', V9, 'SUCCESS', { paid: '4242', estimated: '2', unit: 'SPECK' }],
      ['bridge-claim', V9, null, null],
    ],
  );
  const b0 = (await get('/api/v1/mainnet/block?height=0')).json as Json;
  t.strictSame([b0.protocolVersion, b0.ledger], [V8, 8], 'a block before the switch keeps its era');

  const c = await get(`/api/v1/mainnet/transaction?hash=${bridge.hash}`);
  t.equal(c.status, 200);
  t.match(c.json, {
    hash: bridge.hash,
    kind: 'bridge-claim',
    protocolVersion: V9,
    ledger: 9,
    status: null,
    fees: null,
    identifiers: [],
    zswap: null,
    bridgeClaim: { recipient: RECIPIENT, amount: '1000000' },
  });
  const r = (await get(`/api/v1/mainnet/transaction?hash=${regular.hash}`)).json as Json;
  t.strictSame([r.kind, r.ledger, r.fees, r.bridgeClaim], ['regular', 9, { paid: '4242', estimated: '2', unit: 'SPECK' }, null]);
  t.equal(fake.count('IndexerFeatures'), 1, 'asked once, shared by the follower and the lookups');
});

t.test('an indexer without fee is read through the deprecated fees, and never sent fee', async (t) => {
  const fake = await FakeIndexer.start({ schema: 'v4.3-without-fee' });
  const tx = fake.tx({ paidFees: '2500', estimatedFees: '3000' });
  fake.addBlock(T0, [tx]);
  fake.addBlock(T0 + 6000, [fake.tx({ kind: 'SystemTransaction' })]);
  const { get, net } = await statsApp(t, { fake, blocks: 0 });
  t.strictSame(net.features.current, { fee: false, legacyFees: true, bridgeClaims: false });
  const recent = (await get('/api/v1/mainnet/recent-transactions')).json as Json;
  t.strictSame(
    recent.transactions.map((x: Json) => [x.kind, x.paidFees]),
    [
      ['system', null],
      ['regular', '2500'],
    ],
  );
  // The fake validates every document against its schema: a 200 means no unknown field was sent.
  const detail = await get(`/api/v1/mainnet/transaction?hash=${tx.hash}`);
  t.equal(detail.status, 200);
  t.strictSame((detail.json as Json).fees, { paid: '2500', estimated: '3000', unit: 'SPECK' });
  t.strictSame(((await get('/api/v1/mainnet/block?height=0')).json as Json).transactions[0].fees, { paid: '2500', estimated: '3000', unit: 'SPECK' });
  t.equal((await get('/api/v1/mainnet/latest-block')).status, 200);
});

t.test('an indexer that refuses introspection is read with the baseline documents', async (t) => {
  const fake = await FakeIndexer.start();
  fake.introspectionRefused = true;
  fake.addBlock(T0, [fake.tx({ paidFees: '70', estimatedFees: '80' })]);
  const { get, net } = await statsApp(t, { fake, blocks: 0 });
  t.strictSame(net.features.current, BASELINE_FEATURES);
  t.strictSame(((await get('/api/v1/mainnet/recent-transactions')).json as Json).transactions[0].paidFees, '70');
  t.equal(((await get('/api/v1/mainnet/latest-block')).json as Json).ledger, 8);
});

t.test('a reconnect asks again: an indexer upgraded from 4.3.7 to 4.4 behind it is read as 4.4', async (t) => {
  const fake = await FakeIndexer.start();
  fake.addBlock(T0, [fake.tx()], { protocolVersion: V8 });
  const { get, net } = await statsApp(t, { fake, blocks: 0 });
  t.strictSame(net.features.current, { fee: true, legacyFees: true, bridgeClaims: false }, '4.3.7: fee, no bridge claims');
  t.equal(fake.count('IndexerFeatures'), 1);

  fake.schema = 'v4.4';
  fake.dropSubscriptions();
  await fake.until(() => fake.count('IndexerFeatures') >= 2);
  await net.follower.waitUntil((f) => f.state === 'live' && net.features.current?.bridgeClaims === true);
  const bridge = claim(fake);
  fake.addBlock(T0 + 6000, [bridge], { protocolVersion: V9 });
  await net.follower.waitForHeight(1);
  const c = (await get(`/api/v1/mainnet/transaction?hash=${bridge.hash}`)).json as Json;
  t.strictSame([c.kind, c.ledger, c.bridgeClaim], ['bridge-claim', 9, { recipient: RECIPIENT, amount: '1000000' }]);
  t.strictSame(((await get('/api/v1/mainnet/summary')).json as Json).ledger, 9, 'the summary follows the tip into ledger 9');
});

t.test("the chain's tip sets the network's era for every feature, both ways", async (t) => {
  const fake = await FakeIndexer.start({ schema: 'v4.4' });
  fake.addBlock(T0, [], { protocolVersion: V8 });
  const { s, net } = await statsApp(t, { fake, blocks: 0 });
  const eras = networkEras(s.app.context);
  t.equal(eras.of('mainnet'), 8, 'a public network assumed on ledger 9 is read as ledger 8 from its ledger-8 tip');
  fake.addBlock(T0 + 6000, [], { protocolVersion: V9 });
  await net.follower.waitForHeight(1);
  await net.follower.settled();
  t.equal(eras.of('mainnet'), 9, 'the first ledger-9 block moves it to ledger 9');
});
