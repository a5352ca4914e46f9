/**
 * The result of a sustained-sponsorship run (bench/results/sustained-<time>-<commit>.json) and its
 * subsection of bench/RESULTS.md: one table of the headline figures against the targets, then the
 * detail (per minute, statuses, rejections, block capacity, pool).
 */
import type { Era } from '../../src/infra/ledger/index.js';
import { eraHeading } from './results-section.js';
import { SETTLED_MINUTE, summarize, type BlockSeen, type PoolSample, type SponsorCall, type SustainedSummary, type TxRecord } from './sustained-stats.js';
import type { MachineInfo } from './types.js';

export interface SustainedResult {
  kind: 'sustained-sponsorship';
  run: {
    startedAt: string;
    /** Start of the measured window (after start-up and funding). */
    measuredFrom: string;
    commit: string;
    dirty: boolean;
    machine: MachineInfo;
    command: string;
    target: 'local' | 'remote';
    network: string;
    /** The ledger era the network ran, which the transfers were built for; absent in older result files. */
    ledger?: Era;
    clients: number;
    /** Clients that got NIGHT and ran. */
    funded: number;
    fundingS: number;
    durationS: number;
    drainS: number;
    blockTimeMs: number | null;
    notes: string[];
  };
  summary: SustainedSummary;
  pool: PoolSample[];
  /** The pool one block after the last client stopped: what is left reserved. */
  finalPool?: PoolSample;
  /** Raw records, so the summary can be recomputed. */
  calls: SponsorCall[];
  txs: TxRecord[];
  blocks: BlockSeen[];
}

/** Runs this long or longer, on a local server, replace their era's subsection of bench/RESULTS.md. */
export const RECORDED_MIN_S = 600;

/**
 * What runs must reach: each an included rate of at least `runShareOfCapacity` of the block
 * capacity measured in the same run (the chain, not nightgate, bounds it), and the median of the
 * runs at one commit at least `medianShareOfCapacity`; nothing rejected on chain or expired
 * unlanded, no double-spend.
 */
export const SUSTAINED_TARGETS = { runShareOfCapacity: 0.92, medianShareOfCapacity: 0.95, onChainRejections: 0, doubleSpends: 0 } as const;

/** The text under `## Sustained sponsorship`, shared by the era subsections. */
export const SUSTAINED_INTRO =
  `The local runs of at least ${RECORDED_MIN_S / 60} minutes on each ledger era at the newest commit run ` +
  `(\`npm run bench:sustained\`; a run rewrites its era's subsection: ` +
  `its own detail, then every run of its commit). ` +
  'Each client has its own NIGHT address and API key and loops: build an unproven NIGHT transfer from its current UTXO → ' +
  '`POST /prove-and-balance` → devnet `POST /submit` → ' +
  "wait until the block that includes it is seen over the indexer's `blocks` subscription → spend the change. " +
  "Time to inclusion runs from the sponsor's 200 to that block being seen; sponsor latency is the 200 answers' request-to-answer time. " +
  `Targets: included sponsored tx/s ≥ ${SUSTAINED_TARGETS.runShareOfCapacity}` +
  ` × the block capacity measured in the same run (median of our transactions per full block ÷ block interval; the devnet's ` +
  `own traffic in those blocks is not counted) in every run, ` +
  `≥ ${SUSTAINED_TARGETS.medianShareOfCapacity} × in the median of a commit's runs, none rejected on chain or expired unlanded, no double-spend.`;

/** Pool samples shown at most, the first and the last among them. */
const MAX_POOL_ROWS = 12;
const EXAMPLE_CHARS = 120;

const num = (n: number | null | undefined, digits = 0): string =>
  n === null || n === undefined ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const secs = (ms: number | null): string => (ms === null ? '–' : `${num(ms / 1000, 2)} s`);
const pct = (share: number): string => `${num(share * 100, 2)} %`;
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const met = (ok: boolean): string => (ok ? 'met' : '**not met**');

