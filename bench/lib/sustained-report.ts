/**
 * The result of a sustained-sponsorship run (bench/results/sustained-<time>-<commit>.json) and the
 * section of bench/RESULTS.md rendered from it: one table of the headline figures against issue
 * 17's targets, then the detail (per minute, statuses, rejections, pool, block capacity).
 */
import type { MachineInfo } from './types.js';
import type { BlockSeen, PoolSample, SponsorCall, SustainedSummary, TxRecord } from './sustained-stats.js';

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

/** Issue 17, "Done when": the figures a 150-client, 10-minute run must reach. */
export const SUSTAINED_TARGETS = { includedPerSecond: 20, onChainRejections: 0, doubleSpends: 0, rate503: 0.01 } as const;

const num = (n: number | null | undefined, digits = 0): string =>
  n === null || n === undefined ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const secs = (ms: number | null): string => (ms === null ? '–' : `${num(ms / 1000, 2)} s`);
const pct = (share: number): string => `${num(share * 100, 2)} %`;
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The pool fields shown as columns, in this order, when the server reports them; the rest are listed once. */
const POOL_COLUMNS = ['utxos.free', 'utxos.reserved', 'utxos.spent', 'utxos.total', 'target', 'utxos.target', 'maintenance', 'sustainableRate', 'balance'];

