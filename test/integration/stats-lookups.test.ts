/** Lookups: block, transaction, contract, address activity and search, exact bodies. */
import t from 'tap';
import { FakeIndexer, hashOf, type FakeTx } from '../fixtures/stats/fake-indexer.js';
import { T0, statsApp } from '../fixtures/stats/stats-app.js';
import { hexToAddress } from '../../src/features/stats/params.js';

const iso = (ms: number) => new Date(ms).toISOString();
const NIGHT = '00'.repeat(32);
const A = hexToAddress(hashOf('alice'), 'mainnet');
const B = hexToAddress(hashOf('bob'), 'mainnet');
const C = hashOf('contract');

async function chain(): Promise<{ fake: FakeIndexer; tx1: FakeTx; tx2: FakeTx; tx3: FakeTx }> {
  const fake = await FakeIndexer.start();
  fake.addBlock(T0, []);
  const tx1 = fake.tx({
    created: [
      { owner: A.bech32, tokenType: NIGHT, value: '1000', intentHash: hashOf('i1'), outputIndex: 0, ctime: 1_700_000_006, registeredForDustGeneration: true },
      { owner: A.bech32, tokenType: NIGHT, value: '500', intentHash: hashOf('i1'), outputIndex: 1, ctime: 1_700_000_006 },
    ],
    contractActions: [{ kind: 'ContractDeploy', address: C }],
    zswapEvents: 2,
  });
  fake.addBlock(T0 + 6000, [tx1]);
  const tx2 = fake.tx({
    spent: [{ intentHash: hashOf('i1'), outputIndex: 0 }],
    created: [
      { owner: A.bech32, tokenType: NIGHT, value: '300', intentHash: hashOf('i2'), outputIndex: 0, ctime: 1_700_000_012 },
      { owner: B.bech32, tokenType: NIGHT, value: '700', intentHash: hashOf('i2'), outputIndex: 1, ctime: 1_700_000_012 },
    ],
    contractActions: [{ kind: 'ContractCall', address: C, entryPoint: 'increment', balances: [{ tokenType: NIGHT, amount: '5' }] }],
    dustEvents: 1,
    paidFees: '2500',
    estimatedFees: '3000',
  });
  fake.addBlock(T0 + 12_000, [tx2]);
  const tx3 = fake.tx({ kind: 'SystemTransaction' });
  fake.addBlock(T0 + 18_000, [tx3]);
  return { fake, tx1, tx2, tx3 };
}

t.test('block by height and by hash', async (t) => {
  const { fake, tx2 } = await chain();
  const { get } = await statsApp(t, { fake, blocks: 0 });
  const b2 = fake.blocks[2]!;
  const body = {
    height: 2,
    hash: b2.hash,
    parent: { height: 1, hash: fake.blocks[1]!.hash },
    author: b2.author,
    timestamp: iso(T0 + 12_000),
    protocolVersion: 1,
    ledger: 8,
    zswapMerkleTreeRoot: hashOf('zroot-2'),
    zswapEndIndex: 4,
    systemParameters: { dParameter: { numPermissionedCandidates: 10, numRegisteredCandidates: 0 }, termsAndConditions: null },
    transactionCount: 1,
    transactions: [
      {
        id: tx2.id,
        hash: tx2.hash,
        kind: 'regular',
        protocolVersion: 1,
        status: 'SUCCESS',
        identifiers: tx2.identifiers,
        fees: { paid: '2500', estimated: '3000', unit: 'SPECK' },
        contractActions: [{ type: 'call', address: C }],
        unshieldedOutputsCreated: 2,
        unshieldedOutputsSpent: 1,
      },
    ],
  };
  const byHeight = await get('/api/v1/mainnet/block?height=2');
  t.equal(byHeight.status, 200);
  t.strictSame(byHeight.json, body);
  t.equal(byHeight.headers['cache-control'], 'public, max-age=3600', 'finalized, below the tip');
  const byHash = await get(`/api/v1/mainnet/block?hash=${b2.hash.toUpperCase()}`);
  t.strictSame(byHash.json, body);
  t.equal(byHash.headers['cache-control'], 'public, max-age=31536000, immutable', 'a hash names fixed content');
  const tip = await get('/api/v1/mainnet/block?height=3');
  t.equal(tip.headers['cache-control'], 'public, max-age=6', 'the tip');
  t.strictSame((tip.json as { transactions: unknown[] }).transactions, [
    {
      id: fake.blocks[3]!.transactions[0]!.id,
      hash: fake.blocks[3]!.transactions[0]!.hash,
      kind: 'system',
      protocolVersion: 1,
      status: null,
      identifiers: [],
      fees: null,
      contractActions: [],
      unshieldedOutputsCreated: 0,
      unshieldedOutputsSpent: 0,
    },
  ]);
  t.strictSame((await get('/api/v1/mainnet/block?height=0')).json, {
    ...body,
    height: 0,
    hash: fake.blocks[0]!.hash,
    parent: null,
    author: fake.blocks[0]!.author,
    timestamp: iso(T0),
    zswapMerkleTreeRoot: hashOf('zroot-0'),
    zswapEndIndex: 0,
    transactionCount: 0,
    transactions: [],
  });
});