/** The era of a run: its `ledger`, or in older files the `--ledger` of its command; undefined when neither says. */
export function ledgerOf(run: SustainedResult['run']): Era | undefined {
  if (run.ledger !== undefined) return run.ledger;
  const flag = /(?:^|\s)--ledger[=\s]+(8|9)(?:\s|$)/.exec(run.command)?.[1];
  return flag === undefined ? undefined : (Number(flag) as Era);
}

/** The result with its summary computed again from its raw records, by the current definitions. */
export function resummarized(r: SustainedResult): SustainedResult {
  const startMs = Date.parse(r.run.measuredFrom);
  return { ...r, summary: summarize({ startMs, endMs: startMs + r.run.durationS * 1000, calls: r.calls, txs: r.txs, blocks: r.blocks }) };
}

/** Up to `max` samples evenly spread over the run, the first and the last included. */
export function spread<T>(samples: readonly T[], max: number): T[] {
  if (samples.length <= max) return [...samples];
  const picked = new Set(Array.from({ length: max }, (_, k) => Math.round((k * (samples.length - 1)) / (max - 1))));
  return [...picked].map((i) => samples[i] as T);
}

/** The pool fields shown as columns, in this order, when the server reports them; the rest are listed once. */
const POOL_COLUMNS = ['utxos.free', 'utxos.reserved', 'utxos.spent', 'utxos.total', 'target', 'utxos.target', 'maintenance', 'sustainableRate', 'balance'];

