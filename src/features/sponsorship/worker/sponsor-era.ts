/**
 * The sponsorship task against a network that may change era while it runs (src/features/sponsorship/worker/sponsor.ts):
 * which era the sync announced, which wallet replica the task may build with, and the 409 when the
 * network moved on.
 */
import { GatewayError } from '../../../core/errors.js';
import { SharedSnapshot } from '../allocator/shared-snapshot.js';
import type { SponsorArgs } from '../common/balance-task.js';
import { replicaOf, type WalletReplica } from './wallet-replica.js';
import { eraName, type Era } from '../../../infra/ledger/index.js';

export function eraChanged(args: Pick<SponsorArgs, 'era'>, now: Era): GatewayError {
  return new GatewayError(
    'LEDGER_ERA_CHANGED',
    `the network changed from ${eraName(args.era)} to ${eraName(now)} during this request; nothing stays reserved: rebuild the transaction for ${eraName(now)}`,
  );
}

/**
 * The replica the task may sponsor from: of the era the main thread sent. A newer era means the
 * chain switched since (409); an older one that the new era's wallets are not published yet (503).
 */
export function replicaFor(args: Pick<SponsorArgs, 'era'>, snapshotBuffer: SharedArrayBuffer): WalletReplica {
  const announced = announcedEra(snapshotBuffer);
  if (announced !== undefined && announced > args.era) throw eraChanged(args, announced);
  const replica = replicaOf(snapshotBuffer);
  if (!replica) throw new GatewayError('WALLET_SYNCING', undefined, { headers: { 'Retry-After': '30' } });
  if (replica.era > args.era) throw eraChanged(args, replica.era);
  if (replica.era < args.era)
    throw new GatewayError('WALLET_SYNCING', `the server DUST wallets of ${eraName(args.era)} are still syncing`, { headers: { 'Retry-After': '6' } });
  return replica;
}

/**
 * The era the sync announced last (shared memory, so at once, ahead of its status message and of
 * any snapshot of the new era); undefined when none was announced.
 */
export function announcedEra(snapshotBuffer: SharedArrayBuffer): Era | undefined {
  return new SharedSnapshot(snapshotBuffer).era as Era | undefined;
}
