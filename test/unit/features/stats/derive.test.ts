/** The derived statistics are exact functions of blocks, time and health. */
import t from 'tap';
import { BlockWindow } from '../../../../src/features/stats/block-window.js';
import {
  blockTime,
  blocksProduced,
  dParameter,
  feesOf,
  latestBlock,
  ledgerOf,
  paidFee,
  recentTransactions,
  transactionKind,
  uptime,
} from '../../../../src/features/stats/derive.js';
import { DEVNET_PROTOCOL_VERSION, ERA_TABLE } from '../../../../packages/ledger/src/era.js';
import type { RingBlock, RingTransaction } from '../../../../src/features/stats/upstream-types.js';

/** The first protocol version of ledger 9. */
const LEDGER_9_PROTOCOL_VERSION = ERA_TABLE[9].firstProtocolVersion;

const T0 = 1_700_000_000_000;
const tx = (id: number, extra: Partial<RingTransaction> = {}): RingTransaction => ({
  __typename: 'RegularTransaction',
  id,
  hash: `t${id}`,
  transactionResult: { status: 'SUCCESS' },
  fees: { paidFees: String(id * 10) },
  ...extra,
});
const blk = (height: number, timestamp: number, transactions: RingTransaction[] = [], extra: Partial<RingBlock> = {}): RingBlock => ({
  height,
  hash: `b${height}`,
  timestamp,
  protocolVersion: 2,
  author: null,
  transactions,
  ...extra,
});

t.test('block time and production estimates', async (t) => {
  const w = new BlockWindow(100);
  t.strictSame(blockTime(w), { averageSeconds: null, sampleSize: 0, targetSeconds: 6 });
  w.put(blk(10, T0));
  t.strictSame(blockTime(w), { averageSeconds: null, sampleSize: 0, targetSeconds: 6 }, 'one block: no interval');
  w.put(blk(11, T0 + 6000));
  w.put(blk(12, T0 + 13_000));
  w.put(blk(14, T0 + 26_000));
  const bt = blockTime(w);
  t.strictSame(bt, { averageSeconds: 6.5, sampleSize: 4, targetSeconds: 6 }, 'a gap counts by height');
  t.strictSame(blocksProduced(w.tip!, bt), { total: 15, estimatedHourly: 554, estimatedDaily: 13292 });
  t.strictSame(blocksProduced(w.tip!, { averageSeconds: null, sampleSize: 0, targetSeconds: 6 }), { total: 15, estimatedHourly: null, estimatedDaily: null });
});

t.test('a halt (a backdated genesis, an outage) is not a block interval', async (t) => {
  const w = new BlockWindow(100);
  w.put(blk(1, T0));
  w.put(blk(2, T0 + 6000));
  w.put(blk(3, T0 + 6 * 3600_000)); // six hours later
  w.put(blk(4, T0 + 6 * 3600_000 + 6000));
  w.put(blk(5, T0 + 6 * 3600_000 + 12_000));
  t.strictSame(blockTime(w), { averageSeconds: 6, sampleSize: 3, targetSeconds: 6 }, 'the 6 h gap is left out');
});

t.test('block time covers the latest 100 intervals only', async (t) => {
  const w = new BlockWindow(1000);
  let ts = T0;
  for (let h = 0; h <= 150; h++) {
    w.put(blk(h, ts));
    ts += h < 50 ? 60_000 : 6000;
  }
  t.strictSame(blockTime(w), { averageSeconds: 6, sampleSize: 100, targetSeconds: 6 }, 'the slow first 50 intervals have left the span');
});

t.test('latest block age and uptime score', async (t) => {
  const tip = blk(7, T0);
  t.strictSame(latestBlock(tip, T0 + 2999), { height: 7, hash: 'b7', timestamp: '2023-11-14T22:13:20.000Z', ageSeconds: 2, protocolVersion: 2, ledger: 8 });
  t.equal(latestBlock(tip, T0 - 5000).ageSeconds, 0, 'a clock behind the chain is age 0');
  const six = { averageSeconds: 6, sampleSize: 10, targetSeconds: 6 } as const;
  t.strictSame(uptime(tip, T0 + 12_000, six, null, true), { status: 'healthy', score: 1, latestBlockAgeSeconds: 12, epochUtilization: null });
  t.strictSame(
    uptime(tip, T0 + 36_000, six, null, true),
    { status: 'healthy', score: 0.5, latestBlockAgeSeconds: 36, epochUtilization: null },
    'late, short of stale: a lower score only',
  );
  t.strictSame(
    uptime(tip, T0 + 60_000, six, null, true),
    { status: 'degraded', score: 0, latestBlockAgeSeconds: 60, epochUtilization: null },
    'stale at 10 block times',
  );
  t.strictSame(uptime(tip, T0 + 3000, { averageSeconds: 7.5, sampleSize: 10, targetSeconds: 6 }, null, true).score, 0.8, 'production = 6 / 7.5');
  t.strictSame(uptime(tip, T0 + 3000, six, 0.75, true), { status: 'degraded', score: 0.75, latestBlockAgeSeconds: 3, epochUtilization: 0.75 });
  t.equal(uptime(tip, T0 + 3000, six, null, false).status, 'degraded', 'indexer failing');
});

