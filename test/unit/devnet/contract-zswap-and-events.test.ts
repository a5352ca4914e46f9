// The indexer 4.4 fields Midnight.js 5 reads that the devnet now serves from its chain:
// `Block.contractZswapState` (the commitment tree after the block, filtered to a contract) at every
// block it holds, and contract events (`Query.contractEvents`, `Subscription.contractEvents`,
// `ContractCall.contractEvents`) decoded from what a contract logs. Blocks come from produceBlock()
// only; the events from a contract the test deploys (test/fixtures/devnet/event-contract.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import t from 'tap';
import { decodeContractLog } from '../../../packages/devnet/src/contract-events.js';
import { contractZswapTrees } from '../../../packages/devnet/src/contract-zswap.js';
import type { BlockBundle } from '../../../packages/devnet/src/indexer-records.js';
import { bytesToHex } from '../../../packages/devnet/src/keys.js';
import { kitFor, release, type L } from '../../../packages/devnet/src/ledger-kit.js';
import { atom, concat, EMIT, EventContract, filled, le, LOG_TYPE, type LoggedEvent } from '../../fixtures/devnet/event-contract.js';
import { startNetwork, subscribe, take, tempDir, type Harness } from '../../fixtures/devnet/harness.js';

const ZSWAP_AT = 'query($h: Int!, $a: HexEncoded!) { block(offset: { height: $h }) { contractZswapState(address: $a) } }';
const cell = (bytes: Uint8Array): L.EncodedStateValue => ({ tag: 'cell', content: atom(bytes) });
function decode(eventType: string, data: L.EncodedStateValue): NonNullable<ReturnType<typeof decodeContractLog>> {
  const decoded = decodeContractLog({ address: 'aa'.repeat(32), entryPoint: EMIT, loggedItem: { version: 3, eventType, data } });
  if (!decoded) throw new Error(`${eventType} not decoded`);
  return decoded;
}

/** The chain's own filtered tree for `address` now (what the indexer loads from the ledger state). */
function chainTree(h: Harness, address: string): string {
  const zswap = h.network.context().zswapState();
  const tree = zswap.filter(address);
  try {
    return bytesToHex(tree.serialize());
  } finally {
    release(tree, zswap);
  }
}

