/**
 * How many blocks of price rise a sponsored fee must cover. Fee prices move once per block with
 * the block's fullness, by at most `LedgerParameters.maxPriceAdjustment()` (×1.046 with the
 * initial parameters), and `feesWithMargin(params, n)` prices a transaction as if they had risen
 * n times. A sponsored transaction may land in any block up to its fee intent's TTL, and the
 * parameters were read at some block before now: the fee must cover every block in between,
 * plus `extra` for the block being built when the parameters were read and clock skew.
 * No ledger import: the main thread reports this too (/wallet-status).
 */
export function marginBlocks(lifeMs: number, stalenessMs: number, blockTimeMs: number, extra: number): number {
  if (!(blockTimeMs > 0)) throw new RangeError(`blockTimeMs must be positive, got ${blockTimeMs}`);
  return Math.ceil((Math.max(0, lifeMs) + Math.max(0, stalenessMs)) / blockTimeMs) + Math.max(0, Math.floor(extra));
}

/** Midnight's block time (LEDGER.md "Units"): the margin's block length for networks behind an indexer. */
export const MIDNIGHT_BLOCK_TIME_MS = 6_000;

/**
 * A fee intent's life when `dust.feeTtlMs` is 0: 30 s at Midnight's 6 s blocks. The fee must hold
 * at the prices of every block until then, and a run of blocks full in bytes churned raises a
 * transfer's price about ×1.108 a block: 10 blocks cost ≈ 3× the tip's fee in margin, 5 blocks
 * ≈ 1.8×. A wallet submits what it is answered within a second or two.
 */
export const FEE_TTL_BLOCKS = 5;
