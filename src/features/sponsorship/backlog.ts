/**
 * The queue a new sponsorship joins: the transactions this server has sponsored and not yet seen
 * land, in blocks they fill. A fee intent must outlive that queue, or it expires in the mempool:
 * 150 wallets submitting at once with a fixed 5-block intent (block capacity ≈ 21 transfers, seven
 * blocks of queue) lost a third of their transactions to "Intent TTL has expired". A sponsorship's
 * fee intent lives FEE_TTL_BLOCKS, or as many blocks as the queue ahead of it fills plus
 * QUEUE_SLACK_BLOCKS when that is more, up to MAX_FEE_TTL_BLOCKS. Only this server's own
 * transactions are counted: other traffic is not seen before it lands.
 */
import { FEE_TTL_BLOCKS } from './fee-margin.js';

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

  /** Takes the share of a block one answered transaction fills (its fullest dimension, 0–1). */
  record(share: number | undefined): void {
    if (share === undefined || !(share > 0) || share > 1) return;
    this.#share += ALPHA * (share - this.#share);
  }

  /** Blocks that `outstanding` sponsored transactions fill, at the running estimate. */
  blocks(outstanding: number): number {
    return Math.max(0, outstanding) * this.#share;
  }
}

/** A fee intent's life in blocks behind a queue of `backlogBlocks`. */
export function feeTtlBlocks(backlogBlocks: number): number {
  return Math.min(MAX_FEE_TTL_BLOCKS, Math.max(FEE_TTL_BLOCKS, Math.ceil(backlogBlocks) + QUEUE_SLACK_BLOCKS));
}