t.test("contract log data decodes into each type's fields, as indexer 4.4 lays them out", async (t) => {
  const either = (user: boolean, key: Uint8Array) => (user ? concat([1], key, filled(0)) : concat([0], filled(0), key));
  t.strictSame(decode('shielded-spend', cell(filled(0x11))), { typename: 'ShieldedSpendEvent', version: 3, fields: { nullifier: '11'.repeat(32) } });
  t.strictSame(decode('shielded-receive', cell(concat(filled(0x22), [1], filled(0x33, 512), [1], filled(0x44)))), {
    typename: 'ShieldedReceiveEvent',
    version: 3,
    fields: { commitment: '22'.repeat(32), ciphertext: '33'.repeat(512), receivingContractAddress: '44'.repeat(32) },
  });
  t.strictSame(
    decode('shielded-receive', cell(filled(0x22))).fields,
    { commitment: '22'.repeat(32), ciphertext: null, receivingContractAddress: null },
    'stripped Maybes are absent',
  );
  t.strictSame(decode('shielded-mint', cell(concat(filled(0x55), filled(0x66), [1], le(1234n, 16)))).fields, {
    commitment: '55'.repeat(32),
    domainSep: '66'.repeat(32),
    amount: '1234',
  });
  t.strictSame(
    decode('shielded-burn', cell(concat(filled(0x77), [0], le(9n, 16)))).fields,
    { nullifier: '77'.repeat(32), amount: null },
    'a Maybe tagged 0 is absent',
  );
  t.strictSame(decode('unshielded-spend', cell(concat(either(true, filled(0x01)), filled(0x02), filled(0x03), le(2n ** 100n, 16)))).fields, {
    sender: { kind: 'USER', userAddress: '01'.repeat(32), contractAddress: null },
    domainSep: '02'.repeat(32),
    tokenType: '03'.repeat(32),
    amount: (2n ** 100n).toString(),
  });
  t.strictSame(
    decode('unshielded-receive', cell(concat(either(false, filled(0x04)), filled(0x05), filled(0x06)))).fields,
    {
      recipient: { kind: 'CONTRACT', userAddress: null, contractAddress: '04'.repeat(32) },
      domainSep: '05'.repeat(32),
      tokenType: '06'.repeat(32),
      amount: '0',
    },
    'a zero amount stripped whole',
  );
  t.strictSame(decode('unshielded-mint', cell(concat(filled(0x07), filled(0x08), le(5n, 16)))).fields, {
    domainSep: '07'.repeat(32),
    tokenType: '08'.repeat(32),
    amount: '5',
  });
  t.strictSame(decode('unshielded-burn', cell(concat(either(true, filled(0x09)), filled(0x0a), le(6n, 16)))).fields, {
    sender: { kind: 'USER', userAddress: '09'.repeat(32), contractAddress: null },
    tokenType: '0a'.repeat(32),
    amount: '6',
  });
  t.strictSame(decode('misc', cell(concat(filled(0x0b), [7, 8]))).fields, { name: '0b'.repeat(32), payload: '0708' + '00'.repeat(254) });
  t.strictSame(decode('paused', { tag: 'null' }), { typename: 'PausedEvent', version: 3, fields: {} });
  t.strictSame(decode('unpaused', { tag: 'null' }), { typename: 'UnpausedEvent', version: 3, fields: {} });
  // Another shape keeps the event, with empty fields.
  t.strictSame(
    decode('unshielded-spend', cell(filled(0x01, 113))).fields,
    {
      sender: { kind: 'USER', userAddress: '', contractAddress: null },
      domainSep: '',
      tokenType: '',
      amount: '0',
    },
    'too short: the superseded layout without domainSep',
  );
  t.strictSame(decode('shielded-spend', { tag: 'cell', content: { value: [filled(1), filled(2)], alignment: [] } }).fields, { nullifier: '' }, 'two atoms');
  t.strictSame(decode('misc', { tag: 'array', content: [] }).fields, { name: '', payload: '' }, 'not a cell');
  t.equal(
    decodeContractLog({ address: 'aa'.repeat(32), entryPoint: EMIT, loggedItem: { version: 1, eventType: 'something-new', data: { tag: 'null' } } }),
    undefined,
    'a type the schema does not have',
  );
});

t.test('a contract that owns commitments gets its own tree, every other one the collapsed tree', async (t) => {
  const { L } = kitFor(9);
  const owner = 'ab'.repeat(32);
  const keys = L.ZswapSecretKeys.fromSeed(new Uint8Array(32).fill(3));
  const token = L.shieldedToken().raw;
  const offer = L.ZswapOffer.fromOutput(L.ZswapOutput.new(L.createShieldedCoinInfo(token, 5n), 0, keys.coinPublicKey, keys.encryptionPublicKey)).merge(
    L.ZswapOffer.fromOutput(L.ZswapOutput.newContractOwned(L.createShieldedCoinInfo(token, 7n), 0, owner)),
  );
  const [applied] = new L.ZswapChainState().tryApply(offer);
  // As after a block: hashes computed. (`L` is typed after ledger 8, whose update takes no retention.)
  const postBlockUpdate = applied.postBlockUpdate.bind(applied) as unknown as (tblock: Date, retentionSeconds: bigint) => L.ZswapChainState;
  const zswap = postBlockUpdate(new Date(), 3600n);
  const trees = contractZswapTrees(zswap, [owner]);
  const filter = (a: string) => bytesToHex(zswap.filter(a).serialize());
  t.equal(bytesToHex(trees.owners[owner]!), filter(owner), 'the owner: ZswapChainState.filter');
  t.equal(bytesToHex(trees.collapsed), filter('cd'.repeat(32)), 'any other contract: the same bytes as its own filter');
  t.not(bytesToHex(trees.collapsed), filter(owner), "and they differ from the owner's");
});

