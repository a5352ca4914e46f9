// The devnet checks signatures on every live transaction, on both ledger eras: a finalized NIGHT
// transfer whose signature (or the data it signs) has a flipped byte is refused by POST /submit with
// the ledger's reason and never lands; one that also carries a Zswap offer (checked apart, dev
// proofs) likewise. The devnet's own traffic still lands, and /health says which checks run.
import t from 'tap';
import { kitFor, SHIELDED_TOKEN } from '../../../packages/devnet/src/ledger-kit.js';
import { startNetwork } from '../../fixtures/devnet/harness.js';
import { flipped, signedTransfer, submit } from '../../fixtures/devnet/signed-transfer.js';
import { ERAS, startEra } from './eras.js';

for (const era of ERAS) {
  const kit = kitFor(era);

  t.test(`ledger ${era}: a transfer with a flipped byte in its signature is refused with the ledger reason`, async (t) => {
    const h = await startEra(era);
    t.teardown(() => h.close());
    const { tx, bytes, signedOffsets } = await signedTransfer(h);
    const forged = flipped(bytes, signedOffsets[10] as number);
    const refused = await submit(h, forged);
    t.equal(refused.status, 400);
    t.equal(refused.body.code, 'DEVNET_TX_REJECTED');
    t.match(refused.body.error, /signature verification failed/);

    const accepted = await submit(h, bytes);
    t.equal(accepted.status, 202, 'the untouched transfer is accepted');
    const block = await h.network.produceBlock();
    const { data } = await h.gql('query($hash: HexEncoded!) { transactions(offset: { hash: $hash }) { block { height } } }', { hash: tx.transactionHash() });
    t.same(data.transactions, [{ block: { height: block.height } }], 'and lands');
  });

  t.test(`ledger ${era}: a transfer carrying a Zswap offer has its signatures checked too`, async (t) => {
    const h = await startEra(era);
    t.teardown(() => h.close());
    const { L } = kit;
    const keys = L.ZswapSecretKeys.fromSeed(new Uint8Array(32).fill(5));
    const zswap = L.ZswapOffer.fromOutput(L.ZswapOutput.new(L.createShieldedCoinInfo(SHIELDED_TOKEN, 5n), 0, keys.coinPublicKey, keys.encryptionPublicKey));
    const { bytes, signedOffsets } = await signedTransfer(h, { zswap });

    const forged = await submit(h, flipped(bytes, signedOffsets[3] as number));
    t.equal(forged.status, 400);
    t.match(forged.body.error, /signature verification failed/);

    // Signed correctly, it gets past the signatures to the ledger's own checks: this output mints
    // shielded tokens from nothing, which balancing refuses.
    const unbalanced = await submit(h, bytes);
    t.equal(unbalanced.status, 400);
    t.notMatch(unbalanced.body.error, /signature/);
    t.match(unbalanced.body.error, /balance/i);
  });

  t.test(`ledger ${era}: the devnet's own traffic lands with signatures checked, and /health says what is checked`, async (t) => {
    const dropped: Array<{ msg: string; obj: object }> = [];
    const log = {
      debug: () => undefined,
      info: () => undefined,
      warn: (obj: object, msg: string) => dropped.push({ obj, msg }),
      error: (obj: object, msg: string) => dropped.push({ obj, msg }),
    };
    const h = await startNetwork({ ledger: era }, log);
    t.teardown(() => h.close());
    // The next six blocks: NIGHT transfers, two shielded transfers (heights divisible by 3), a
    // re-registration (height 5 mod 10), a contract deploy (the first live block) and calls.
    const head = h.network.height;
    const [s, u] = [1, 2, 3, 4, 5, 6].map((i) => head + i).filter((height) => height % 3 === 0) as [number, number];
    while (h.network.height < head + 6) await h.network.produceBlock();
    t.same(dropped, [], 'nothing the devnet built was refused or skipped');
    const { data } = await h.gql(
      `{ s: block(offset: { height: ${s} }) { transactions { hash } } t: block(offset: { height: ${u} }) { transactions { hash } } }`,
    );
    t.ok(data.s.transactions.length >= 2 && data.t.transactions.length >= 2, 'blocks with a shielded transfer carry it beside the NIGHT transfer');

    const health = (await (await fetch(new URL('/health', h.info.submitUrl))).json()) as { checks: unknown };
    t.same(health.checks, { signatures: true, balancing: true, limits: true, proofs: 'not verified (dev proofs)' });
  });
}
