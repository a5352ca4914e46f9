// The indexer keeps the newest `retainBlocks` blocks in memory (it kept every block, so
// the devnet grew with every block it produced). Blocks come from produceBlock() only, so every
// size below is taken at an exact height; nothing waits on a timer.
import t from 'tap';
import { startNetwork, subscribe, take, tempDir } from '../../fixtures/devnet/harness.js';
import type { StoreSizes } from '../../../packages/devnet/src/indexer-store.js';

const RETAIN = 5;
/** The synthetic traffic repeats every 60 blocks (traffic.ts); half a period either side. */
const HALF_PERIOD = 30;

const BLOCK_AT = 'query($h: Int!) { block(offset: { height: $h }) { height hash transactions { hash } } }';
const DUST_EVENTS = 'subscription($id: Int) { dustLedgerEvents(id: $id) { id raw } }';
const BLOCKS_FROM = 'subscription($h: Int!) { blocks(offset: { height: $h }) { height hash } }';

/** The message a rejected subscription ends with. */
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof Error ? `${err.name}: ${err.message}` : JSON.stringify(err);
  }
  return 'no error';
}

t.test('every collection of the indexer stops growing once it holds retainBlocks blocks', async (t) => {
  const h = await startNetwork({ retainBlocks: RETAIN });
  t.teardown(() => h.close());
  const produced: number[][] = [];
  const sizes: StoreSizes[] = [];
  for (let i = 0; i < RETAIN + 2 * HALF_PERIOD; i++) {
    produced.push((await h.network.produceBlock()).transactionIds);
    sizes.push(h.network.store.sizes());
  }
  const steady = sizes.slice(RETAIN);
  t.ok(
    steady.every((s) => s.blocks === RETAIN && s.blockHashes === RETAIN),
    `exactly ${RETAIN} blocks held, by height and by hash`,
  );
  const last = sizes.at(-1)!;
  t.equal(last.transactions, produced.slice(-RETAIN).flat().length, 'the transactions of those blocks, no more');
  t.ok(last.transactionHashes <= last.transactions && last.identifiers <= 4 * last.transactions, 'lookups index only those');
  const first = steady.slice(0, HALF_PERIOD);
  const second = steady.slice(HALF_PERIOD);
  for (const key of Object.keys(last) as Array<keyof StoreSizes>) {
    const before = Math.max(...first.map((s) => s[key]));
    const after = Math.max(...second.map((s) => s[key]));
    // Growth would show as far more: the held blocks are exact (above). The traffic's block times
    // are the wall clock's, so a transaction the devnet defers to the next block can shift one
    // window by one or two entries: a fifth (at least one) of slack.
    const slack = Math.max(1, Math.ceil(before / 5));
    t.ok(after <= before + slack, `${key}: at most ${after} over the last ${HALF_PERIOD} blocks, ${before} over the ${HALF_PERIOD} before (slack ${slack})`);
  }
  t.match(h.network.health(), { retainedBlocks: RETAIN, oldestRetainedHeight: h.network.height - RETAIN + 1, olderBlocks: 'pruned' });
});

t.test('without a state directory, older blocks are pruned: absent from queries, refused by feeds', async (t) => {
  const h = await startNetwork({ retainBlocks: RETAIN });
  t.teardown(() => h.close());
  const early = await h.network.produceBlock();
  const earlyTx = (await h.gql(BLOCK_AT, { h: early.height })).data.block.transactions[0].hash as string;
  // A client following the tip is served every block while older ones leave the history.
  const follower = subscribe<any>(h.ws(), 'subscription { blocks { height } }');
  t.equal((await follower.next()).blocks.height, early.height);
  const followed: number[] = [];
  for (let i = 0; i < 6 * RETAIN; i++) {
    await h.network.produceBlock();
    followed.push((await follower.next()).blocks.height);
  }
  await follower.close();
  t.same(
    followed,
    Array.from({ length: 6 * RETAIN }, (_, i) => early.height + 1 + i),
    'every block, in order',
  );

  const oldest = h.network.store.oldestRetainedHeight;
  const below = await Promise.all(Array.from({ length: oldest - 1 }, (_, i) => h.gql(BLOCK_AT, { h: i + 1 })));
  t.ok(
    below.every((r) => r.errors === undefined),
    'heights below the history answer without errors',
  );
  // A block also stays while a held UTXO record refers to one of its transactions (indexer-store.ts).
  t.ok(
    below.some((r) => r.data.block === null),
    'pruned heights answer null',
  );
  t.equal((await h.gql(BLOCK_AT, { h: 0 })).data.block.height, 0, 'genesis is always kept');
  t.equal((await h.gql(BLOCK_AT, { h: oldest })).data.block.height, oldest, 'the oldest retained block is served');
  t.same(
    (await h.gql('query($x: HexEncoded!) { transactions(offset: { hash: $x }) { id } }', { x: earlyTx })).data.transactions,
    [],
    'a pruned transaction is not found by hash',
  );
  t.match(
    await failure(take(h.ws(), BLOCKS_FROM, { h: early.height }, 1)),
    /block \d+ is older than this devnet keeps/,
    'a block feed from a pruned height fails',
  );
  t.match(
    await failure(take(h.ws(), DUST_EVENTS, { id: 1 }, 1)),
    /DUST ledger event 1 is older than this devnet keeps/,
    'a DUST event feed from a pruned id fails',
  );
  const fromOldest = await take<any>(h.ws(), BLOCKS_FROM, { h: oldest }, RETAIN);
  t.same(
    fromOldest.map((d) => d.blocks.height),
    Array.from({ length: RETAIN }, (_, i) => oldest + i),
    'a feed from the oldest retained height replays it all',
  );
});

t.test('with a state directory, older blocks and events are read back from it, also after a restart', async (t) => {
  const dir = tempDir();
  t.teardown(() => dir.remove());
  const first = await startNetwork({ stateDir: dir.path, retainBlocks: 3 });
  for (let i = 0; i < 8; i++) await first.network.produceBlock();
  const tip = first.network.height;
  const events = first.network.store.maxDustEventId;
  const dust = (await take<any>(first.ws(), DUST_EVENTS, { id: 1 }, events)).map((d) => d.dustLedgerEvents);
  t.same(
    dust.map((e) => e.id),
    Array.from({ length: events }, (_, i) => i + 1),
    'every DUST event from id 1, in order',
  );
  const blocks = (await take<any>(first.ws(), BLOCKS_FROM, { h: 0 }, tip + 1)).map((d) => d.blocks);
  t.same(
    blocks.map((b) => b.height),
    Array.from({ length: tip + 1 }, (_, i) => i),
    'every block from genesis',
  );
  const old = (await first.gql(BLOCK_AT, { h: 2 })).data.block;
  t.equal(old.hash, blocks[2].hash, 'an archived block by height');
  t.ok(old.transactions.length > 0, 'with its transactions');
  t.match(first.network.health(), { olderBlocks: 'served from the state directory' });
  await first.close();

  const second = await startNetwork({ stateDir: dir.path, retainBlocks: 3 });
  t.teardown(() => second.close());
  t.equal(second.network.height, tip, 'resumed at the same height');
  t.equal(second.network.store.sizes().blocks, 3, 'holding only the newest blocks in memory');
  const again = (await take<any>(second.ws(), DUST_EVENTS, { id: 1 }, events)).map((d) => d.dustLedgerEvents);
  t.same(again, dust, 'the same DUST events replayed from disk');
  t.same((await second.gql(BLOCK_AT, { h: 2 })).data.block, old, 'the same archived block');
  const next = await second.network.produceBlock();
  t.equal(next.height, tip + 1, 'the chain continues');
});