t.test("contractZswapState at every held block is the chain's filtered tree after that block", async (t) => {
  const h = await startNetwork({ ledger: 9 });
  t.teardown(() => h.close());
  const counterBlock = await h.network.produceBlock();
  const counter = h.network.store.latestDeploy!;
  const { contract } = await EventContract.deploy(h);
  const expected = new Map<number, { counter: string; mine: string }>();
  for (let i = 0; i < 8; i++) {
    const b = await h.network.produceBlock();
    expected.set(b.height, { counter: chainTree(h, counter), mine: chainTree(h, contract.address) });
  }
  const deployHeight = h.network.store.transaction(
    h.network.store.contractAction(h.network.store.contractActionIds(contract.address)[0]!)!.transactionId,
  )!.blockHeight;
  for (const [height, want] of expected) {
    const mine = await h.gql(ZSWAP_AT, { h: height, a: contract.address });
    const theirs = await h.gql(ZSWAP_AT, { h: height, a: counter });
    t.equal(theirs.data.block.contractZswapState, want.counter, `height ${height}: the counter's`);
    t.equal(
      mine.data.block.contractZswapState,
      height >= deployHeight ? want.mine : null,
      `height ${height}: the event contract's (deployed at ${deployHeight})`,
    );
  }
  t.equal((await h.gql(ZSWAP_AT, { h: counterBlock.height - 1, a: counter })).data.block.contractZswapState, null, 'null before the deploy');
  t.equal((await h.gql(ZSWAP_AT, { h: counterBlock.height, a: 'ef'.repeat(32) })).data.block.contractZswapState, null, 'null for an address with no contract');
  t.match((await h.gql(ZSWAP_AT, { h: counterBlock.height, a: 'xyz' })).errors?.[0], { message: 'invalid address' }, 'an address that is not hex');
  const upper = await h.gql('query($a: HexEncoded!) { block { contractZswapState(address: $a) } }', { a: counter.toUpperCase() });
  t.equal(upper.data.block.contractZswapState, chainTree(h, counter), 'the address in either case');
  // Blocks that add no commitment share their parent's trees.
  const held = [...expected.keys()].map((height) => h.network.store.block(height)!);
  const shared = held.filter((b, i) => i > 0 && b.zswapEndIndex === held[i - 1]!.zswapEndIndex);
  t.ok(shared.length > 0, `some blocks added no commitment (${shared.length} of ${held.length})`);
  for (const b of shared) t.equal(b.contractZswap, h.network.store.block(b.height - 1)!.contractZswap, `height ${b.height} shares its parent's`);
});

t.test("across the switch to ledger 9: each block keeps its own era's tree", async (t) => {
  const h = await startNetwork({ ledger: 8, ledger9AtHeight: 6 });
  t.teardown(() => h.close());
  await h.network.produceBlock();
  const counter8 = h.network.store.latestDeploy!;
  const seen = new Map<number, string>();
  while (h.network.height < 5) seen.set((await h.network.produceBlock()).height, chainTree(h, counter8));
  const last8 = h.network.store.latestBlock!;
  await h.network.produceBlock();
  t.equal(h.network.era, 9, 'switched');
  const first9 = h.network.store.block(last8.height + 1)!;
  t.not(first9.contractZswap, last8.contractZswap, "the first ledger-9 block does not share the last ledger-8 block's trees");
  await h.network.produceBlock();
  const counter9 = h.network.store.latestDeploy!;
  t.not(counter9, counter8, 'ledger 9 deployed its own counter');
  for (const [height, tree] of seen)
    t.equal((await h.gql(ZSWAP_AT, { h: height, a: counter8 })).data.block.contractZswapState, tree, `height ${height}: ledger 8's tree`);
  const tip = h.network.height;
  t.equal((await h.gql(ZSWAP_AT, { h: tip, a: counter9 })).data.block.contractZswapState, chainTree(h, counter9), "the tip: ledger 9's");
  t.equal(
    (await h.gql(ZSWAP_AT, { h: tip, a: counter8 })).data.block.contractZswapState,
    chainTree(h, counter8),
    "a ledger-8 contract at a ledger-9 block: ledger 9's tree, which has none of its coins",
  );
});

