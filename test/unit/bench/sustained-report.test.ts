import t from 'tap';
import { ledgerOf, renderSustainedSection, resummarized, spread, type SustainedResult } from '../../../bench/lib/sustained-report.js';
import { summarize, type BlockSeen, type PoolSample, type SponsorCall, type TxRecord } from '../../../bench/lib/sustained-stats.js';

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

/**
 * Three blocks 6 s apart holding `perBlock` transactions each. With `full`, the first two left out
 * a transaction of ours submitted before them (both full: capacity perBlock ÷ 6 s); without, every
 * transaction landed in the first block after its submit (no full block).
 */
function chain(perBlock: number, full: boolean): { txs: TxRecord[]; blocks: BlockSeen[] } {
  const blocks = [1, 2, 3].map((h) => ({ height: h, timestamp: T0 + h * 6000, transactions: perBlock }));
  const landed = (txHash: string, submittedAt: number, height: number): TxRecord =>
    tx({
      txHash,
      dustUtxo: `0:${txHash}`,
      answeredAt: submittedAt - 100,
      submittedAt,
      blockHeight: height,
      blockTimestamp: T0 + height * 6000,
      seenAt: T0 + height * 6000 + 500,
    });
  const txs = full
    ? [landed('a', T0 + 1000, 2), landed('b', T0 + 7000, 3), landed('c', T0 + 2000, 1)]
    : [landed('a', T0 + 1000, 1), landed('b', T0 + 7000, 2), landed('c', T0 + 13_000, 3)];
  return { txs, blocks };
}

function result(over: {
  txs: TxRecord[];
  blocks: BlockSeen[];
  calls?: SponsorCall[];
  pool?: PoolSample[];
  durationS?: number;
  ledger?: 8 | 9;
  command?: string;
}): SustainedResult {
  const durationS = over.durationS ?? 19;
  const calls = over.calls ?? over.txs.map((x) => ({ at: x.answeredAt, ms: 100, status: 200 }));
  return {
    kind: 'sustained-sponsorship',
    run: {
      startedAt: new Date(T0 - 60_000).toISOString(),
      measuredFrom: new Date(T0).toISOString(),
      commit: 'abc1234',
      dirty: false,
      machine: { cpuModel: 'Test CPU', cores: 2, memoryMiB: 4096, kernel: '6', platform: 'linux-x64', node: 'v20.0.0', uws: 'test' },
      command: over.command ?? 'npm run bench:sustained -- --clients 2 --duration 19',
      target: 'local',
      network: 'preview',
      ...(over.ledger ? { ledger: over.ledger } : {}),
      clients: 2,
      funded: 2,
      fundingS: 12,
      durationS,
      drainS: 30,
      blockTimeMs: 6000,
      notes: ['a note'],
    },
    summary: summarize({ startMs: T0, endMs: T0 + durationS * 1000, calls, txs: over.txs, blocks: over.blocks }),
    pool: over.pool ?? [
      { at: T0, fields: { 'utxos.free': 60, 'utxos.reserved': 6, 'utxos.spent': 0, 'utxos.total': 66, 'sync.phase': 'synced' } },
      { at: T0 + 5000, fields: { 'utxos.free': 58, 'utxos.reserved': 8, 'utxos.spent': 1, 'utxos.total': 67, 'sync.phase': 'synced' } },
    ],
    finalPool: { at: T0 + 130_000, fields: { 'utxos.free': 66, 'utxos.reserved': 0, 'utxos.spent': 3, 'utxos.total': 69 } },
    calls,
    txs: over.txs,
    blocks: over.blocks,
  };
}

const includedRow = (md: string): string => md.split('\n').find((l) => l.startsWith('| Included sponsored tx/s |')) ?? '';

