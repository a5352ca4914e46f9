/**
 * The derived statistics, as pure functions of the block window, the time and the follower's
 * health. Rounding is fixed here so responses are exact and testable.
 */
import type { BlockWindow } from './block-window.js';
import type { DParameterChange, NodeDParameterReading } from './governance.js';
import type { BlockTime, BlocksProduced, DParameter, LatestBlock, RecentTransactions, Uptime } from './schemas.js';
import { eraOfProtocolVersion, type Era } from '../../infra/ledger/index.js';
import type { FeeFields, RingBlock, TxTypename } from './upstream-types.js';

/** Midnight's block time (LEDGER.md, "Units"). */
export const TARGET_BLOCK_SECONDS = 6;
/** Up to this many block times of block age the chain is fully fresh… */
const FRESH_BLOCKS = 2;
/**
 * …and from this many it is stale: freshness has fallen linearly to zero, the network is
 * `degraded` (uptime, summary, /health), missing from /readyz and not sponsored (503 CHAIN_STALE).
 * Exactly this many block times is stale already (`isStale`).
 */
export const STALE_AFTER_BLOCKS = 10;
/** Block time is averaged over at most this many of the latest intervals (10 minutes at 6 s). */
const BLOCK_TIME_INTERVALS = 100;
/** A gap between consecutive blocks longer than this is a halt, not a block interval. */
const STALL_SECONDS = 10 * TARGET_BLOCK_SECONDS;
/** Below this production (epoch utilization, or target / average block time) the network is `degraded`. */
const HEALTHY_PRODUCTION = 0.8;

const round = (x: number, decimals: number): number => {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
};

export const iso = (ms: number): string => new Date(ms).toISOString();

function ageSeconds(block: RingBlock, now: number): number {
  return Math.max(0, Math.floor((now - block.timestamp) / 1000));
}

/**
 * The freshness rule: a chain whose newest block is `ageMs` old is stale from STALE_AFTER_BLOCKS
 * times its expected block time `blockTimeMs` on, that boundary included. An indexer keeps
 * answering while the chain behind it has stopped; only the age of its newest block tells.
 */
export function isStale(ageMs: number, blockTimeMs: number): boolean {
  return ageMs >= STALE_AFTER_BLOCKS * blockTimeMs;
}

/** Why the chain whose newest block is `tip` is stale at `now`, for /readyz, /health and a 503; undefined while it is fresh. */
export function staleReason(tip: RingBlock, now: number, blockTimeMs: number): string | undefined {
  const ageMs = Math.max(0, now - tip.timestamp);
  if (!isStale(ageMs, blockTimeMs)) return undefined;
  // The age to a tenth of a second, never rounded up past the limit; the block time as configured.
  return (
    `newest block (height ${tip.height}) is ${Math.floor(ageMs / 100) / 10}` +
    ` s old, at least ${STALE_AFTER_BLOCKS}` +
    ` × the ${blockTimeMs / 1000} s block time`
  );
}

type TransactionKind = 'regular' | 'system' | 'bridge-claim';
const KIND: Record<TxTypename, TransactionKind> = { RegularTransaction: 'regular', SystemTransaction: 'system', BridgeClaimTransaction: 'bridge-claim' };

/** The API's kind of a transaction, from the indexer's typename. */
export const transactionKind = (typename: TxTypename): TransactionKind => KIND[typename];

/** The ledger era a protocol version belongs to. */
export const ledgerOf = (protocolVersion: number): Era => eraOfProtocolVersion(protocolVersion);

/** The fee paid in SPECK: `fee`, else the deprecated `fees.paidFees` (indexers without `fee`); null when neither came. */
export function paidFee(t: FeeFields): string | null {
  return t.fee ?? t.fees?.paidFees ?? null;
}

/** The fees of a regular transaction: the deprecated estimate when the indexer still reports it, else the fee paid. */
export function feesOf(t: FeeFields): { paid: string; estimated: string; unit: 'SPECK' } | null {
  const paid = paidFee(t);
  return paid === null ? null : { paid, estimated: t.fees?.estimatedFees ?? paid, unit: 'SPECK' };
}

export function latestBlock(tip: RingBlock, now: number): LatestBlock {
  return {
    height: tip.height,
    hash: tip.hash,
    timestamp: iso(tip.timestamp),
    ageSeconds: ageSeconds(tip, now),
    protocolVersion: tip.protocolVersion,
    ledger: ledgerOf(tip.protocolVersion),
  };
}

/**
 * Mean interval between blocks over the latest BLOCK_TIME_INTERVALS heights held.
 * An interval longer than STALL_SECONDS is a halt, not a block time: it is left out of the mean
 * (and of `sampleSize`), so a backdated genesis or a past outage does not distort the production
 * rate and its estimates for ten minutes. Halts are what `uptime` reports, through block age.
 */
