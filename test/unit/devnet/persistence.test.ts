// With a state directory, a restarted network resumes at the same height and hash, serves the same
// history, and keeps producing valid blocks.
import t from 'tap';
import { startNetwork, tempDir } from '../../fixtures/devnet/harness.js';

t.test('stop and restart with the same stateDir resumes the chain', async (t) => {
  const dir = tempDir();
  t.teardown(() => dir.remove());
  const first = await startNetwork({ stateDir: dir.path });
  await first.network.produceBlock();
  const tip = await first.network.produceBlock();
  const before = await first.gql('{ block { height hash transactions { hash } } }');
  await first.close();

  const second = await startNetwork({ stateDir: dir.path });
  t.teardown(() => second.close());
  t.equal(second.network.height, tip.height, 'same height');
  const after = await second.gql('{ block { height hash transactions { hash } } }');
  t.same(after.data, before.data, 'same latest block');
  const next = await second.network.produceBlock();
  t.equal(next.height, tip.height + 1, 'the chain continues');
  t.ok(next.transactionIds.length > 0, 'with synthetic traffic that the ledger accepted');
});

t.test('a state dir made from another genesis is refused', async (t) => {
  const dir = tempDir();
  t.teardown(() => dir.remove());
  const first = await startNetwork({ stateDir: dir.path });
  await first.close();
  await t.rejects(startNetwork({ stateDir: dir.path, seed: 'another-seed' }), { code: 'DEVNET_STATE_MISMATCH' });
});