t.test('d-parameter from the newest block carrying it, effective height from the history', async (t) => {
  const w = new BlockWindow(10);
  t.equal(dParameter(w, undefined), null);
  w.put(blk(5, T0, [], { systemParameters: { dParameter: { numPermissionedCandidates: 7, numRegisteredCandidates: 3 } } }));
  w.put(blk(6, T0 + 6000));
  const history = [
    { blockHeight: 0, numPermissionedCandidates: 10, numRegisteredCandidates: 0 },
    { blockHeight: 4, numPermissionedCandidates: 7, numRegisteredCandidates: 3 },
    { blockHeight: 9, numPermissionedCandidates: 5, numRegisteredCandidates: 5 },
  ];
  t.strictSame(dParameter(w, history), { numPermissionedCandidates: 7, numRegisteredCandidates: 3, blockHeight: 5, effectiveSinceHeight: 4 });
  t.strictSame(dParameter(w, undefined)?.effectiveSinceHeight, null);
  t.strictSame(dParameter(w, history.slice(0, 1))?.effectiveSinceHeight, null, 'history disagrees: unknown');
});

t.test('recent transactions newest first, across blocks, up to limit', async (t) => {
  const w = new BlockWindow(10);
  w.put(blk(1, T0, [tx(1), tx(2)]));
  w.put(blk(2, T0 + 6000, []));
  w.put(
    blk(3, T0 + 12_000, [
      tx(3, { __typename: 'SystemTransaction', transactionResult: undefined, fees: undefined }),
      tx(4, { transactionResult: { status: 'FAILURE' } }),
    ]),
  );
  const r = recentTransactions(w, 3);
  t.equal(r.limit, 3);
  t.equal(r.count, 3);
  t.strictSame(
    r.transactions.map((x) => [x.id, x.kind, x.status, x.paidFees, x.blockHeight]),
    [
      [4, 'regular', 'FAILURE', '40', 3],
      [3, 'system', null, null, 3],
      [2, 'regular', 'SUCCESS', '20', 1],
    ],
  );
  t.strictSame(r.transactions[0], {
    hash: 't4',
    id: 4,
    kind: 'regular',
    status: 'FAILURE',
    paidFees: '40',
    paidFeesUnit: 'SPECK',
    blockHeight: 3,
    blockHash: 'b3',
    timestamp: '2023-11-14T22:13:32.000Z',
  });
  t.equal(recentTransactions(w, 100).count, 4);
});

t.test('the ledger era of the latest block follows its protocol version', async (t) => {
  t.strictSame(latestBlock(blk(9, T0, [], { protocolVersion: DEVNET_PROTOCOL_VERSION[9] }), T0), {
    height: 9,
    hash: 'b9',
    timestamp: '2023-11-14T22:13:20.000Z',
    ageSeconds: 0,
    protocolVersion: 2_001_000,
    ledger: 9,
  });
  t.equal(latestBlock(blk(9, T0, [], { protocolVersion: DEVNET_PROTOCOL_VERSION[8] }), T0).ledger, 8);
  t.strictSame([ledgerOf(LEDGER_9_PROTOCOL_VERSION - 1), ledgerOf(LEDGER_9_PROTOCOL_VERSION), ledgerOf(0)], [8, 9, 8], 'the boundary is 2 000 000');
});

t.test('bridge claims are their own kind; fees come from fee, else the deprecated fees', async (t) => {
  t.strictSame(
    ['RegularTransaction', 'SystemTransaction', 'BridgeClaimTransaction'].map((n) => transactionKind(n as RingTransaction['__typename'])),
    ['regular', 'system', 'bridge-claim'],
  );
  const w = new BlockWindow(10);
  w.put(
    blk(
      1,
      T0,
      [
        tx(1, { fees: undefined, fee: '123' }),
        tx(2, { __typename: 'BridgeClaimTransaction', transactionResult: undefined, fees: undefined }),
        tx(3, { fee: '999', fees: { paidFees: '1' } }),
      ],
      { protocolVersion: 2_001_000 },
    ),
  );
  t.strictSame(
    recentTransactions(w, 10).transactions.map((x) => [x.id, x.kind, x.status, x.paidFees]),
    [
      [3, 'regular', 'SUCCESS', '999'],
      [2, 'bridge-claim', null, null],
      [1, 'regular', 'SUCCESS', '123'],
    ],
    'fee wins over the deprecated paid fee',
  );
  t.equal(paidFee({ fees: { paidFees: '7' } }), '7', 'an indexer without fee: the deprecated paid fee');
  t.equal(paidFee({}), null);
  t.strictSame(feesOf({ fee: '5', fees: { estimatedFees: '6' } }), { paid: '5', estimated: '6', unit: 'SPECK' }, 'the estimate while the indexer reports one');
  t.strictSame(feesOf({ fee: '5' }), { paid: '5', estimated: '5', unit: 'SPECK' }, 'else the fee paid');
  t.strictSame(feesOf({ fees: { paidFees: '8', estimatedFees: '9' } }), { paid: '8', estimated: '9', unit: 'SPECK' });
  t.equal(feesOf({}), null, 'no fee: system transactions and bridge claims');
});
