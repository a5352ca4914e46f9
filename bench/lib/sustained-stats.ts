/**
 * The figures of a sustained-sponsorship run, computed from what the clients recorded: pure
 * functions over plain records (no clock, no I/O), so the report can be recomputed from a result
 * file and tested without a chain.
 */

/** One answer of `POST /prove-and-balance` (every status, retries included). */
export interface SponsorCall {
  /** When the answer arrived (ms since the epoch). */
  at: number;
  /** Request to answer, ms. */
  ms: number;
  /** HTTP status; 0 when no answer came (timeout, connection error). */
  status: number;
  /** The error catalogue's `code` of a non-200 answer, or the transport error's name. */
  code?: string;
}

export type Outcome = 'included' | 'submit-rejected' | 'dropped' | 'expired' | 'pending';

/** One sponsored transaction (a 200 answer) and what became of it. */
export interface TxRecord {
  client: number;
  txHash: string;
  /** When the sponsor's 200 arrived (ms since the epoch). */
  answeredAt: number;
  /** `dustUtxo` of the answer as `wallet:slot`: which server DUST UTXO pays the fee. */
  dustUtxo: string;
  /** The answer's `expiresAt` (ms since the epoch). */
  expiresAt: number;
  fee: string;
  outcome: Outcome;
  /** Seen in a block by the bench's subscription (ms since the epoch). */
  seenAt?: number;
  blockHeight?: number;
  /** The block's own timestamp (ms). */
  blockTimestamp?: number;
  /** Submit accepted (ms since the epoch). */
  submittedAt?: number;
  /** The devnet's reason for `submit-rejected` (its 400 body) or `dropped` (its block-time log). */
  reason?: string;
}

/** A block seen by the bench's subscription. */
export interface BlockSeen {
  height: number;
  /** The block's own timestamp (ms). */
  timestamp: number;
  /** Every transaction in it, the devnet's own included. */
  transactions: number;
}

/** One poll of `GET /wallet-status` for the benched network: whatever numeric fields it had. */
export interface PoolSample {
  at: number;
  fields: Record<string, number | string>;
}