const EVENTS = 'query($f: ContractEventFilter!, $l: Int, $o: Int) { contractEvents(filter: $f, limit: $l, offset: $o) { __typename id } }';
const ALL_FIELDS = `
  __typename id maxId protocolVersion version contractAddress transactionId raw transaction { hash block { height } }
  ... on ShieldedSpendEvent { nullifier }
  ... on ShieldedReceiveEvent { commitment ciphertext receivingContractAddress }
  ... on ShieldedMintEvent { commitment domainSep shieldedAmount: amount }
  ... on ShieldedBurnEvent { nullifier shieldedAmount: amount }
  ... on UnshieldedSpendEvent { sender { kind userAddress contractAddress } domainSep tokenType amount }
  ... on UnshieldedReceiveEvent { recipient { kind userAddress contractAddress } domainSep tokenType amount }
  ... on UnshieldedMintEvent { domainSep tokenType amount }
  ... on UnshieldedBurnEvent { sender { kind userAddress contractAddress } tokenType amount }
  ... on MiscContractEvent { name payload }`;

t.test('contract events: logged by a call, decoded, filtered, paged and followed', async (t) => {
  const h = await startNetwork({ ledger: 9 });
  t.teardown(() => h.close());
  await h.network.produceBlock();
  const { contract } = await EventContract.deploy(h);
  await h.network.produceBlock();
  const a = contract.address;
  const first: LoggedEvent[] = [
    { type: LOG_TYPE.misc, version: 1, data: concat(filled(0xaa), [1, 2, 3]) },
    { type: LOG_TYPE.unshieldedMint, version: 2, data: concat(filled(0xd5), filled(0x7e), le(1000n, 16)) },
    { type: LOG_TYPE.paused, version: 1, data: new Uint8Array() },
  ];
  const second: LoggedEvent[] = [
    { type: LOG_TYPE.shieldedSpend, version: 1, data: filled(0x5e) },
    { type: LOG_TYPE.unshieldedSpend, version: 1, data: concat([1], filled(0xc1), filled(0), filled(0xd5), filled(0x7f), le(7n, 16)) },
  ];
  const one = await contract.emit(first);
  const b1 = await h.network.produceBlock();
  const two = await contract.emit(second);
  const b2 = await h.network.produceBlock();

  const all = await h.gql(`query($f: ContractEventFilter!) { contractEvents(filter: $f) { ${ALL_FIELDS} } }`, { f: { contractAddress: a } });
  t.equal(all.errors, undefined);
  const events = all.data.contractEvents as any[];
  t.strictSame(
    events.map((e) => [e.__typename, e.id, e.version, e.transaction.hash, e.transaction.block.height]),
    [
      ['MiscContractEvent', 1, 1, one.hash, b1.height],
      ['UnshieldedMintEvent', 2, 2, one.hash, b1.height],
      ['PausedEvent', 3, 1, one.hash, b1.height],
      ['ShieldedSpendEvent', 4, 1, two.hash, b2.height],
      ['UnshieldedSpendEvent', 5, 1, two.hash, b2.height],
    ],
    'in order, with their transactions',
  );
  const txOne = h.network.store.transactionsByHash(one.hash)[0]!;
  t.match(events[0], {
    maxId: 5,
    protocolVersion: txOne.protocolVersion,
    contractAddress: a,
    transactionId: txOne.id,
    name: 'aa'.repeat(32),
    payload: '010203' + '00'.repeat(253),
  });
  t.match(events[1], { domainSep: 'd5'.repeat(32), tokenType: '7e'.repeat(32), amount: '1000' });
  t.match(events[3], { nullifier: '5e'.repeat(32) });
  t.match(events[4], {
    sender: { kind: 'USER', userAddress: 'c1'.repeat(32), contractAddress: null },
    domainSep: 'd5'.repeat(32),
    tokenType: '7f'.repeat(32),
    amount: '7',
  });
  // raw is the ledger's contractLog event: it deserializes, and says what was logged.
  const { L } = kitFor(9);
  const raw = L.Event.deserialize(Buffer.from(events[1].raw, 'hex'));
  t.match(raw.content, { tag: 'contractLog', address: a, entryPoint: EMIT, loggedItem: { version: 2, eventType: 'unshielded-mint' } });
  release(raw);

  const ids = async (f: Record<string, unknown>, l?: number, o?: number): Promise<number[] | string> => {
    const r = await h.gql(EVENTS, { f: { contractAddress: a, ...f }, l, o });
    return r.errors ? r.errors[0]!.message : (r.data.contractEvents as any[]).map((e) => e.id);
  };
  t.strictSame(await ids({ types: ['MISC', 'SHIELDED_SPEND'] }), [1, 4], 'by type');
  t.strictSame(
    await ids({ types: ['UNSHIELDED_MINT', 'UNSHIELDED_SPEND'], fieldPrefixes: [{ fieldName: 'domainSep', prefix: 'd5d5' }] }),
    [2, 5],
    "by an indexed field's prefix",
  );
  t.strictSame(await ids({ fieldPrefixes: [{ fieldName: 'tokenType', prefix: '7F' }] }), [5], 'the prefix in either case');
  t.strictSame(
    await ids({
      fieldPrefixes: [
        { fieldName: 'sender', prefix: 'c1' },
        { fieldName: 'tokenType', prefix: '7f' },
      ],
    }),
    [5],
    'prefixes combine (AND)',
  );
  t.strictSame(await ids({ fieldPrefixes: [{ fieldName: 'nullifier', prefix: '' }] }), [4], 'an empty prefix: the events that have the field');
  t.strictSame(await ids({ fromBlock: b2.height }), [4, 5], 'from a block');
  t.strictSame(await ids({ toBlock: b1.height }), [1, 2, 3], 'up to a block');
  t.strictSame(await ids({ transactionHash: two.hash }), [4, 5], 'by transaction');
  t.strictSame(await ids({}, 2, 1), [2, 3], 'limit and offset');
  t.strictSame(await ids({}, 0), [1], 'a limit under 1 is 1');
  t.strictSame(await ids({ contractAddress: 'ef'.repeat(32) }), [], 'another contract has none');
  t.match(await ids({ types: [] }), /invalid contract event filter: types must not be empty/);
  t.match(await ids({ fieldPrefixes: [{ fieldName: 'amount', prefix: '' }] }), /unknown fieldPrefixes.fieldName amount/);
  t.match(await ids({ fromBlock: 5, toBlock: 4 }), /fromBlock 5 must not exceed toBlock 4/);
  t.match(await ids({ contractAddress: 'xyz' }), /invalid contractAddress/);

  // Each call has its own events; the traffic's `increment` calls have none.
  const calls = await h.gql(
    'query($a: HexEncoded!) { contract(address: $a) { actions(type: CALL) { ... on ContractCall { entryPoint transaction { ' +
      'hash } contractEvents { id } } } } }',
    { a },
  );
  const byTx = Object.fromEntries(
    (calls.data.contract.actions as any[]).map((c) => [`${c.entryPoint} ${c.transaction.hash}`, c.contractEvents.map((e: any) => e.id)]),
  );
  t.strictSame(byTx[`${EMIT} ${one.hash}`], [1, 2, 3]);
  t.strictSame(byTx[`${EMIT} ${two.hash}`], [4, 5]);
  t.ok(
    Object.entries(byTx).every(([k, v]) => k.startsWith(EMIT) || (v as number[]).length === 0),
    'increment logs nothing',
  );

  // The subscription: from an id, through the blocks to come, and completing at toBlock.
  const SUB = `subscription($f: ContractEventFilter!, $id: Int) { contractEvents(filter: $f, id: $id) { __typename id } }`;
  t.strictSame(
    (await take(h.ws(), SUB, { f: { contractAddress: a }, id: 2 }, 3)).map((d) => d.contractEvents.id),
    [2, 3, 4],
    'replayed from the id',
  );
  t.strictSame(
    (await take(h.ws(), SUB, { f: { contractAddress: a, fromBlock: b2.height } }, 2)).map((d) => d.contractEvents.id),
    [4, 5],
    'from a block',
  );
  const live = subscribe(h.ws(), SUB, { f: { contractAddress: a, types: ['MISC'] }, id: 6 });
  t.teardown(() => live.close());
  await contract.emit([{ type: LOG_TYPE.misc, version: 4, data: filled(0x99) }]);
  await h.network.produceBlock();
  t.strictSame(await live.next(), { contractEvents: { __typename: 'MiscContractEvent', id: 6 } }, 'a live event');
  const bounded = async (toBlock: number): Promise<number[]> => {
    const out: number[] = [];
    for await (const r of h.ws().iterate<any>({ query: SUB, variables: { f: { contractAddress: a, toBlock } } })) out.push(r.data.contractEvents.id);
    return out;
  };
  t.strictSame(await bounded(b1.height), [1, 2, 3], 'toBlock reached: the held events, then complete');
  const next = bounded(h.network.height + 1);
  await contract.emit([{ type: LOG_TYPE.unpaused, version: 1, data: new Uint8Array() }]);
  await h.network.produceBlock();
  t.strictSame(await next, [1, 2, 3, 4, 5, 6, 7], 'toBlock ahead: complete once the chain reaches it');
  const refused = await take(h.ws(), SUB, { f: { contractAddress: a, types: [] } }, 1).catch((err: unknown) =>
    err instanceof Error ? err.message : JSON.stringify(err),
  );
  t.match(refused, /types must not be empty/, 'an invalid filter is refused');
});

