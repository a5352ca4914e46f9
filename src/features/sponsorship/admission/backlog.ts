/**
 * The queue a new sponsorship joins: the transactions this server has sponsored and not yet seen
 * land, in blocks they fill. A fee intent must outlive that queue, or it expires in the mempool:
 * 150 wallets submitting at once with a fixed 5-block intent (block capacity ≈ 21 transfers, seven
 * blocks of queue) lost a third of their transactions to "Intent TTL has expired". A sponsorship's
 * fee intent lives FEE_TTL_BLOCKS, or as many blocks as the queue ahead of it fills plus
 * QUEUE_SLACK_BLOCKS when that is more, up to MAX_FEE_TTL_BLOCKS. Only this server's own
 * transactions are counted: other traffic is not seen before it lands.
 *
 * Past that, a new answer could not land: when the queue ahead of it fills more blocks than its
 * fee intent can live (MAX_FEE_TTL_BLOCKS, or `dust.feeTtlMs` when set) less QUEUE_SLACK_BLOCKS, a
 * user's sponsorship is refused with 503 SPONSOR_BACKLOG_FULL and a Retry-After of the time the
 * excess takes to drain, a block of queue per block time. The counts of answers that landed and
 * that expired unlanded are kept here too (/wallet-status, /metrics, the dashboard).
 */
import type { QueueArgs } from '../common/balance-task.js';
import { GatewayError } from '../../../core/errors.js';
import { FEE_TTL_BLOCKS } from '../common/fee-margin.js';

/** The transaction's own block, and one for the block being built when it was answered. */
export const QUEUE_SLACK_BLOCKS = 2;
/** 72 s at 6 s blocks: the fee then covers prices ≈ 3.4× the tip's at full blocks. */
export const MAX_FEE_TTL_BLOCKS = 12;
/** A simple sponsored NIGHT transfer's share of a block (≈ 21 fit), until one is measured. */
const DEFAULT_SHARE = 1 / 21;
/** Weight of the newest measurement in the running estimate. */
const ALPHA = 0.1;

export class SponsorBacklog {
  #share = DEFAULT_SHARE;
  /** Answered sponsorships (the server's own splits included) whose transactions landed. */
  landed = 0;
  /** Answered sponsorships whose fee intents expired before their transactions landed. */
  expired = 0;

  outcome(o: 'landed' | 'expired'): void {
    if (o === 'landed') this.landed++;
    else this.expired++;
  }

  /** Takes the share of a block one answered transaction fills (its fullest dimension, 0–1). */
  record(share: number | undefined): void {
    if (share === undefined || !(share > 0) || share > 1) return;
    this.#share += ALPHA * (share - this.#share);
  }

  /** Blocks that `outstanding` sponsored transactions fill, at the running estimate. */
  blocks(outstanding: number): number {
    return Math.max(0, outstanding) * this.#share;
  }

  /** What /wallet-status shows behind `outstanding` unlanded answers, for fee intents living `lifeBlocks`. */
  status(outstanding: number, lifeBlocks: number): BacklogStatus {
    return {
      blocks: Math.round(this.blocks(outstanding) * 1000) / 1000,
      limitBlocks: lifeBlocks - QUEUE_SLACK_BLOCKS,
      landed: this.landed,
      expiredUnlanded: this.expired,
    };
  }

  /**
   * Refuses (503 SPONSOR_BACKLOG_FULL) a new answer behind `outstanding` unlanded ones on a network
   * of `blockTimeMs` blocks when its fee intent, living `lifeBlocks`, could not outlast the queue.
   */
  admit(network: string, outstanding: number, lifeBlocks: number, blockTimeMs: number): void {
    const refusal = backlogRefusal(network, outstanding, this.blocks(outstanding), lifeBlocks, blockTimeMs);
    if (refusal) throw refusal;
  }

  /** A sponsored transaction's share of a block, at the running estimate. */
  get share(): number {
    return this.#share;
  }
}

/** Whole blocks of queue, less a rounding error's worth (21 × 1/21 is 1 block, not 2). */
const wholeBlocks = (blocks: number): number => Math.max(0, Math.ceil(blocks - 1e-9));

/** 503 SPONSOR_BACKLOG_FULL when `outstanding` answers filling `blocks` leave a fee intent of `lifeBlocks` no room; else undefined. */
function backlogRefusal(network: string, outstanding: number, blocks: number, lifeBlocks: number, blockTimeMs: number): GatewayError | undefined {
  const queued = wholeBlocks(blocks);
  const room = lifeBlocks - QUEUE_SLACK_BLOCKS;
  if (queued <= room) return undefined;
  const drainS = Math.max(1, Math.ceil(((queued - room) * blockTimeMs) / 1000));
  return new GatewayError(
    'SPONSOR_BACKLOG_FULL',
    `${outstanding} sponsored transactions of ${network} have not landed yet, about ${queued}` +
      ` blocks of queue: a fee intent answered now lives ${lifeBlocks}` +
      ` blocks and would expire before its turn; nothing was reserved`,
    {
      headers: { 'Retry-After': String(drainS) },
    },
  );
}

/**
 * The fee intent's life, ms, decided as its UTXO is reserved with `reserved` UTXOs reserved before
 * it: the queue those fill then, not the one when the request came in (150 requests admitted at
 * once would all see an empty queue). Throws SPONSOR_BACKLOG_FULL past what it can outlast.
 */
export function feeLifeAtReservation(q: QueueArgs, reserved: number, blockTimeMs: number): number {
  const blocks = reserved * q.share;
  const refusal = q.refuse ? backlogRefusal(q.network, reserved, blocks, lifeBlocks(q.fixedTtlMs, blockTimeMs), blockTimeMs) : undefined;
  if (refusal) throw refusal;
  return q.fixedTtlMs || feeTtlBlocks(blocks) * blockTimeMs;
}

/** A network's backlog as /wallet-status shows it. */
export interface BacklogStatus {
  /** Blocks this server's answers that have not landed fill, at the running estimate. */
  blocks: number;
  /** Past this many blocks new answers are refused (SPONSOR_BACKLOG_FULL). */
  limitBlocks: number;
  landed: number;
  expiredUnlanded: number;
}

/** The blocks a fee intent lives: `dust.feeTtlMs` when set, else the most the queue may lengthen it to. */
export function lifeBlocks(feeTtlMs: number, blockTimeMs: number): number {
  return feeTtlMs > 0 ? Math.floor(feeTtlMs / blockTimeMs) : MAX_FEE_TTL_BLOCKS;
}

/** A fee intent's life in blocks behind a queue of `backlogBlocks`. */
export function feeTtlBlocks(backlogBlocks: number): number {
  return Math.min(MAX_FEE_TTL_BLOCKS, Math.max(FEE_TTL_BLOCKS, wholeBlocks(backlogBlocks) + QUEUE_SLACK_BLOCKS));
}
