import t from 'tap';
import { parseSustainedArgs } from '../../../bench/lib/sustained-args.js';
import { flattenScalars } from '../../../bench/lib/pool-poller.js';
import {
  blockCapacity,
  mentionsSpent,
  overlappingDustSpends,
  percentile,
  perMinute,
  reasonKind,
  share503,
  rejectionsByReason,
  statusCounts,
  summarize,
  type TxRecord,
} from '../../../bench/lib/sustained-stats.js';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);

const tx = (over: Partial<TxRecord> & { txHash: string }): TxRecord => ({
  client: 0,
  answeredAt: T0,
  dustUtxo: '0:1',
  expiresAt: T0 + 240_000,
  fee: '750000000000000',
  outcome: 'included',
  ...over,
});

t.test('percentile is nearest-rank over unsorted values; null without values', async (t) => {
  const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  t.equal(percentile(values, 50), 5);
  t.equal(percentile(values, 99), 10);
  t.equal(percentile(values, 0), 1);
  t.equal(percentile([42], 99), 42);
  t.equal(percentile([], 50), null);
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
  t.equal(percentile(hundred, 99), 99);
  t.same(values, [5, 1, 4, 2, 3, 10, 9, 8, 7, 6], 'the input is not reordered');
});

t.test('perMinute counts by whole minute of the window; the partial last minute is rated over its own length', async (t) => {
  const times = [T0 - 1, T0, T0 + 59_999, T0 + 60_000, T0 + 60_000 + 29_999, T0 + 90_000];
  t.same(perMinute(times, T0, T0 + 90_000), [
    { minute: 1, count: 2, perSecond: 2 / 60 },
    { minute: 2, count: 2, perSecond: 2 / 30 },
  ]);
  t.same(perMinute([], T0, T0), []);
});

t.test('statusCounts keys refusals by status and code', async (t) => {
  t.same(
    statusCounts([
      { at: T0, ms: 10, status: 200 },
      { at: T0, ms: 10, status: 503, code: 'NO_DUST_AVAILABLE' },
      { at: T0, ms: 10, status: 503, code: 'NO_DUST_AVAILABLE' },
      { at: T0, ms: 10, status: 400, code: 'TRANSACTION_REJECTED' },
      { at: T0, ms: 10, status: 0, code: 'TimeoutError' },
      { at: T0, ms: 10, status: 200 },
    ]),
    { '0 TimeoutError': 1, '200': 2, '400 TRANSACTION_REJECTED': 1, '503 NO_DUST_AVAILABLE': 2 },
  );
});

t.test('rejections group by outcome and by reason with numbers and hashes taken out', async (t) => {
  t.equal(
    reasonKind('invalid balance -4.07e13 for token Dust in segment 0; balance must be positive'),
    'invalid balance N for token Dust in segment N; balance must be positive',
  );
  t.equal(reasonKind('input 00ab34cd56ef7890aa11bb22 not found'), 'input HEX not found');
  const txs = [
    tx({ txHash: 'a', outcome: 'submit-rejected', reason: '400 TX_REJECTED: invalid balance -4.07e13 for token Dust in segment 0' }),
    tx({ txHash: 'b', outcome: 'submit-rejected', reason: '400 TX_REJECTED: invalid balance -1.2e12 for token Dust in segment 0' }),
    tx({ txHash: 'c', outcome: 'dropped', reason: 'invalid balance -3e12 for token Dust in segment 0' }),
    tx({ txHash: 'd', outcome: 'expired' }),
    tx({ txHash: 'e', outcome: 'included' }),
    tx({ txHash: 'f', outcome: 'pending' }),
  ];
  t.same(rejectionsByReason(txs), [
    {
      outcome: 'devnet /submit answered 400',
      reason: 'N TX_REJECTED: invalid balance N for token Dust in segment N',
      count: 2,
      example: '400 TX_REJECTED: invalid balance -4.07e13 for token Dust in segment 0',
    },
    {
      outcome: 'dropped at block time (devnet log)',
      reason: 'invalid balance N for token Dust in segment N',
      count: 1,
      example: 'invalid balance -3e12 for token Dust in segment 0',
    },
    { outcome: 'never included before expiresAt', reason: '–', count: 1, example: '' },
  ]);
});

