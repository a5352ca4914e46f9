// The `blocks` subscription replays from its offset, then follows the chain live: every block once,
// in order, also across a reconnect that resumes at the next height.
import t from 'tap';
import { startNetwork, subscribe, take } from '../../fixtures/devnet/harness.js';

const BLOCKS = 'subscription($height: Int!) { blocks(offset: { height: $height }) { height hash parent { hash } timestamp } }';

t.test('every block once, in order, across a reconnect', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  const seen: any[] = [];

  const first = h.ws();
  const live = take<any>(first, BLOCKS, { height: 0 }, h.network.height + 3);
  await h.network.produceBlock();
  await h.network.produceBlock();
  seen.push(...(await live).map((d) => d.blocks));
  await first.dispose();

  // Blocks produced while no client listens are replayed on reconnect.
  await h.network.produceBlock();
  await h.network.produceBlock();
  const second = h.ws();
  const resumed = take<any>(second, BLOCKS, { height: seen.length }, 3);
  await h.network.produceBlock();
  seen.push(...(await resumed).map((d) => d.blocks));

  t.same(
    seen.map((b) => b.height),
    Array.from({ length: h.network.height + 1 }, (_, i) => i),
    'heights 0..tip, each once',
  );
  for (let i = 1; i < seen.length; i++) {
    t.equal(seen[i].parent.hash, seen[i - 1].hash, `block ${i} links to its parent`);
    t.ok(seen[i].timestamp > seen[i - 1].timestamp, `block ${i} is later than its parent`);
  }
});

t.test('without an offset the feed starts at the latest block', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  const tip = h.network.height;
  const feed = subscribe<any>(h.ws(), 'subscription { blocks { height } }');
  t.equal((await feed.next()).blocks.height, tip, 'starts at the tip');
  await h.network.produceBlock();
  t.equal((await feed.next()).blocks.height, tip + 1, 'then follows live');
  await feed.close();
});
