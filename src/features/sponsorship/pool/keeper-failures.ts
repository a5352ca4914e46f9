/** Why a keeper's round or split failed: the fixed labels of its failure metric. */
import { isGatewayError } from '../../../core/errors.js';

/**
 * Why a round or a split failed (the label of the failure metric; a fixed set):
 * - `no-dust`: its split found no free DUST UTXO to pay the fee with (the reserve stays kept);
 * - `no-night`: no NIGHT UTXO left that is worth splitting;
 * - `submit-refused`: the network refused a split;
 * - `sponsorship`: its sponsorship was refused for another reason (fee cap, queue full, syncing);
 * - `error`: anything else (indexer unreachable, a worker failure).
 */
export type KeeperFailureReason = 'no-dust' | 'no-night' | 'submit-refused' | 'sponsorship' | 'error';
export const KEEPER_FAILURE_REASONS: readonly KeeperFailureReason[] = ['no-dust', 'no-night', 'submit-refused', 'sponsorship', 'error'];

/** The network refused a split. */
export class SplitRefused extends Error {}

export function failureReason(err: unknown): KeeperFailureReason {
  if (err instanceof SplitRefused) return 'submit-refused';
  if (isGatewayError(err)) return err.code === 'NO_DUST_AVAILABLE' ? 'no-dust' : 'sponsorship';
  return 'error';
}
