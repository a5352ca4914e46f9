/**
 * What the sponsorship service and the pool keeper (pool-keeper.ts) both know of the keeper: the
 * key its splits are sponsored as, and the free DUST UTXOs kept for them.
 */

/** The key the keeper's splits count as: its share of the pool bounds the splits in flight. */
export const POOL_KEY_ID = 'nightgate-pool';

/**
 * Free DUST UTXOs kept for the keeper's own splits while the pool is below target: users are
 * answered 503 NO_DUST_AVAILABLE rather than take the last ones, or the pool could never grow
 * under the very demand that needs it to (measured: 334 of 336 splits refused when users took
 * every free UTXO first). Kept by the allocator's reserve operation (`keepFree`), so a burst of
 * requests cannot overrun it; the keeper's own reservations keep none and may take them all.
 */
export const KEEPER_RESERVE = 8;

/**
 * The reserve counts only free DUST UTXOs worth this many of the last split's fee: enough for a
 * split after several blocks of rising prices.
 * A UTXO below it (decayed once its NIGHT was split) would hold a place in the reserve and fail
 * the split that counted on it.
 */
export const RESERVE_FLOOR_FEES = 2n;