function poolTable(samples: readonly PoolSample[], startMs: number): string[] {
  if (samples.length === 0) return ['No `/wallet-status` sample was read.'];
  const present = new Set(samples.flatMap((s) => Object.keys(s.fields)));
  const columns = POOL_COLUMNS.filter((c) => present.has(c));
  const others = [...present].filter((c) => !columns.includes(c)).sort();
  return [
    `| t | ${columns.join(' | ')} |`,
    `|---:|${columns.map(() => '---:').join('|')}|`,
    ...spread(samples, MAX_POOL_ROWS).map((s) => `| ${num((s.at - startMs) / 1000)} s | ${columns.map((c) => cell(String(s.fields[c] ?? '–'))).join(' | ')} |`),
    ...(others.length
      ? ['', `Other fields reported (last sample): ${others.map((c) => `\`${c}\` ${cell(String(samples[samples.length - 1]?.fields[c] ?? '–'))}`).join(', ')}.`]
      : []),
  ];
}

/** The included rate against the capacity the run measured; not judged without a full block. */
function capacityTarget(s: SustainedSummary): string {
  const share = SUSTAINED_TARGETS.runShareOfCapacity;
  const capacity = s.capacity.impliedTxPerSecond;
  if (capacity === null) return `≥ ${share} × block capacity: no full block seen: not judged`;
  return `≥ ${share} × block capacity ${num(capacity, 2)} = ${num(share * capacity, 2)}: ${met(s.includedPerSecond >= share * capacity)}`;
}

export function renderSustainedSection(r: SustainedResult): string {
  const s = r.summary;
  const t = SUSTAINED_TARGETS;
  const startMs = Date.parse(r.run.measuredFrom);
  const rejected = s.outcomes['submit-rejected'] + s.outcomes.dropped + s.outcomes.expired;
  const doubles = s.doubleSpends.overlappingDustUtxo + s.doubleSpends.spentInputRejections;
  const cap = s.capacity;
  const era = ledgerOf(r.run);
  // A client spends the change of its last transfer, so it lands at most one transaction per block.
  const blockS = r.run.blockTimeMs !== null ? r.run.blockTimeMs / 1000 : cap.blockIntervalS;
  const ceiling = blockS ? r.run.funded / blockS : null;
  const lines = [
    eraHeading(era),
    '',
    `${r.run.clients} clients for ${num(r.run.durationS)} s (then at most ${num(r.run.drainS)} s of drain) on ${r.run.network}: ` +
      `${
        r.run.target === 'local'
          ? 'a local nightgate with its embedded devnet, ' + 'one API key per client'
          : 'a deployment (--url), the given API keys round robin'
      }` +
      `, ` +
      `blocks every ${r.run.blockTimeMs !== null ? `${num(r.run.blockTimeMs / 1000, 1)} s` : `${num(cap.blockIntervalS, 1)} s (measured)`}; ` +
      `${r.run.funded} of ${r.run.clients} clients funded in ${num(r.run.fundingS)} s. ` +
      `Run ${r.run.startedAt} on commit \`${r.run.commit}${r.run.dirty ? '+' : ''}` +
      `\`, ${r.run.machine.cpuModel}` +
      ` ×${r.run.machine.cores}` +
      `, Node ${r.run.machine.node}` +
      `. Reproduce: \`${r.run.command}` +
      `\`.`,
    '',
    '| Figure | Value | Target |',
    '|---|---:|---|',
    `| Included sponsored tx/s | ${num(s.includedPerSecond, 2)}` +
      ` (${num(s.included)}` +
      ` included of ${num(s.sponsored)}` +
      ` sponsored; ceiling ${ceiling === null ? '–' : num(ceiling, 2)}` +
      `: one per client per block) | ${capacityTarget(s)}` +
      ` |`,
    `| Rejected on chain | ${num(rejected)} | ${t.onChainRejections}: ${met(rejected === t.onChainRejections)} |`,
    `| Double-spends | ${num(doubles)} (${num(s.doubleSpends.overlappingDustUtxo)}` +
      ` overlapping DUST UTXO, ${num(s.doubleSpends.spentInputRejections)}` +
      ` spent-input rejections) | ${t.doubleSpends}` +
      `: ${met(doubles === t.doubleSpends)}` +
      ` |`,
    `| Block capacity | ${
      cap.impliedTxPerSecond !== null
        ? `${num(cap.impliedTxPerSecond, 2)}` + ` tx/s: median ${num(cap.perFullBlock.p50)}` + ` of ours per full block ÷ ${num(cap.blockIntervalS, 2)}` + ` s`
        : `no full block seen (largest ${num(cap.maxPerBlock)}` + ` tx)`
    }` + ` | |`,
    `| 503 share of sponsor answers, whole run / from minute ${SETTLED_MINUTE} | ${pct(s.rate503)} / ${pct(s.rate503Settled)} | |`,
    `| Time to inclusion p50 / p99 | ${secs(s.inclusionMs.p50)} / ${secs(s.inclusionMs.p99)} | |`,
    `| Sponsor answer p50 / p99 | ${num(s.sponsorMs.p50, 1)} ms / ${num(s.sponsorMs.p99, 1)} ms | |`,
    `| Still on their way at the end | ${num(s.outcomes.pending)} | |`,
    '',
    '**Per minute**',
    '',
    '| Minute | Included | tx/s | 503 answers | 503 share |',
    '|---:|---:|---:|---:|---:|',
    ...s.includedPerMinute.map(
      (m, i) =>
        `| ${m.minute} | ${num(m.count)} | ${num(m.perSecond, 2)} | ${num(s.rate503PerMinute[i]?.count ?? 0)} | ${pct(s.rate503PerMinute[i]?.share ?? 0)} |`,
    ),
    '',
    `**Sponsor answers by status**: ${
      Object.entries(s.statuses)
        .map(([k, n]) => `${k} × ${num(n)}`)
        .join(', ') || 'none'
    }.`,
    '',
    '**On-chain rejections by reason**',
    '',
    ...(s.rejections.length
      ? [
          '| Where | Reason (numbers as N) | Count | Example |',
          '|---|---|---:|---|',
          ...s.rejections.map((x) => `| ${x.outcome} | ${cell(x.reason)} | ${num(x.count)} | ${cell(x.example.slice(0, EXAMPLE_CHARS))} |`),
        ]
      : ['None.']),
    '',
    `**Block capacity**: ${num(cap.blocks)} blocks seen, ${num(cap.fullBlocks)}` +
      ` full (a block is full when it left out a transaction of ours submitted before it that a later block included), ` +
      `our tx per full block median ${num(cap.perFullBlock.p50)}` +
      `, max ${num(cap.perFullBlock.max)}` +
      `; block interval ${num(cap.blockIntervalS, 2)}` +
      ` s; most transactions in one block ${num(cap.maxPerBlock)}` +
      `.`,
    '',
    `**Sponsor pool over time** (\`GET /wallet-status\`, ${r.run.network}; t from the start of the measured window)`,
    '',
    ...poolTable(r.pool, startMs),
    ...(r.finalPool
      ? [
          '',
          `**At the end**, one block after the last client stopped: ${['utxos.free', 'utxos.reserved', 'utxos.spent', 'utxos.total']
            .filter((k) => r.finalPool?.fields[k] !== undefined)
            .map((k) => `${k.slice(6)} ${String(r.finalPool?.fields[k])}`)
            .join(', ')} (reserved UTXOs are reclaimed after \`dust.reservationTtlMs\`).`,
        ]
      : []),
  ];
  if (r.run.notes.length) lines.push('', ...r.run.notes.map((n) => `- ${n}`));
  return lines.join('\n') + '\n';
}

