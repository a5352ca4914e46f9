// Property, on both ledger eras: no single flipped byte in the signed part of a finalized NIGHT
// transfer (its signature or the recipient's address it signs) gets onto the devnet's chain. Each
// mutant is submitted; any that /submit accepted would be in the next block, which must hold none of them.
import fc from 'fast-check';
import t from 'tap';
import type { Era } from '../../packages/devnet/src/ledger-kit.js';
import { startNetwork } from '../fixtures/devnet/harness.js';
import { flipped, signedTransfer, submit } from '../fixtures/devnet/signed-transfer.js';

const ERAS: Era[] = [9, 8];

for (const era of ERAS) {
  t.test(`ledger ${era}: no flipped byte in a signed part lands`, async (t) => {
    const h = await startNetwork({ ledger: era });
    t.teardown(() => h.close());
    t.equal(h.network.era, era);
    const { bytes, signedOffsets } = await signedTransfer(h);
    const statuses = new Map<number, number>();
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...signedOffsets), fc.integer({ min: 1, max: 255 }), async (offset, mask) => {
        const answer = await submit(h, flipped(bytes, offset, mask));
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 202) accepted++;
        return answer.status === 400;
      }),
      { seed: 17, numRuns: 120 },
    );
    const block = await h.network.produceBlock();
    t.equal(accepted, 0, `every mutant refused (${JSON.stringify(Object.fromEntries(statuses))})`);
    t.equal(block.transactionIds.length > 0, true, 'the block still carries the devnet traffic');
    const { data } = await h.gql('query($h: Int!) { block(offset: { height: $h }) { transactions { raw } } }', { h: block.height });
    const mutantsOnChain = data.block.transactions.filter(
      (tx: { raw: string }) => Buffer.from(tx.raw, 'hex').length === bytes.length && tx.raw !== Buffer.from(bytes).toString('hex'),
    );
    t.same(mutantsOnChain, [], 'no mutant in the block');
  });
}
