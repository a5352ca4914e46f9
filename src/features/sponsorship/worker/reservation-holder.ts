/**
 * The sponsorship task's record of the DUST reservation it holds (src/features/sponsorship/allocator/in-flight.ts): set when
 * it reserves, cleared when it releases, so the main thread can release it if the task dies.
 */
import type { DustAllocatorTable, Reservation } from '../allocator/allocator.js';
import type { InFlightReservations } from '../allocator/in-flight.js';

/** Where this task records the reservation it holds, so the main thread can release it if the task dies. */
export interface Holder {
  registry: InFlightReservations;
  entry: number;
}

export function release(table: DustAllocatorTable, reservation: Reservation, holder: Holder | undefined): void {
  table.release(reservation);
  if (holder) holder.registry.clear(holder.entry);
}