t.test('transaction: fees, status, identifiers, contract actions, UTXOs, ledger events', async (t) => {
  const { fake, tx1, tx2 } = await chain();
  const { get } = await statsApp(t, { fake, blocks: 0 });
  const r = await get(`/api/v1/mainnet/transaction?hash=${tx2.hash}`);
  t.equal(r.status, 200);
  t.equal(r.headers['cache-control'], 'public, max-age=3600');
  t.strictSame(r.json, {
    id: tx2.id,
    hash: tx2.hash,
    kind: 'regular',
    protocolVersion: 1,
    ledger: 8,
    status: 'SUCCESS',
    segments: null,
    block: { height: 2, hash: fake.blocks[2]!.hash, timestamp: iso(T0 + 12_000) },
    identifiers: tx2.identifiers,
    fees: { paid: '2500', estimated: '3000', unit: 'SPECK' },
    bridgeClaim: null,
    zswap: { merkleTreeRoot: hashOf(`txroot-${tx2.id}`), startIndex: tx2.id, endIndex: tx2.id + 1 },
    contractActions: [{ type: 'call', address: C, entryPoint: 'increment', balances: [{ tokenType: NIGHT, amount: '5' }] }],
    utxos: {
      created: [
        {
          owner: A.bech32,
          tokenType: NIGHT,
          value: '300',
          intentHash: hashOf('i2'),
          outputIndex: 0,
          createdAt: iso(1_700_000_012_000),
          ctime: 1_700_000_012,
          registeredForDustGeneration: false,
        },
        {
          owner: B.bech32,
          tokenType: NIGHT,
          value: '700',
          intentHash: hashOf('i2'),
          outputIndex: 1,
          createdAt: iso(1_700_000_012_000),
          ctime: 1_700_000_012,
          registeredForDustGeneration: false,
        },
      ],
      spent: [
        {
          owner: A.bech32,
          tokenType: NIGHT,
          value: '1000',
          intentHash: hashOf('i1'),
          outputIndex: 0,
          createdAt: iso(1_700_000_006_000),
          ctime: 1_700_000_006,
          createdAtTransaction: tx1.hash,
        },
      ],
    },
    ledgerEvents: { zswap: 0, dust: 1 },
  });
});

t.test('contract: latest action, balances, state root, deploy', async (t) => {
  const { fake, tx1, tx2 } = await chain();
  const { get } = await statsApp(t, { fake, blocks: 0 });
  const r = await get(`/api/v1/mainnet/contract?address=0x${C}`);
  t.equal(r.status, 200);
  t.equal(r.headers['cache-control'], 'public, max-age=6');
  t.strictSame(r.json, {
    address: C,
    latestAction: {
      type: 'call',
      entryPoint: 'increment',
      transaction: {
        id: tx2.id,
        hash: tx2.hash,
        status: 'SUCCESS',
        identifiers: tx2.identifiers,
        paidFees: '2500',
        paidFeesUnit: 'SPECK',
        block: { height: 2, hash: fake.blocks[2]!.hash, timestamp: iso(T0 + 12_000) },
      },
    },
    balances: [{ tokenType: NIGHT, amount: '5' }],
    stateRoots: { zswapMerkleTreeRoot: hashOf(`txroot-${tx2.id}`) },
    deploy: { transactionHash: tx1.hash, blockHeight: 1, timestamp: iso(T0 + 6000) },
  });
});