t.test('the subsection is headed by its ledger era alone; the run parameters are in its text', async (t) => {
  const md = renderSustainedSection(result({ ...chain(2, true), ledger: 9 }));
  t.equal(md.split('\n')[0], '### Ledger 9');
  t.match(md, /^### Ledger 9\n\n2 clients for 19 s \(then at most 30 s of drain\) on preview: a local nightgate with its embedded devnet/);
  t.match(md, /\| Figure \| Value \| Target \|\n\|---\|---:\|---\|\n/);
  t.notMatch(md, /issue/i);
});

t.test('the era of an older result file: from its command, else unknown', async (t) => {
  const { txs, blocks } = chain(2, true);
  t.equal(ledgerOf(result({ txs, blocks, command: 'npm run bench:sustained -- --ledger 8 --clients 2' }).run), 8);
  t.equal(ledgerOf(result({ txs, blocks, command: 'npm run bench:sustained -- --clients 2 --ledger=9' }).run), 9);
  t.equal(ledgerOf(result({ txs, blocks, ledger: 8, command: 'npm run bench:sustained -- --ledger 9' }).run), 8, 'the recorded era wins');
  const unknown = result({ txs, blocks });
  t.equal(ledgerOf(unknown.run), undefined);
  t.equal(renderSustainedSection(unknown).split('\n')[0], '### Ledger ?');
});

t.test('the included rate is judged against 0.92 × the capacity the same run measured: our transactions per full block', async (t) => {
  // Two full blocks of 2 transactions, 6 s apart, one of them ours each (the other the devnet's
  // own): capacity 1 / 6 = 0.17 tx/s. 3 included in 19 s = 0.16 tx/s ≥ 0.92 × 0.17 = 0.15.
  const reached = result({ ...chain(2, true), ledger: 9 });
  t.equal(reached.summary.capacity.impliedTxPerSecond, 1 / 6, "the devnet's own transaction in each full block is not room for ours");
  t.equal(
    includedRow(renderSustainedSection(reached)),
    '| Included sponsored tx/s | 0.16 (3 included of 3 sponsored; ceiling 0.33: one per client per block) | ≥ 0.92 × block capacity 0.17 = 0.15: met |',
  );
  t.match(renderSustainedSection(reached), /\| Block capacity \| 0\.17 tx\/s: median 1 of ours per full block ÷ 6\.00 s \| \|/);
  // The same 3 over 60 s: 0.05 tx/s.
  const short = result({ ...chain(2, true), ledger: 9, durationS: 60 });
  t.match(includedRow(renderSustainedSection(short)), /\| ≥ 0\.92 × block capacity 0\.17 = 0\.15: \*\*not met\*\* \|$/);
});

t.test('without a full block the included rate is not judged', async (t) => {
  const md = renderSustainedSection(result({ ...chain(2, false), ledger: 8 }));
  t.equal(
    includedRow(md),
    '| Included sponsored tx/s | 0.16 (3 included of 3 sponsored; ceiling 0.33: one per client per block) | ≥ 0.92 × block ' +
      'capacity: no full block seen: not judged |',
  );
  t.match(md, /\| Block capacity \| no full block seen \(largest 2 tx\) \| \|/);
});

t.test('rejections and double-spends are judged against 0; the 503 share is a figure, whole run and from minute 3', async (t) => {
  const txs = [
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
    { at: T0 + 121_000, ms: 5, status: 503, code: 'NO_DUST_AVAILABLE' },
    { at: T0 + 122_000, ms: 200, status: 200 },
    { at: T0 + 123_000, ms: 200, status: 200 },
    { at: T0 + 124_000, ms: 200, status: 200 },
  ];
  const blocks = [
    { height: 2, timestamp: T0 + 6000, transactions: 1 },
    { height: 3, timestamp: T0 + 12_000, transactions: 1 },
  ];
  const md = renderSustainedSection(result({ txs, blocks, calls, durationS: 180, ledger: 9 }));
  t.match(md, /\| Rejected on chain \| 1 \| 0: \*\*not met\*\* \|/);
  t.match(md, /\| Double-spends \| 0 \(0 overlapping DUST UTXO, 0 spent-input rejections\) \| 0: met \|/);
  t.match(md, /\| 503 share of sponsor answers, whole run \/ from minute 3 \| 22\.22 % \/ 25\.00 % \| \|/);
  t.notMatch(md, /≥ 20/);
  t.match(md, /\| Time to inclusion p50 \/ p99 \| 6\.00 s \/ 11\.00 s \|/);
  t.match(md, /\| devnet \/submit answered 400 \| N TX_REJECTED: invalid balance N for token Dust in segment N \| 1 \|/);
  t.match(
    md,
    new RegExp(
      '\\| t \\| utxos\\.free \\| utxos\\.reserved \\| utxos\\.spent \\| utxos\\.total ' +
        '\\|\\n\\|---:\\|---:\\|---:\\|---:\\|---:\\|\\n\\| 0 s \\| 60 \\| 6 \\| 0 \\| 66 \\|\\n\\| 5 s \\| ' +
        '58 \\| 8 \\| 1 \\| 67 \\|',
    ),
  );
  t.match(md, /Other fields reported \(last sample\): `sync\.phase` synced\./);
  t.match(md, /\*\*At the end\*\*, one block after the last client stopped: free 66, reserved 0, spent 3, total 69 \(/);
  t.match(md, /- a note\n$/);
});

t.test('the pool table shows at most 12 samples, the first and the last among them', async (t) => {
  const pool = Array.from({ length: 130 }, (_, i) => ({ at: T0 + i * 5000, fields: { 'utxos.free': i } }));
  const md = renderSustainedSection(result({ ...chain(2, true), pool, ledger: 9 }));
  const rows = md.split('\n').filter((l) => /^\| \d+ s \| \d+ \|$/.test(l));
  t.equal(rows.length, 12);
  t.equal(rows[0], '| 0 s | 0 |');
  t.equal(rows[11], '| 645 s | 129 |');
  t.same(spread([1, 2, 3], 12), [1, 2, 3], 'fewer samples than rows: all of them');
});

t.test('a result file is rendered with its summary recomputed from its raw records', async (t) => {
  const r = result({ ...chain(2, true), ledger: 9 });
  const stale = { ...r, summary: { ...r.summary, included: 0, capacity: { ...r.summary.capacity, impliedTxPerSecond: 99 } } };
  t.same(resummarized(stale).summary, r.summary);
});
