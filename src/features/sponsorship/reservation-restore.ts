/**
 * The sponsorship's side of the reservation journal (reservation-journal.ts): each answered
 * reservation is written down before its answer leaves; after a restart, each whose UTXO the
 * wallets still hold unspent is reserved again until its original deadline.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { NetworkName } from '../../core/config/index.js';
import type { ReservationJournal } from './reservations/reservation-journal.js';
import type { ReservationReclaimer } from './reservations/reservations.js';
import type { SponsoredNetwork } from './common/sponsored-network.js';
import type { DustSyncHost } from './wallets/sync-host.js';

/** Writes an answered reservation (reserved until `deadline`, its task's) to the journal, before the answer leaves. */
export function journalAnswer(journal: ReservationJournal, net: SponsoredNetwork, reservation: { slot: number; generation: number }, deadline: number): void {
  const entry = net.table.slotEntry(reservation.slot);
  // Chain sync may have marked it spent already: then there is nothing to keep reserved.
  if (entry?.state !== 'reserved' || entry.generation !== reservation.generation) return;
  journal.record({ network: net.name, wallet: entry.walletIndex, key: entry.key, deadline });
}

interface RestoreOptions {
  now: number;
  reservationTtlMs: number;
  logger: Logger;
}

/**
 * After a restart, once the network's wallets have synced: reserves again, until its original
 * deadline, every journaled UTXO the wallets still hold unspent, and has `reclaimer` track it.
 */
function restoreReservations(net: SponsoredNetwork, journal: ReservationJournal, reclaimer: ReservationReclaimer, opts: RestoreOptions): void {
  const { now } = opts;
  const free = new Map<string, { slot: number; generation: number }>();
  for (let slot = 0; slot < net.table.capacity; slot++) {
    const e = net.table.slotEntry(slot);
    if (e?.state === 'free') free.set(`${e.walletIndex}:${e.key}`, { slot, generation: e.generation });
  }
  let restored = 0;
  let expired = 0;
  let gone = 0;
  // A UTXO released early (its fee intent expired unlanded) may be journaled again for a later
  // answer: the latest deadline is the one whose fee intent may still land.
  for (const entry of [...journal.pending(net.name)].sort((a, b) => b.deadline - a.deadline)) {
    if (entry.deadline <= now) {
      expired++;
      continue;
    }
    const id = `${entry.wallet}:${entry.key}`;
    const slot = free.get(id);
    const reservation = slot ? net.table.reserveExact(slot, entry.deadline) : null;
    if (!reservation) {
      gone++;
      continue;
    }
    free.delete(id);
    reclaimer.track(reservation, entry.deadline - opts.reservationTtlMs);
    restored++;
  }
  journal.restored(net.name);
  opts.logger.info({ network: net.name, restored, expired, gone }, 'DUST reservations restored from the journal');
}

/**
 * Restores each network's journaled reservations when its wallets first sync. The listener runs in
 * the message event that makes the network synced, before any request can see it synced: restored
 * reservations are in the table before the first sponsorship.
 */
export function restoreOnSync(
  journal: ReservationJournal,
  sync: DustSyncHost,
  networks: readonly SponsoredNetwork[],
  reclaimerOf: (net: SponsoredNetwork) => ReservationReclaimer,
  opts: { clock: Clock; reservationTtlMs: number; logger: Logger },
): void {
  const off = sync.onStatus((s) => {
    const net = networks.find((n) => n.name === (s.network as NetworkName));
    if (s.phase !== 'synced' || !net || journal.pending(net.name).length === 0) return;
    restoreReservations(net, journal, reclaimerOf(net), { now: opts.clock.now(), reservationTtlMs: opts.reservationTtlMs, logger: opts.logger });
    if (networks.every((n) => journal.pending(n.name).length === 0)) off();
  });
}
