/**
 * The allocator table kept in step with the server wallets' DUST UTXOs (docs/sponsorship.md,
 * "What happens to a request"): new ones FREE, spent ones SPENT, values refreshed as DUST accrues, SPENT slots recycled
 * after their retention. The sync thread is the table's single owner for all of these.
 */
import type { Era, L } from '../../../infra/ledger/index.js';
import type { DustAllocatorTable } from '../allocator/allocator.js';
import type { Wallet } from './wallet-replay.js';
import { utxoKey, utxoValue, valueToTableUnits } from './wallet-state.js';

export class UtxoSlots {
  /** `${wallet}:${nonce hex}` → allocator slot, for every UTXO the table holds. */
  private readonly slots = new Map<string, number>();
  private readonly spentAt = new Map<number, number>();

  constructor(
    private readonly table: DustAllocatorTable,
    /** SPENT slots stay visible this long before their slot is reused. */
    private readonly spentRetentionMs: number,
    /** How far ahead a value is taken at its lower: the longest time until the next refresh. */
    private readonly valueHorizonMs: number,
    /** A UTXO the table had no room for: not offered until a slot frees. */
    private readonly onNotOffered: (message: string) => void,
  ) {}

  /** Bring the allocator table in line with the wallets' UTXOs. */
  reconcile(era: Era, wallets: readonly Wallet[], dustParams: L.DustParameters, now: number): void {
    const date = new Date(now);
    const horizon = new Date(now + this.valueHorizonMs);
    const seen = new Set<string>();
    wallets.forEach((w, walletIndex) => {
      for (const qdo of w.state.utxos) {
        const id = `${walletIndex}:${qdo.nonce.toString(16)}`;
        seen.add(id);
        // The lower of now's value and the value at the next refresh: a UTXO whose backing NIGHT
        // was spent (split) decays, and the table must never promise more than it will hold.
        const now0 = utxoValue(era, w.state, qdo, date, dustParams);
        const later = utxoValue(era, w.state, qdo, horizon, dustParams);
        const value = valueToTableUnits(later < now0 ? later : now0);
        const slot = this.slots.get(id);
        if (slot === undefined) this.track(id, walletIndex, qdo.nonce, value);
        else if (this.table.slotEntry(slot)?.value !== value) this.table.updateValue(slot, value);
      }
    });
    for (const [id, slot] of this.slots) {
      if (seen.has(id)) continue;
      // Gone from the wallet: spent on chain. SPENT wins over a reservation still held for it.
      this.table.markSpent(slot);
      this.slots.delete(id);
      this.spentAt.set(slot, now);
    }
    for (const [slot, at] of this.spentAt) {
      if (now - at < this.spentRetentionMs) continue;
      this.table.recycle(slot);
      this.spentAt.delete(slot);
    }
  }

  /** Marks every UTXO the table holds SPENT and forgets it: the chain has left their era. */
  markAllSpent(now: number): void {
    for (const [id, slot] of this.slots) {
      this.table.markSpent(slot);
      this.spentAt.set(slot, now);
      this.slots.delete(id);
    }
  }

  private track(id: string, walletIndex: number, nonce: bigint, value: bigint): void {
    try {
      this.slots.set(id, this.table.add({ walletIndex, key: utxoKey(nonce), value }));
    } catch (err) {
      // Table full: the UTXO is not offered until a slot frees; the status says so.
      this.onNotOffered(`DUST UTXO not offered: ${(err as Error).message}`);
    }
  }
}
