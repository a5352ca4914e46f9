/** The pool keeper's state as /wallet-status shows it (pool-keeper.ts). */
export type KeeperState = 'idle' | 'splitting' | 'waiting' | 'unavailable' | 'failing';

export interface PoolStatus {
  target: number;
  /** DUST UTXOs the wallets hold now, free or reserved. */
  live: number;
  /** Growing to the target at start (`dust.growAtStart`): not ready until it is reached. */
  filling: boolean;
  maintenance: {
    state: KeeperState;
    reason: string | null;
    /** NIGHT UTXOs split and not offered again until their split's fee intent has expired. */
    pendingSplits: number;
    splitsSubmitted: number;
    splitsFailed: number;
    lastRoundAt: string | null;
  };
  /**
   * What the pool sustains at best, tx/s: each UTXO pays once per cycle of about two blocks
   * (its transaction lands in the next block, its change is back once that block is synced).
   */
  sustainableTxPerSecond: number;
}