t.test('a DUST UTXO paying a second answer while the first can still land is a double-spend', async (t) => {
  const txs = [
    // 0:1 — the first landed in a block at T0+6 s; the next answer at T0+7 s reuses it legitimately.
    tx({ txHash: 'a', dustUtxo: '0:1', answeredAt: T0, blockTimestamp: T0 + 6000 }),
    tx({ txHash: 'b', dustUtxo: '0:1', answeredAt: T0 + 7000, blockTimestamp: T0 + 12_000 }),
    // 0:2 — answered again before the first landed.
    tx({ txHash: 'c', dustUtxo: '0:2', answeredAt: T0, blockTimestamp: T0 + 6000 }),
    tx({ txHash: 'd', dustUtxo: '0:2', answeredAt: T0 + 3000, blockTimestamp: T0 + 12_000 }),
    // 1:1 — the first never landed: held until its expiresAt.
    tx({ txHash: 'e', dustUtxo: '1:1', answeredAt: T0, outcome: 'expired', expiresAt: T0 + 60_000 }),
    tx({ txHash: 'f', dustUtxo: '1:1', answeredAt: T0 + 30_000, blockTimestamp: T0 + 36_000 }),
    tx({ txHash: 'g', dustUtxo: '1:1', answeredAt: T0 + 61_000, blockTimestamp: T0 + 66_000 }),
  ];
  t.same(overlappingDustSpends(txs), [
    { dustUtxo: '0:2', first: 'c', second: 'd' },
    { dustUtxo: '1:1', first: 'e', second: 'f' },
  ]);
  t.ok(mentionsSpent('input already spent'));
  t.ok(mentionsSpent('Nullifier seen before'));
  t.notOk(mentionsSpent('invalid balance -3e12 for token Dust'));
  t.notOk(mentionsSpent(undefined));
});

t.test('block capacity counts only blocks that left out a valid transaction submitted before them, and ours in them', async (t) => {
  const blocks = [
    { height: 10, timestamp: T0, transactions: 3 },
    { height: 11, timestamp: T0 + 6000, transactions: 40 },
    { height: 12, timestamp: T0 + 12_000, transactions: 38 },
    { height: 13, timestamp: T0 + 18_000, transactions: 5 },
  ];
  // Ours in the full blocks: 38 of 11's 40 and 35 of 12's 38 (with 'a'); the devnet's own traffic the rest.
  const landedIn = (height: number, n: number, at: number): TxRecord[] =>
    Array.from({ length: n }, (_, i) => tx({ txHash: `${height}-${i}`, submittedAt: at, blockHeight: height }));
  const txs = [
    ...landedIn(11, 38, T0 + 500),
    ...landedIn(12, 34, T0 + 6500),
    // Submitted before 11, landed in 12: 11 was full.
    tx({ txHash: 'a', submittedAt: T0 + 1000, blockHeight: 12 }),
    // Submitted before 12, landed in 13: 12 was full.
    tx({ txHash: 'b', submittedAt: T0 + 7000, blockHeight: 13 }),
    // Submitted too close to 12's production to count as left out by it.
    tx({ txHash: 'c', submittedAt: T0 + 11_950, blockHeight: 13 }),
    // Never landed: says nothing about fullness.
    tx({ txHash: 'd', submittedAt: T0 + 1000, outcome: 'expired' }),
  ];
  const cap = blockCapacity(blocks, txs);
  t.equal(cap.blocks, 4);
  t.equal(cap.fullBlocks, 2);
  t.same([cap.perFullBlock.p50, cap.perFullBlock.max, cap.perFullBlock.mean], [35, 38, 36.5], "ours per full block, not the devnet's own");
  t.equal(cap.maxPerBlock, 40, 'the most transactions of any kind in one block');
  t.equal(cap.blockIntervalS, 6);
  t.equal(cap.impliedTxPerSecond, 35 / 6, 'the median of ours per full block over the interval');
});

t.test('summary of a run', async (t) => {
  const txs: TxRecord[] = [
    tx({ txHash: 'a', dustUtxo: '0:1', answeredAt: T0 + 1000, submittedAt: T0 + 1100, seenAt: T0 + 7000, blockHeight: 2, blockTimestamp: T0 + 6000 }),
    tx({ txHash: 'b', dustUtxo: '0:2', answeredAt: T0 + 2000, submittedAt: T0 + 2100, seenAt: T0 + 13_000, blockHeight: 3, blockTimestamp: T0 + 12_000 }),
    tx({ txHash: 'c', dustUtxo: '0:3', answeredAt: T0 + 61_000, submittedAt: T0 + 61_100, seenAt: T0 + 67_000, blockHeight: 12, blockTimestamp: T0 + 66_000 }),
    tx({
      txHash: 'd',
      dustUtxo: '0:4',
      answeredAt: T0 + 62_000,
      outcome: 'submit-rejected',
      reason: '400 TX_REJECTED: invalid balance -4e13 for token Dust in segment 0',
    }),
  ];
  const calls = [
    { at: T0 + 1000, ms: 100, status: 200 },
    { at: T0 + 2000, ms: 300, status: 200 },
    { at: T0 + 3000, ms: 5, status: 503, code: 'NO_DUST_AVAILABLE' },
    { at: T0 + 61_000, ms: 200, status: 200 },
    { at: T0 + 62_000, ms: 200, status: 200 },
  ];
  const blocks = [
    { height: 2, timestamp: T0 + 6000, transactions: 1 },
    { height: 3, timestamp: T0 + 12_000, transactions: 1 },
  ];
  const s = summarize({ startMs: T0, endMs: T0 + 120_000, calls, txs, blocks });
  t.equal(s.windowS, 120);
  t.equal(s.sponsored, 4);
  t.equal(s.included, 3);
  t.equal(s.includedPerSecond, 3 / 120);
  t.same(
    s.includedPerMinute.map((m) => m.count),
    [2, 1],
  );
  t.same([s.inclusionMs.p50, s.inclusionMs.p99], [6000, 11_000]);
  t.same([s.sponsorMs.p50, s.sponsorMs.p99], [200, 300]);
  t.equal(s.rate503, 1 / 5);
  t.same(s.rate503PerMinute, [
    { minute: 1, count: 1, share: 1 / 3 },
    { minute: 2, count: 0, share: 0 },
  ]);
  t.equal(s.rate503Settled, 0, 'no answer from minute 3 on');
  t.same(s.outcomes, { included: 3, 'submit-rejected': 1, dropped: 0, expired: 0, pending: 0 });
  t.same(s.doubleSpends, { overlappingDustUtxo: 0, spentInputRejections: 0, examples: [] });
});