t.test('after a restart: trees and events read back; blocks logged without trees answer as pruned', async (t) => {
  const dir = tempDir();
  t.teardown(() => dir.remove());
  const first = await startNetwork({ ledger: 9, stateDir: dir.path });
  await first.network.produceBlock();
  const { contract } = await EventContract.deploy(first);
  await first.network.produceBlock();
  await contract.emit([{ type: LOG_TYPE.misc, version: 1, data: filled(0x42) }]);
  const tip = await first.network.produceBlock();
  const before = await first.gql(
    `query($a: HexEncoded!) { block { contractZswapState(address: $a) } contractEvents(filter: { contractAddress: $a }) { ${ALL_FIELDS} } }`,
    { a: contract.address },
  );
  await first.close();

  const second = await startNetwork({ ledger: 9, stateDir: dir.path });
  const after = await second.gql(
    `query($a: HexEncoded!) { block { contractZswapState(address: $a) } contractEvents(filter: { contractAddress: $a }) { ${ALL_FIELDS} } }`,
    { a: contract.address },
  );
  t.strictSame(after.data, before.data, 'the same answers from the log');
  t.equal(after.data.block.contractZswapState, chainTree(second, contract.address), "and the tree is the resumed chain's");
  await second.close();

  // A log written before the devnet kept trees: its blocks have none.
  const log = join(dir.path, 'blocks.log');
  const packr = new Packr({ useRecords: false });
  const bytes = readFileSync(log);
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const bundle = packr.unpack(bytes.subarray(at + 4, at + 4 + length)) as BlockBundle;
    delete bundle.block.contractZswap;
    const body = packr.pack(bundle);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length, 0);
    parts.push(header, body);
    at += 4 + length;
  }
  writeFileSync(log, Buffer.concat(parts));
  const third = await startNetwork({ ledger: 9, stateDir: dir.path });
  t.teardown(() => third.close());
  const old = await third.gql('query($a: HexEncoded!) { block { height contractZswapState(address: $a) } }', { a: contract.address });
  t.equal(old.data.block.height, tip.height);
  t.match(old.errors?.[0], { message: 'ledger state for this block is no longer available, query a more recent block', extensions: { code: 'DEVNET_PRUNED' } });
  await third.network.produceBlock();
  const fresh = await third.gql('query($a: HexEncoded!) { block { contractZswapState(address: $a) } }', { a: contract.address });
  t.equal(fresh.data.block.contractZswapState, chainTree(third, contract.address), 'the next block has them again');
});