export function blockTime(window: BlockWindow): BlockTime {
  const blocks = window.all;
  const last = window.tip;
  let total = 0;
  let intervals = 0;
  for (let i = blocks.length - 1; i > 0 && last; i--) {
    const b = blocks[i]!;
    const a = blocks[i - 1]!;
    if (a.height < last.height - BLOCK_TIME_INTERVALS) break;
    // Heights missing from the window count as intervals of the gap between the blocks held.
    const heights = b.height - a.height;
    const seconds = (b.timestamp - a.timestamp) / 1000;
    if (heights < 1 || seconds / heights > STALL_SECONDS) continue;
    total += seconds;
    intervals += heights;
  }
  if (intervals === 0) return { averageSeconds: null, sampleSize: 0, targetSeconds: TARGET_BLOCK_SECONDS };
  return { averageSeconds: round(total / intervals, 3), sampleSize: intervals, targetSeconds: TARGET_BLOCK_SECONDS };
}

export function blocksProduced(tip: RingBlock, bt: BlockTime): BlocksProduced {
  const avg = bt.averageSeconds;
  const ok = avg !== null && avg > 0;
  return { total: tip.height + 1, estimatedHourly: ok ? Math.round(3600 / avg) : null, estimatedDaily: ok ? Math.round(86400 / avg) : null };
}

/**
 * `blockTimeMs`: the block time the network is expected to keep (an embedded devnet's own, else
 * Midnight's). The score declines with block age from FRESH_BLOCKS block times to zero at
 * STALE_AFTER_BLOCKS; the status is `degraded` only by the freshness rule (`isStale`), a failing
 * indexer or low production — a late block short of stale lowers the score, not the status.
 */
export function uptime(
  tip: RingBlock,
  now: number,
  bt: BlockTime,
  epochUtilization: number | null,
  upstreamOk: boolean,
  blockTimeMs = TARGET_BLOCK_SECONDS * 1000,
): Uptime {
  const age = ageSeconds(tip, now);
  const fresh = (FRESH_BLOCKS * blockTimeMs) / 1000;
  const dead = (STALE_AFTER_BLOCKS * blockTimeMs) / 1000;
  const freshness = age <= fresh ? 1 : age >= dead ? 0 : 1 - (age - fresh) / (dead - fresh);
  const avg = bt.averageSeconds;
  const production = epochUtilization ?? (avg !== null && avg > 0 ? Math.min(1, TARGET_BLOCK_SECONDS / avg) : 1);
  const score = round(freshness * production, 3);
  const healthy = upstreamOk && !isStale(now - tip.timestamp, blockTimeMs) && round(production, 3) >= HEALTHY_PRODUCTION;
  return { status: healthy ? 'healthy' : 'degraded', score, latestBlockAgeSeconds: age, epochUtilization };
}

/**
 * From the newest block carrying system parameters, else from the node's reading (when the
 * indexer gives none); the history says since when it holds.
 */
export function dParameter(window: BlockWindow, history: readonly DParameterChange[] | undefined, fromNode?: NodeDParameterReading): DParameter | null {
  const blocks = window.all;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    const d = b.systemParameters?.dParameter;
    if (d) return dParameterAt(d, b.height, history);
  }
  return fromNode ? dParameterAt(fromNode, fromNode.blockHeight, history) : null;
}

function dParameterAt(
  d: { numPermissionedCandidates: number; numRegisteredCandidates: number },
  height: number,
  history: readonly DParameterChange[] | undefined,
): DParameter {
  let since: number | null = null;
  if (history) {
    for (let j = history.length - 1; j >= 0; j--) {
      const c = history[j]!;
      if (c.blockHeight > height) continue;
      if (c.numPermissionedCandidates === d.numPermissionedCandidates && c.numRegisteredCandidates === d.numRegisteredCandidates) since = c.blockHeight;
      break;
    }
  }
  return {
    numPermissionedCandidates: d.numPermissionedCandidates,
    numRegisteredCandidates: d.numRegisteredCandidates,
    blockHeight: height,
    effectiveSinceHeight: since,
  };
}

/** Newest first: blocks from the tip down, and within a block its transactions in reverse order. */
export function recentTransactions(window: BlockWindow, limit: number): RecentTransactions {
  const out: RecentTransactions['transactions'] = [];
  const blocks = window.all;
  for (let i = blocks.length - 1; i >= 0 && out.length < limit; i--) {
    const b = blocks[i]!;
    for (let j = b.transactions.length - 1; j >= 0 && out.length < limit; j--) {
      const t = b.transactions[j]!;
      out.push({
        hash: t.hash,
        id: t.id,
        kind: transactionKind(t.__typename),
        status: t.transactionResult?.status ?? null,
        paidFees: paidFee(t),
        paidFeesUnit: 'SPECK',
        blockHeight: b.height,
        blockHash: b.hash,
        timestamp: iso(b.timestamp),
      });
    }
  }
  return { limit, count: out.length, transactions: out };
}
