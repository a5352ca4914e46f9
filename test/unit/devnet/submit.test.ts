// POST /submit, on both ledger eras: a balanced, finalized transfer goes into the next block and is
// found by hash; a malformed or unbalanced one is refused with the ledger's reason, and the chain goes on.
import t from 'tap';
import { encodeUnshieldedAddress } from '../../../packages/ledger/src/address.js';
import { hexToBytes } from '../../../packages/devnet/src/keys.js';
import { kitFor, NIGHT_TOKEN, STAR_PER_NIGHT, type L, type LedgerKit } from '../../../packages/devnet/src/ledger-kit.js';
import { MockProver } from '../../../packages/devnet/src/mock-prover.js';
import { devnetTestAccount } from '../../../packages/devnet/src/test-accounts.js';
import { buildFinalized, type TxSpec } from '../../../packages/devnet/src/tx-builder.js';
import { Actor } from '../../../packages/devnet/src/wallet.js';
import type { Harness } from '../../fixtures/devnet/harness.js';
import { syncDust, unspentUtxos } from '../../fixtures/devnet/wallet-sync.js';
import { ERAS, startEra } from './eras.js';

const account = devnetTestAccount('preview');

async function post(h: Harness, bytes: Uint8Array): Promise<{ status: number; body: any }> {
  const res = await fetch(h.info.submitUrl, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
  return { status: res.status, body: await res.json() };
}

for (const era of ERAS) {
  const kit: LedgerKit = kitFor(era);
  const owner = new Actor(hexToBytes(account.nightSeed), kit);
  const bob = new Actor(new Uint8Array(32).fill(42), kit);

  async function transferSpec(h: Harness, withFee: boolean): Promise<{ spec: TxSpec; params: L.LedgerParameters }> {
    const client = h.ws();
    const [utxo] = await unspentUtxos(client, encodeUnshieldedAddress(owner.address, 'undeployed'));
    const { data } = await h.gql('{ block { ledgerParameters } }');
    const params = kit.L.LedgerParameters.deserialize(hexToBytes(data.block.ledgerParameters));
    const amount = 7n * STAR_PER_NIGHT;
    const spec: TxSpec = {
      signer: owner,
      inputs: [utxo as L.Utxo],
      outputs: [
        { owner: bob.address, type: NIGHT_TOKEN, value: amount },
        { owner: owner.address, type: NIGHT_TOKEN, value: (utxo as L.Utxo).value - amount },
      ],
      ...(withFee ? { payer: await syncDust(client, account.dustSeed, kit) } : {}),
    };
    return { spec, params };
  }

  t.test(`ledger ${era}: a balanced transfer lands in the next block and is found by hash`, async (t) => {
    const h = await startEra(era);
    t.teardown(() => h.close());
    const { spec, params } = await transferSpec(h, true);
    const tx = await buildFinalized(spec, {
      kit,
      networkId: 'undeployed',
      params,
      time: new Date(Math.floor(Date.now() / 1000) * 1000),
      prover: new MockProver('undeployed', kit),
    });
    const answer = await post(h, tx.serialize());
    t.equal(answer.status, 202);
    t.equal(answer.body.hash, tx.transactionHash());
    t.same(answer.body.identifiers, tx.identifiers());
    t.equal(answer.body.expectedHeight, h.network.height + 1);

    const again = await post(h, tx.serialize());
    t.equal(again.status, 409, 'the same transaction twice is refused');

    const block = await h.network.produceBlock();
    const { data, errors } = await h.gql(
      'query($hash: HexEncoded!) { transactions(offset: { hash: $hash }) { hash raw block { height } unshieldedCreatedOutputs { ' +
        'owner value } ... on RegularTransaction { transactionResult { status } fees { paidFees } } } }',
      { hash: tx.transactionHash() },
    );
    t.equal(errors, undefined);
    const [found] = data.transactions;
    t.equal(found.block.height, block.height, 'included in the next block');
    t.equal(found.raw, Buffer.from(tx.serialize()).toString('hex'), 'raw is the submitted bytes');
    t.equal(found.transactionResult.status, 'SUCCESS');
    t.ok(BigInt(found.fees.paidFees) > 0n, 'a DUST fee was paid');
    t.ok(
      found.unshieldedCreatedOutputs.some(
        (o: any) => o.owner === encodeUnshieldedAddress(bob.address, 'undeployed') && o.value === String(7n * STAR_PER_NIGHT),
      ),
      'the recipient got the NIGHT',
    );
  });

  t.test(`ledger ${era}: malformed and unbalanced submissions are refused with the ledger reason`, async (t) => {
    const h = await startEra(era);
    t.teardown(() => h.close());
    const garbage = await post(h, new Uint8Array([1, 2, 3, 4]));
    t.equal(garbage.status, 400);
    t.equal(garbage.body.code, 'DEVNET_TX_MALFORMED');
    t.match(garbage.body.error, /deserialize|header tag/i);

    const { spec, params } = await transferSpec(h, false);
    const unpaid = await buildFinalized(spec, {
      kit,
      networkId: 'undeployed',
      params,
      time: new Date(Math.floor(Date.now() / 1000) * 1000),
      prover: new MockProver('undeployed', kit),
    });
    const refused = await post(h, unpaid.serialize());
    t.equal(refused.status, 400);
    t.equal(refused.body.code, 'DEVNET_TX_REJECTED');
    t.match(refused.body.error, /balance/i, 'the ledger names the imbalance');

    const before = h.network.height;
    const block = await h.network.produceBlock();
    t.equal(block.height, before + 1, 'the chain goes on');
    const { data } = await h.gql('query($hash: HexEncoded!) { transactions(offset: { hash: $hash }) { hash } }', { hash: unpaid.transactionHash() });
    t.same(data.transactions, [], 'the refused transaction is nowhere');
  });
}