t.test('wallet-status entries flatten to their scalar fields; per-wallet arrays are left out', async (t) => {
  t.same(
    flattenScalars({
      sync: { phase: 'synced', eventId: 4 },
      balance: '10',
      wallets: [{ index: 0 }],
      utxos: { free: 3, reserved: 1 },
      maintenance: false,
      x: null,
    }),
    {
      'sync.phase': 'synced',
      'sync.eventId': 4,
      balance: '10',
      'utxos.free': 3,
      'utxos.reserved': 1,
      maintenance: 'false',
    },
  );
});

t.test('sustained command line: defaults, deployment options, exact messages', async (t) => {
  const d = parseSustainedArgs([]);
  t.same(
    [d.clients, d.durationS, d.drainS, d.network, d.amountStar, d.poolIntervalS, d.allDevnets, d.keys],
    [10, 60, 30, 'preview', 100_000_000n, 5, false, []],
  );
  const r = parseSustainedArgs([
    '--url',
    'http://gw.example/',
    '--key',
    'k1,k2',
    '--faucet-url',
    'http://faucet.example/faucet',
    '--indexer-ws',
    'wss://ix.example/ws',
    '--clients=150',
  ]);
  t.same([r.url, r.keys, r.faucetUrl, r.indexerWs, r.clients], ['http://gw.example', ['k1', 'k2'], 'http://faucet.example/faucet', 'wss://ix.example/ws', 150]);
  t.throws(() => parseSustainedArgs(['--url', 'http://gw.example']), { message: '--url needs --key: the sponsorship routes take an API key' });
  t.throws(() => parseSustainedArgs(['--key', 'k']), { message: '--key only apply with --url (a local run mints its keys and funds from its own devnet)' });
  t.throws(() => parseSustainedArgs(['--url', 'http://gw.example', '--key', 'k', '--all-devnets']), {
    message: '--all-devnets only apply to a local run (without --url)',
  });
  t.throws(() => parseSustainedArgs(['--clients', '1.5']), { message: "--clients must be a positive integer, got '1.5'" });
  t.throws(() => parseSustainedArgs(['--network', 'devnet']), { message: "--network must be one of mainnet, preprod, preview, got 'devnet'" });
  t.throws(() => parseSustainedArgs(['--indexer-ws', 'http://x']), { message: /only apply with --url/ });
  t.throws(() => parseSustainedArgs(['--url', 'http://gw', '--key', 'k', '--indexer-ws', 'http://x']), {
    message: "--indexer-ws must be a ws or wss URL, got 'http://x'",
  });
  t.throws(() => parseSustainedArgs(['--amount', '1e6']), { message: "--amount must be a whole number of STAR, got '1e6'" });
  t.equal(parseSustainedArgs(['--max-fee', '100000000000000000000']).maxFee, '100000000000000000000');
  t.throws(() => parseSustainedArgs(['--max-fee', '5 DUST']), { message: "--max-fee must be a whole number of SPECK, got '5 DUST'" });
  t.throws(() => parseSustainedArgs(['--url', 'http://gw', '--key', 'k', '--max-fee', '1']), {
    message: '--max-fee only apply to a local run (without --url)',
  });
});

t.test('the 503 share counts the answers inside its window only', async (t) => {
  const calls = [
    { at: T0, ms: 5, status: 503 },
    { at: T0 + 119_999, ms: 5, status: 503 },
    { at: T0 + 120_000, ms: 5, status: 503 },
    { at: T0 + 130_000, ms: 5, status: 200 },
    { at: T0 + 140_000, ms: 5, status: 200 },
    { at: T0 + 180_000, ms: 5, status: 503 },
  ];
  t.equal(share503(calls, T0 + 120_000, T0 + 180_000), 1 / 3, 'from minute 3 to the end of the window');
  t.equal(share503(calls, T0, T0 + 240_000), 4 / 6);
  t.equal(share503([], T0, T0 + 60_000), 0);
});