/** Included tx/s over the capacity the run measured; null without a full block. */
export function shareOfCapacity(r: SustainedResult): number | null {
  const capacity = r.summary.capacity.impliedTxPerSecond;
  return capacity === null || capacity === 0 ? null : r.summary.includedPerSecond / capacity;
}

/**
 * The runs of one commit and era, oldest first: each one's rate, capacity and share of it, what
 * did not land, and the median share against the targets.
 */
export function renderRunsTable(runs: readonly SustainedResult[]): string {
  const t = SUSTAINED_TARGETS;
  const shares = runs
    .map(shareOfCapacity)
    .filter((x): x is number => x !== null)
    .sort((a, b) => a - b);
  const median =
    shares.length === 0 ? null : shares.length % 2 ? shares[(shares.length - 1) / 2]! : (shares[shares.length / 2 - 1]! + shares[shares.length / 2]!) / 2;
  const rows = runs.map((r, i) => {
    const s = r.summary;
    const share = shareOfCapacity(r);
    const lost = s.outcomes['submit-rejected'] + s.outcomes.dropped + s.outcomes.expired;
    const doubles = s.doubleSpends.overlappingDustUtxo + s.doubleSpends.spentInputRejections;
    return (
      `| ${i + 1} | ${r.run.startedAt} | ${num(s.includedPerSecond, 2)}` +
      ` | ${num(s.capacity.impliedTxPerSecond, 2)}` +
      ` | ${share === null ? '–' : num(share, 3)}` +
      ` | ${num(lost)}` +
      ` | ${num(doubles)}` +
      ` |`
    );
  });
  return [
    `**Runs at this commit** (${runs.length}): median share of capacity ${median === null ? '–' : num(median, 3)}` +
      ` (target ≥ ${t.medianShareOfCapacity}` +
      `: ${median === null ? 'not judged' : met(median >= t.medianShareOfCapacity && runs.length >= 3)}` +
      `${runs.length < 3 ? `, ${runs.length}` + ` of 3 runs` : ''}` +
      `), ` +
      `lowest ${shares.length ? num(shares[0]!, 3) : '–'} (target ≥ ${t.runShareOfCapacity}` +
      `: ${shares.length ? met(shares[0]! >= t.runShareOfCapacity) : 'not judged'}` +
      `).`,
    '',
    '| Run | Started | Included tx/s | Capacity tx/s | Share | Rejected, dropped or expired on chain | Double-spends |',
    '|---:|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
