// POST /faucet pays NIGHT to a fresh address in the next block; the payout shows through the
// `unshieldedTransactions` subscription and GraphQL. Bad input is refused with 400.
import t from 'tap';
import { encodeUnshieldedAddress } from '../../../packages/ledger/src/address.js';
import { kitFor } from '../../../packages/devnet/src/ledger-kit.js';
import { Actor } from '../../../packages/devnet/src/wallet.js';

// Addresses are the same in both eras; the default era's keys make them.
const kit = kitFor(9);
import { startNetwork, subscribe, type Harness } from '../../fixtures/devnet/harness.js';

async function faucet(h: Harness, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(h.info.faucetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const UNSHIELDED = `subscription($address: UnshieldedAddress!) { unshieldedTransactions(address: $address) {
  __typename
  ... on UnshieldedTransaction { transaction { id hash block { height } } createdUtxos { owner value tokenType ctime registeredForDustGeneration } spentUtxos {
value } }
  ... on UnshieldedTransactionsProgress { highestTransactionId }
} }`;

t.test('a fresh Bech32m address is funded in the next block', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  const fresh = new Actor(new Uint8Array(32).fill(9), kit);
  const bech32 = encodeUnshieldedAddress(fresh.address, 'undeployed');
  t.match(bech32, /^mn_addr_undeployed1/);

  const answer = await faucet(h, { address: bech32, amount: '123000000' });
  t.equal(answer.status, 202);
  t.same(answer.body, { accepted: true, address: fresh.address, amount: '123000000', queued: 1 });

  const feed = subscribe<any>(h.ws(), UNSHIELDED, { address: bech32 });
  const events = [(await feed.next()).unshieldedTransactions];
  const block = await h.network.produceBlock();
  events.push((await feed.next()).unshieldedTransactions, (await feed.next()).unshieldedTransactions);
  await feed.close();
  t.same(
    events.map((e) => e.__typename),
    ['UnshieldedTransactionsProgress', 'UnshieldedTransaction', 'UnshieldedTransactionsProgress'],
  );
  t.equal(events[0].highestTransactionId, 0, 'nothing known before the payout');
  const payout = events[1];
  t.equal(payout.transaction.block.height, block.height);
  t.same(
    payout.createdUtxos.map((u: any) => [u.owner, u.value, u.registeredForDustGeneration]),
    [[bech32, '123000000', false]],
  );
  t.equal(payout.createdUtxos[0].ctime, Math.floor(block.timestamp / 1000), 'ctime is in seconds');
  t.equal(events[2].highestTransactionId, payout.transaction.id);
});

t.test('hex addresses work; bad addresses and amounts are refused', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  const fresh = new Actor(new Uint8Array(32).fill(10), kit);
  t.equal((await faucet(h, { address: fresh.address, amount: 5 })).status, 202);
  const badAddress = await faucet(h, { address: 'mn_addr_undeployed1qqqq', amount: '1' });
  t.equal(badAddress.status, 400);
  t.equal(badAddress.body.code, 'DEVNET_FAUCET_BAD_ADDRESS');
  for (const amount of ['0', '-1', '1.5', 1.5, '1000000000000000000000']) {
    const bad = await faucet(h, { address: fresh.address, amount });
    t.equal(bad.status, 400, `amount ${JSON.stringify(amount)}`);
    t.equal(bad.body.code, 'DEVNET_FAUCET_BAD_AMOUNT');
  }
});