function poolTable(samples: readonly PoolSample[], startMs: number): string[] {
  if (samples.length === 0) return ['No `/wallet-status` sample was read.'];
  const present = new Set(samples.flatMap((s) => Object.keys(s.fields)));
  const columns = POOL_COLUMNS.filter((c) => present.has(c));
  const others = [...present].filter((c) => !columns.includes(c)).sort();
  // At most ~20 rows: every k-th sample, and the last one.
  const step = Math.max(1, Math.ceil(samples.length / 20));
  const rows = samples.filter((_, i) => i % step === 0 || i === samples.length - 1);
  return [
    `| t | ${columns.join(' | ')} |`,
    `|---:|${columns.map(() => '---:').join('|')}|`,
    ...rows.map((s) => `| ${num((s.at - startMs) / 1000)} s | ${columns.map((c) => cell(String(s.fields[c] ?? '–'))).join(' | ')} |`),
    ...(others.length ? ['', `Other fields reported (last sample): ${others.map((c) => `\`${c}\` ${cell(String(samples[samples.length - 1]?.fields[c] ?? '–'))}`).join(', ')}.`] : []),
  ];
}

export function renderSustainedSection(r: SustainedResult): string {
  const s = r.summary;
  const t = SUSTAINED_TARGETS;
  const startMs = Date.parse(r.run.measuredFrom);
  const rejected = s.outcomes['submit-rejected'] + s.outcomes.dropped + s.outcomes.expired;
  const doubles = s.doubleSpends.overlappingDustUtxo + s.doubleSpends.spentInputRejections;
  const cap = s.capacity;
  // A client spends the change of its last transfer, so it lands at most one transaction per block.
  const blockS = r.run.blockTimeMs !== null ? r.run.blockTimeMs / 1000 : cap.blockIntervalS;
  const ceiling = blockS ? r.run.funded / blockS : null;
  const met = (ok: boolean): string => (ok ? 'met' : '**not met**');
  const lines = [
    `## Sustained sponsorship (${r.run.clients} clients, ${num(r.run.durationS)} s, ${r.run.network})`,
    '',
    `Run ${r.run.startedAt} on commit \`${r.run.commit}${r.run.dirty ? '+' : ''}\`, ${r.run.machine.cpuModel} ×${r.run.machine.cores}, Node ${r.run.machine.node}; ` +
      `${r.run.target === 'local' ? 'local nightgate with its embedded devnet' : 'a deployment (--url)'}, blocks every ${r.run.blockTimeMs !== null ? `${num(r.run.blockTimeMs / 1000, 1)} s` : `${num(cap.blockIntervalS, 1)} s (measured)`}. ` +
      `${r.run.funded} of ${r.run.clients} clients funded in ${num(r.run.fundingS)} s. Reproduce: \`${r.run.command}\`.`,
    '',
    `Each client has its own NIGHT address and ${r.run.target === 'local' ? 'its own API key' : 'one of the given API keys (round robin)'}, and loops: ` +
      "build an unproven NIGHT transfer from its current UTXO → `POST /prove-and-balance` → devnet `POST /submit` → wait until the block that includes it is seen over the indexer's `blocks` subscription → spend the change. " +
      "Time to inclusion runs from the sponsor's 200 to that block being seen; sponsor latency is the 200 answers' request-to-answer time.",
    '',
    '| Figure | Value | Target (issue 17) |',
    '|---|---:|---|',
    `| Included sponsored tx/s | ${num(s.includedPerSecond, 2)} (${num(s.included)} included of ${num(s.sponsored)} sponsored; ceiling ${ceiling === null ? '–' : num(ceiling, 2)}: one per client per block) | ≥ ${t.includedPerSecond}: ${met(s.includedPerSecond >= t.includedPerSecond)} |`,
    `| Rejected on chain | ${num(rejected)} | ${t.onChainRejections}: ${met(rejected === t.onChainRejections)} |`,
    `| Double-spends | ${num(doubles)} (${num(s.doubleSpends.overlappingDustUtxo)} overlapping DUST UTXO, ${num(s.doubleSpends.spentInputRejections)} spent-input rejections) | ${t.doubleSpends}: ${met(doubles === t.doubleSpends)} |`,
    `| 503 share of sponsor answers | ${pct(s.rate503)} | < ${pct(t.rate503)} after the pool has grown: ${met(s.rate503 < t.rate503)} (whole run) |`,
    `| Time to inclusion p50 / p99 | ${secs(s.inclusionMs.p50)} / ${secs(s.inclusionMs.p99)} | |`,
    `| Sponsor answer p50 / p99 | ${num(s.sponsorMs.p50, 1)} ms / ${num(s.sponsorMs.p99, 1)} ms | |`,
    `| Devnet block capacity (tx per full block) | ${cap.fullBlocks ? `median ${num(cap.perFullBlock.p50)}, max ${num(cap.perFullBlock.max)} over ${cap.fullBlocks} full blocks ≈ ${num(cap.impliedTxPerSecond, 2)} tx/s` : `no full block seen (largest ${num(cap.maxPerBlock)} tx)`} | |`,
    `| Still on their way at the end | ${num(s.outcomes.pending)} | |`,
    '',
    '**Per minute**',
    '',
    '| Minute | Included | tx/s | 503 answers | 503 share |',
    '|---:|---:|---:|---:|---:|',
    ...s.includedPerMinute.map((m, i) => `| ${m.minute} | ${num(m.count)} | ${num(m.perSecond, 2)} | ${num(s.rate503PerMinute[i]?.count ?? 0)} | ${pct(s.rate503PerMinute[i]?.share ?? 0)} |`),
    '',
    `**Sponsor answers by status**: ${Object.entries(s.statuses).map(([k, n]) => `${k} × ${num(n)}`).join(', ') || 'none'}.`,
    '',
    '**On-chain rejections by reason**',
    '',
    ...(s.rejections.length
      ? ['| Where | Reason (numbers as N) | Count | Example |', '|---|---|---:|---|', ...s.rejections.map((x) => `| ${x.outcome} | ${cell(x.reason)} | ${num(x.count)} | ${cell(x.example.slice(0, 160))} |`)]
      : ['None.']),
    '',
    `**Block capacity**: ${num(cap.blocks)} blocks seen, ${num(cap.fullBlocks)} full (a block is full when it left out a transaction of ours submitted before it that a later block included), block interval ${num(cap.blockIntervalS, 2)} s, most transactions in one block ${num(cap.maxPerBlock)}.`,
    '',
    `**Sponsor pool over time** (\`GET /wallet-status\`, ${r.run.network}; t from the start of the measured window)`,
    '',
    ...poolTable(r.pool, startMs),
    ...(r.finalPool
      ? ['', `**At the end**, one block after the last client stopped: ${['utxos.free', 'utxos.reserved', 'utxos.spent', 'utxos.total'].filter((k) => r.finalPool?.fields[k] !== undefined).map((k) => `${k.slice(6)} ${String(r.finalPool?.fields[k])}`).join(', ')} (reserved UTXOs are reclaimed after \`dust.reservationTtlMs\`).`]
      : []),
  ];
  if (r.run.notes.length) lines.push('', ...r.run.notes.map((n) => `- ${n}`));
  return lines.join('\n') + '\n';
}
