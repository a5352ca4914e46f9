// The devnet on both ledger eras: genesis funds the test account and registers the server wallets
// for DUST, a DUST-paid transfer submitted to /submit lands in the next block, a DUST registration
// lands, blocks and records carry the era's protocol version, and the other era's bytes are refused.
import t from 'tap';
import { DEVNET_PROTOCOL_VERSION } from '../../../src/infra/ledger/index.js';
import { hexToBytes } from '../../../packages/devnet/src/keys.js';
import { kitFor } from '../../../packages/devnet/src/ledger-kit.js';
import { MockProver } from '../../../packages/devnet/src/mock-prover.js';
import { devnetTestAccount } from '../../../packages/devnet/src/test-accounts.js';
import { buildFinalized } from '../../../packages/devnet/src/tx-builder.js';
import { SPONSOR_DUST_UTXOS } from '../../../packages/devnet/src/genesis.js';
import { SPONSOR_SEEDS } from '../../fixtures/devnet/harness.js';
import { ERAS, latestParams, post, startEra, syncDust, testAccountTransfer, unspentNight } from './eras.js';

const account = devnetTestAccount('preview');

for (const era of ERAS) {
  const kit = kitFor(era);
  const other = era === 9 ? 8 : 9;

  t.test(`ledger ${era}: genesis, submit, transfer and DUST registration`, async (t) => {
    const h = await startEra(era);
    t.teardown(() => h.close());
    const store = h.network.store;
    t.equal(h.network.era, era);
    t.equal(h.info.ledger, era);
    t.equal(h.info.ledger9AtHeight, era === 9 ? 0 : null);
    t.equal(store.genesis?.protocolVersion, DEVNET_PROTOCOL_VERSION[era], 'genesis carries the era protocol version');
    const health = h.network.health() as { ledger: { era: number; protocolVersion: number } };
    t.equal(health.ledger.era, era);
    t.equal(health.ledger.protocolVersion, DEVNET_PROTOCOL_VERSION[era]);

    for (const seed of SPONSOR_SEEDS) {
      t.equal(syncDust(h, kit, seed).state.utxos.length, SPONSOR_DUST_UTXOS, 'a server wallet holds its genesis DUST UTXOs');
    }
    t.ok(syncDust(h, kit, account.dustSeed).state.utxos.length > 0, 'the test account holds DUST');

    const { tx, bytes, recipient } = await testAccountTransfer(h, era);
    const answer = await post(h, bytes);
    t.equal(answer.status, 202, JSON.stringify(answer.body));
    t.equal(answer.body.hash, tx.transactionHash());
    const block = await h.network.produceBlock();
    t.equal(block.protocolVersion, DEVNET_PROTOCOL_VERSION[era]);
    const [found] = store.transactionsByHash(tx.transactionHash());
    t.equal(found?.blockHeight, block.height, 'included in the next block');
    t.equal(found?.status, 'SUCCESS');
    t.equal(found?.protocolVersion, DEVNET_PROTOCOL_VERSION[era]);
    t.ok(BigInt(found?.fee ?? '0') > 0n, 'a DUST fee was paid');
    t.ok(
      found?.dustEventIds.every((id) => store.dustEvent(id)?.protocolVersion === DEVNET_PROTOCOL_VERSION[era]),
      'its DUST events carry the era',
    );
    t.ok(
      unspentNight(h, recipient.address).some((u) => u.value === 7_000_000n),
      'the recipient got the NIGHT',
    );

    // A registration of one of the test account's NIGHT UTXOs to its DUST key, fee from DUST.
    const owner = (await testAccountTransfer(h, era)).owner;
    const [utxo] = unspentNight(h, owner.address);
    const dustKey = kit.L.DustSecretKey.fromSeed(hexToBytes(account.dustSeed)).publicKey;
    const registration = await buildFinalized(
      {
        signer: owner,
        payer: syncDust(h, kit, account.dustSeed),
        inputs: [utxo!],
        outputs: [{ owner: owner.address, type: utxo!.type, value: utxo!.value }],
        registration: { dustPublicKey: dustKey, allowFeePayment: 0n },
      },
      {
        kit,
        networkId: 'undeployed',
        params: latestParams(h, kit),
        time: new Date(Math.floor(Date.now() / 1000) * 1000),
        prover: new MockProver('undeployed', kit),
      },
    );
    t.equal((await post(h, registration.serialize())).status, 202);
    const next = await h.network.produceBlock();
    const [registered] = store.transactionsByHash(registration.transactionHash());
    t.equal(registered?.blockHeight, next.height);
    t.equal(registered?.status, 'SUCCESS');

    const foreign = await testAccountTransfer(h, other).catch((err: Error) => err);
    // Another era's transaction cannot even be built against this era's parameters; its bytes are
    // made against that era's initial parameters instead.
    t.ok(foreign instanceof Error, 'the parameters of one era do not read in the other');
    const otherKit = kitFor(other);
    const bare = otherKit.L.Transaction.fromParts('undeployed').mockProve();
    const refused = await post(h, bare.serialize());
    t.equal(refused.status, 400);
    t.equal(refused.body.code, 'DEVNET_LEDGER_ERA_MISMATCH');
    t.match(refused.body.error, new RegExp(`ledger ${other} transaction .* ledger ${era}`));
  });
}
