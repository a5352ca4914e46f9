// /submit answers DUST failures as a node does (`1010: Invalid Transaction: Custom error: N`, with
// the code and name beside the devnet's own body), on both eras: 196 for a DUST UTXO spent twice,
// 171 for a spend outside the validity window (also when only the mempool's block two slots ahead
// would see it so), 173 for a registration allowance beyond the DUST its NIGHT generated.
import t from 'tap';
import { hexToBytes } from '../../../packages/devnet/src/keys.js';
import { kitFor } from '../../../packages/devnet/src/ledger-kit.js';
import { MockProver } from '../../../packages/devnet/src/mock-prover.js';
import { dustRejectionOf, MEMPOOL_LOOKAHEAD_MS } from '../../../packages/devnet/src/node-rejections.js';
import { devnetTestAccount } from '../../../packages/devnet/src/test-accounts.js';
import { buildFinalized } from '../../../packages/devnet/src/tx-builder.js';
import { ERAS, latestParams, post, startEra, syncDust, testAccountTransfer, unspentNight } from './eras.js';

const account = devnetTestAccount('preview');
const GRACE_MS = 3 * 60 * 60 * 1000;

t.test('ledger reasons map to node codes', async (t) => {
  t.equal(dustRejectionOf('attempted to double spend Dust UTXO with nullifier 12ab'), 'DustDoubleSpend');
  t.equal(dustRejectionOf('dust is outside of its validity window (declared time: Timestamp(1), window: [...])'), 'OutOfDustValidityWindow');
  t.equal(dustRejectionOf('insufficient dust to cover registration fee allowance: 0 available, 5 requested'), 'InsufficientDustForRegistrationFee');
  t.equal(dustRejectionOf('dust spend proof failed to verify; this is just as likely a disagreement'), 'InvalidDustSpendProof');
  t.equal(dustRejectionOf('invalid balance -3 for token Dust in segment 0'), undefined);
});

for (const era of ERAS) {
  const kit = kitFor(era);

  t.test(`ledger ${era}: DUST rejections carry the node's codes`, async (t) => {
    let now = Date.now();
    const h = await startEra(era, { genesisAgeMs: 5 * 60 * 60 * 1000, now: () => now });
    t.teardown(() => h.close());

    // A wallet that has not seen the block spending its DUST UTXO spends it again.
    const stale = syncDust(h, kit, account.dustSeed);
    const a = await testAccountTransfer(h, era, { payer: stale, timeMs: now });
    t.equal((await post(h, a.bytes)).status, 202);
    now += 6000;
    await h.network.produceBlock();
    const [utxo] = unspentNight(h, a.owner.address);
    stale.replay(new Uint8Array());
    const again = await testAccountTransfer(h, era, {
      payer: stale,
      timeMs: now,
      spec: { inputs: [utxo!], outputs: [{ owner: a.owner.address, type: utxo!.type, value: utxo!.value }] },
    });
    const doubled = await post(h, again.bytes);
    t.equal(doubled.status, 400, JSON.stringify(doubled.body));
    t.equal(doubled.body.code, 'DEVNET_TX_REJECTED');
    t.same(doubled.body.nodeError, { code: 1010, customError: 196, name: 'DustDoubleSpend' });
    t.match(doubled.body.error, /^1010: Invalid Transaction: Custom error: 196/);

    // ctime ahead of the next block: outside the window now.
    const future = await buildWithCtime(now, now + 60_000);
    const early = await post(h, future.serialize());
    t.equal(early.status, 400);
    t.equal(early.body.nodeError?.customError, 171, JSON.stringify(early.body));
    t.equal(early.body.nodeError?.name, 'OutOfDustValidityWindow');

    // ctime inside the window at the next block, but not in a block two slots ahead: the mempool's 171.
    const edge = await buildWithCtime(now, now - GRACE_MS + MEMPOOL_LOOKAHEAD_MS / 2);
    const late = await post(h, edge.serialize());
    t.equal(late.status, 400);
    t.equal(late.body.nodeError?.customError, 171, JSON.stringify(late.body));
    // The same spend with room for the mempool's look-ahead is accepted.
    const roomy = await buildWithCtime(now, now - GRACE_MS + 3 * MEMPOOL_LOOKAHEAD_MS);
    t.equal((await post(h, roomy.serialize())).status, 202);

    // A registration asking more fee allowance than its NIGHT generated, with no DUST spend.
    const [night] = unspentNight(h, a.owner.address).slice(-1);
    const registration = await buildFinalized(
      {
        signer: a.owner,
        inputs: [night!],
        outputs: [{ owner: a.owner.address, type: night!.type, value: night!.value }],
        registration: { dustPublicKey: kit.L.DustSecretKey.fromSeed(hexToBytes(account.dustSeed)).publicKey, allowFeePayment: 10n ** 30n },
      },
      { kit, networkId: 'undeployed', params: latestParams(h, kit), time: new Date(Math.floor(now / 1000) * 1000), prover: new MockProver('undeployed', kit) },
    );
    const fee = await post(h, registration.serialize());
    t.equal(fee.status, 400);
    t.same(fee.body.nodeError, { code: 1010, customError: 173, name: 'InsufficientDustForRegistrationFee' });

    /** A transfer of the test account's smallest NIGHT UTXO, built at `timeMs` with its DUST spend declared at `ctimeMs`. */
    async function buildWithCtime(timeMs: number, ctimeMs: number) {
      const owner = a.owner;
      const [u] = unspentNight(h, owner.address).slice(-1);
      return buildFinalized(
        { signer: owner, payer: syncDust(h, kit, account.dustSeed), inputs: [u!], outputs: [{ owner: owner.address, type: u!.type, value: u!.value }] },
        {
          kit,
          networkId: 'undeployed',
          params: latestParams(h, kit),
          time: new Date(Math.floor(timeMs / 1000) * 1000),
          dustTime: new Date(Math.floor(ctimeMs / 1000) * 1000),
          prover: new MockProver('undeployed', kit),
        },
      );
    }
  });
}