t.test('address activity: transactions and the UTXOs a wallet spends from', async (t) => {
  const { fake, tx1, tx2 } = await chain();
  const { get } = await statsApp(t, { fake, blocks: 0 });
  const u1 = {
    owner: A.bech32,
    tokenType: NIGHT,
    value: '1000',
    intentHash: hashOf('i1'),
    outputIndex: 0,
    createdAt: iso(1_700_000_006_000),
    ctime: 1_700_000_006,
    registeredForDustGeneration: true,
    spent: true,
    spentAtTransaction: tx2.hash,
    createdAtTransaction: tx1.hash,
    createdAtHeight: 1,
  };
  const u2 = {
    owner: A.bech32,
    tokenType: NIGHT,
    value: '500',
    intentHash: hashOf('i1'),
    outputIndex: 1,
    createdAt: iso(1_700_000_006_000),
    ctime: 1_700_000_006,
    registeredForDustGeneration: false,
    spent: false,
    spentAtTransaction: null,
    createdAtTransaction: tx1.hash,
    createdAtHeight: 1,
  };
  const u3 = {
    owner: A.bech32,
    tokenType: NIGHT,
    value: '300',
    intentHash: hashOf('i2'),
    outputIndex: 0,
    createdAt: iso(1_700_000_012_000),
    ctime: 1_700_000_012,
    registeredForDustGeneration: false,
    spent: false,
    spentAtTransaction: null,
    createdAtTransaction: tx2.hash,
    createdAtHeight: 2,
  };
  const t2 = { id: tx2.id, hash: tx2.hash, blockHeight: 2, timestamp: iso(T0 + 12_000), status: 'SUCCESS', utxosCreated: 1, utxosSpent: 1 };
  const t1 = { id: tx1.id, hash: tx1.hash, blockHeight: 1, timestamp: iso(T0 + 6000), status: 'SUCCESS', utxosCreated: 2, utxosSpent: 0 };
  const base = { address: A.bech32, addressHex: A.hex, highestTransactionId: tx2.id, transactionCount: 2, balances: [{ tokenType: NIGHT, unspent: '800' }] };

  const all = await get(`/api/v1/mainnet/address-activity?identifier=${A.hex}`);
  t.equal(all.status, 200);
  t.equal(all.headers['cache-control'], 'public, max-age=6');
  t.strictSame(all.json, { ...base, limit: 20, transactions: [t2, t1], utxos: [u3, u2, u1] });
  const one = await get(`/api/v1/mainnet/address-activity?identifier=${A.bech32}&limit=1`);
  t.strictSame(one.json, { ...base, limit: 1, transactions: [t2], utxos: [u3, u2] }, 'unspent UTXOs of older transactions stay listed');
  t.strictSame(
    fake.subscriptions.filter((s) => s.operationName === 'AddressActivity').map((s) => s.variables),
    [{ address: A.bech32 }, { address: A.bech32 }],
  );
});

t.test('an address with no activity: 200 with empty lists, not 404; a malformed one stays 400', async (t) => {
  const { fake } = await chain();
  const { get } = await statsApp(t, { fake, blocks: 0 });
  const nobody = hexToAddress(hashOf('nobody'), 'mainnet');
  for (const identifier of [nobody.hex, nobody.bech32]) {
    const r = await get(`/api/v1/mainnet/address-activity?identifier=${identifier}`);
    t.equal(r.status, 200, identifier);
    t.strictSame(
      r.json,
      { address: nobody.bech32, addressHex: nobody.hex, highestTransactionId: 0, transactionCount: 0, limit: 20, transactions: [], balances: [], utxos: [] },
      identifier,
    );
  }
  const bad = await get('/api/v1/mainnet/address-activity?identifier=mn_addr1nope');
  t.strictSame([bad.status, (bad.json as { code: string }).code], [400, 'INVALID_PARAMETER']);
});

t.test('search resolves heights, hashes, identifiers, contracts and addresses', async (t) => {
  const { fake, tx2 } = await chain();
  const { get } = await statsApp(t, { fake, blocks: 0 });
  const b2 = fake.blocks[2]!;
  const base = '/api/v1/mainnet';
  const cases: Array<[string, unknown]> = [
    ['2', { type: 'block', result: { height: 2, hash: b2.hash, timestamp: iso(T0 + 12_000), href: `${base}/block?height=2` } }],
    [b2.hash, { type: 'block', result: { height: 2, hash: b2.hash, timestamp: iso(T0 + 12_000), href: `${base}/block?hash=${b2.hash}` } }],
    [tx2.hash, { type: 'transaction', result: { hash: tx2.hash, blockHeight: 2, matchedBy: 'hash', href: `${base}/transaction?hash=${tx2.hash}` } }],
    [
      tx2.identifiers[0]!,
      { type: 'transaction', result: { hash: tx2.hash, blockHeight: 2, matchedBy: 'identifier', href: `${base}/transaction?hash=${tx2.hash}` } },
    ],
    [C, { type: 'contract', result: { address: C, latestActionType: 'call', transactionHash: tx2.hash, href: `${base}/contract?address=${C}` } }],
    [A.hex, { type: 'address', result: { address: A.bech32, addressHex: A.hex, href: `${base}/address-activity?identifier=${A.bech32}` } }],
    [A.bech32, { type: 'address', result: { address: A.bech32, addressHex: A.hex, href: `${base}/address-activity?identifier=${A.bech32}` } }],
  ];
  for (const [q, expected] of cases) {
    const before = fake.count('SearchHex');
    const r = await get(`${base}/search?q=${encodeURIComponent(q)}`);
    t.equal(r.status, 200, q);
    t.strictSame(r.json, { query: q, ...(expected as object) }, q);
    if (/^[0-9a-f]{64}$/.test(q)) t.equal(fake.count('SearchHex') - before, 1, `${q}: one aliased request tried every reading`);
  }
  t.strictSame(
    fake.requests.filter((r) => r.operationName === 'SearchHex').map((r) => r.variables['isHash']),
    [true, true, true, true, true],
  );
});