export interface Percentiles {
  count: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; null without values. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function percentiles(values: readonly number[]): Percentiles {
  return {
    count: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length ? values.reduce((a, b) => (b > a ? b : a)) : null,
  };
}

/**
 * Events per whole minute of the window [startMs, endMs): counts and rates per second. The last
 * minute may be partial: its rate is over its own length. Events outside the window are ignored.
 */
export function perMinute(times: readonly number[], startMs: number, endMs: number): Array<{ minute: number; count: number; perSecond: number }> {
  const span = Math.max(0, endMs - startMs);
  const minutes = Math.ceil(span / 60_000);
  const out = Array.from({ length: minutes }, (_, i) => ({ minute: i + 1, count: 0, perSecond: 0 }));
  for (const t of times) {
    if (t < startMs || t >= endMs) continue;
    const bucket = out[Math.floor((t - startMs) / 60_000)];
    if (bucket) bucket.count++;
  }
  for (const b of out) {
    const lengthS = Math.min(60, (span - (b.minute - 1) * 60_000) / 1000);
    b.perSecond = lengthS > 0 ? b.count / lengthS : 0;
  }
  return out;
}

/** `200`, `503 NO_DUST_AVAILABLE`, `0 TimeoutError`…: counts by status and code. */
export function statusCounts(calls: readonly SponsorCall[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of calls) {
    const k = c.status === 200 || c.code === undefined ? String(c.status) : `${c.status} ${c.code}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * A reason with its numbers and hashes taken out, so rejections group by kind:
 * `invalid balance -4.07e13 for token Dust in segment 0` → `invalid balance N for token Dust in segment N`.
 */
export function reasonKind(reason: string): string {
  return reason
    .replace(/\b(0x)?[0-9a-f]{16,}\b/gi, 'HEX')
    .replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

export const OUTCOME_LABEL: Record<Exclude<Outcome, 'included' | 'pending'>, string> = {
  'submit-rejected': 'devnet /submit answered 400',
  dropped: 'dropped at block time (devnet log)',
  expired: 'never included before expiresAt',
};

/** On-chain rejections (every outcome but included and pending) by outcome and reason kind. */
export function rejectionsByReason(txs: readonly TxRecord[]): Array<{ outcome: string; reason: string; count: number; example: string }> {
  const groups = new Map<string, { outcome: string; reason: string; count: number; example: string }>();
  for (const t of txs) {
    if (t.outcome === 'included' || t.outcome === 'pending') continue;
    const reason = t.reason ? reasonKind(t.reason) : '–';
    const k = `${t.outcome}\u0000${reason}`;
    const g = groups.get(k) ?? { outcome: OUTCOME_LABEL[t.outcome], reason, count: 0, example: t.reason ?? '' };
    g.count++;
    groups.set(k, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** Words in a devnet reason that mean an input was spent already (ledger: nullifier, double spend, UTXO missing). */
const SPENT_WORDS = /already spent|nullifier|double.?spen|input.*(missing|not found|unknown)|utxo.*(missing|not found|spent)/i;

export function mentionsSpent(reason: string | undefined): boolean {
  return reason !== undefined && SPENT_WORDS.test(reason);
}

/**
 * Two 200 answers that paid with the same server DUST UTXO while the first could still land.
 * The first's window runs from its answer to the timestamp of the block that included it (the
 * server may reuse the UTXO's slot once that block is synced), or to its `expiresAt` when it was
 * never included (the server cannot know a submit failed, so it must hold the UTXO until then).
 */
export function overlappingDustSpends(txs: readonly TxRecord[]): Array<{ dustUtxo: string; first: string; second: string }> {
  const byUtxo = new Map<string, TxRecord[]>();
  for (const t of txs) {
    const list = byUtxo.get(t.dustUtxo) ?? [];
    list.push(t);
    byUtxo.set(t.dustUtxo, list);
  }
  const out: Array<{ dustUtxo: string; first: string; second: string }> = [];
  for (const [dustUtxo, list] of byUtxo) {
    list.sort((a, b) => a.answeredAt - b.answeredAt);
    for (let i = 1; i < list.length; i++) {
      const second = list[i] as TxRecord;
      // Any earlier answer whose window is still open when this one arrives.
      for (let j = 0; j < i; j++) {
        const first = list[j] as TxRecord;
        const end = first.outcome === 'included' && first.blockTimestamp !== undefined ? first.blockTimestamp : first.expiresAt;
        if (second.answeredAt < end && first.txHash !== second.txHash) {
          out.push({ dustUtxo, first: first.txHash, second: second.txHash });
          break;
        }
      }
    }
  }
  return out;
}

export interface BlockCapacity {
  blocks: number;
  /** Blocks that left out a transaction of ours that was submitted before them and landed later. */
  fullBlocks: number;
  /** Transactions per full block (all transactions, the devnet's own included). */
  perFullBlock: Percentiles & { mean: number | null };
  maxPerBlock: number | null;
  /** Mean seconds between consecutive blocks seen. */
  blockIntervalS: number | null;
  /** Transactions per second the full blocks imply: the median per full block ÷ the block interval. */
  impliedTxPerSecond: number | null;
}

/** How many submitted-then-included transactions may race a block's production and still count as left out. */
const SUBMIT_MARGIN_MS = 100;

/**
 * The devnet's measured capacity for these transactions: a block is full when a transaction of
 * ours, accepted by /submit at least SUBMIT_MARGIN_MS before the block's timestamp, valid (it was
 * included later), was not in it — the devnet defers valid transactions only when a block is full.
 * What a full block holds of ours is the capacity: the devnet's own traffic (a NIGHT transfer every
 * block; a shielded transfer, a contract call or a registration in some) takes the rest, and is
 * of other sizes than a sponsored transfer, so it is not counted as room for ours.
 */
export function blockCapacity(blocks: readonly BlockSeen[], txs: readonly TxRecord[]): BlockCapacity {
  const landed = txs.filter((t) => t.outcome === 'included' && t.submittedAt !== undefined && t.blockHeight !== undefined);
  const full = blocks.filter((b) => landed.some((t) => (t.submittedAt as number) < b.timestamp - SUBMIT_MARGIN_MS && (t.blockHeight as number) > b.height));
  const ours = new Map<number, number>();
  for (const t of landed) ours.set(t.blockHeight as number, (ours.get(t.blockHeight as number) ?? 0) + 1);
  const counts = full.map((b) => ours.get(b.height) ?? 0);
  // The median, so that a few blocks the devnet's own traffic filled do not move the capacity.
  const perFullBlock = percentiles(counts);
  const mean = counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : null;
  const sorted = [...blocks].sort((a, b) => a.height - b.height);
  const gaps: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1] as BlockSeen;
    const b = sorted[i] as BlockSeen;
    if (b.height === a.height + 1) gaps.push(b.timestamp - a.timestamp);
  }
  const intervalS = gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length / 1000 : null;
  return {
    blocks: blocks.length,
    fullBlocks: full.length,
    perFullBlock: { ...perFullBlock, mean },
    maxPerBlock: blocks.length ? blocks.reduce((m, b) => Math.max(m, b.transactions), 0) : null,
    blockIntervalS: intervalS,
    impliedTxPerSecond: perFullBlock.p50 !== null && intervalS ? perFullBlock.p50 / intervalS : null,
  };
}

/**
 * The first minute of a run whose 503s no longer count the pool's growth: a server starts with the
 * DUST UTXOs of its wallets and splits more while clients wait (503 NO_DUST_AVAILABLE).
 */
export const SETTLED_MINUTE = 3;

/** Share of the answers in [fromMs, toMs) that were 503; 0 without answers. */
export function share503(calls: readonly SponsorCall[], fromMs: number, toMs: number): number {
  const inside = calls.filter((c) => c.at >= fromMs && c.at < toMs);
  return inside.length ? inside.filter((c) => c.status === 503).length / inside.length : 0;
}

export interface SustainedSummary {
  windowS: number;
  sponsored: number;
  included: number;
  /** Included with `seenAt` inside the measured window, per second of it. */
  includedPerSecond: number;
  includedPerMinute: Array<{ minute: number; count: number; perSecond: number }>;
  inclusionMs: Percentiles;
  sponsorMs: Percentiles;
  /** Sponsor answers by status (and code). */
  statuses: Record<string, number>;
  /** Share of all sponsor answers that were 503. */
  rate503: number;
  /** Share of the answers from minute SETTLED_MINUTE of the window on that were 503: once the pool has grown. */
  rate503Settled: number;
  /** 503 answers per minute of the window, and their share of the minute's answers. */
  rate503PerMinute: Array<{ minute: number; count: number; share: number }>;
  outcomes: Record<Outcome, number>;
  rejections: Array<{ outcome: string; reason: string; count: number; example: string }>;
  doubleSpends: { overlappingDustUtxo: number; spentInputRejections: number; examples: Array<{ dustUtxo: string; first: string; second: string }> };
  capacity: BlockCapacity;
}

export function summarize(input: {
  startMs: number;
  endMs: number;
  calls: readonly SponsorCall[];
  txs: readonly TxRecord[];
  blocks: readonly BlockSeen[];
}): SustainedSummary {
  const { startMs, endMs, calls, txs, blocks } = input;
  const windowS = (endMs - startMs) / 1000;
  const included = txs.filter((t) => t.outcome === 'included');
  const seenInWindow = included.map((t) => t.seenAt as number).filter((t) => t >= startMs && t < endMs);
  const outcomes: Record<Outcome, number> = { included: 0, 'submit-rejected': 0, dropped: 0, expired: 0, pending: 0 };
  for (const t of txs) outcomes[t.outcome]++;
  const callMinutes = perMinute(
    calls.map((c) => c.at),
    startMs,
    endMs,
  );
  const minutes503 = perMinute(
    calls.filter((c) => c.status === 503).map((c) => c.at),
    startMs,
    endMs,
  );
  const overlaps = overlappingDustSpends(txs);
  return {
    windowS,
    sponsored: txs.length,
    included: included.length,
    includedPerSecond: windowS > 0 ? seenInWindow.length / windowS : 0,
    includedPerMinute: perMinute(seenInWindow, startMs, endMs),
    inclusionMs: percentiles(included.map((t) => (t.seenAt as number) - t.answeredAt)),
    sponsorMs: percentiles(calls.filter((c) => c.status === 200).map((c) => c.ms)),
    statuses: statusCounts(calls),
    rate503: calls.length ? calls.filter((c) => c.status === 503).length / calls.length : 0,
    rate503Settled: share503(calls, startMs + (SETTLED_MINUTE - 1) * 60_000, endMs),
    rate503PerMinute: minutes503.map((m, i) => ({
      minute: m.minute,
      count: m.count,
      share: callMinutes[i]?.count ? m.count / (callMinutes[i] as { count: number }).count : 0,
    })),
    outcomes,
    rejections: rejectionsByReason(txs),
    doubleSpends: {
      overlappingDustUtxo: overlaps.length,
      spentInputRejections: txs.filter((t) => t.outcome !== 'included' && mentionsSpent(t.reason)).length,
      examples: overlaps.slice(0, 5),
    },
    capacity: blockCapacity(blocks, txs),
  };
}
