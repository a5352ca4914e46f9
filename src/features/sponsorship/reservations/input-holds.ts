/**
 * Holds on the unshielded inputs of answered sponsorships (docs/sponsorship.md, "What happens to a request"). The
 * input check (input-check.ts) asks whether an input is unspent *on chain*; an input spent by an
 * answer that has not landed yet still is. Without a hold, any number of different transactions
 * spending one NIGHT UTXO would each be sponsored, each holding a DUST UTXO for a transaction of
 * which at most one can land.
 *
 * So a sponsorship holds its inputs (intent hash and output number) from its admission, before
 * anything is reserved, until its answer's reservation ends: its transaction landed (the sync
 * marked the DUST UTXO spent), or it was reclaimed (released at the fee intent's TTL, or at its
 * deadline), whichever the reservation lifecycle (reservations.ts) says first, and at the latest
 * at the answer's expiry. A sponsorship that fails gives them back at once. Another transaction
 * spending a held input is refused with 409 INPUT_HELD by every key before anything is reserved;
 * the same one again (same key, same bytes: its dedupe key) is not refused here, and the dedupe
 * (answer-dedupe.ts) answers it as before.
 *
 * With several instances (`state.redisUrl`) holds are also taken in Redis, atomically for all of a
 * transaction's inputs (one Lua script), keyed by network and input, with a TTL of the answer's
 * life, and dropped when the reservation ends here: every instance refuses the second spend.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../../core/clock.js';
import { GatewayError } from '../../../core/errors.js';
import type { ReservationRef } from '../allocator/allocator.js';
import { utxoId } from './input-check.js';
import type { UnshieldedInput } from '../common/balance-task.js';
import type { SponsoredNetwork } from '../common/sponsored-network.js';

interface Hold {
  holder: string;
  /** Clock ms: held until then at the latest. */
  until: number;
  /** The answer's reservation: held while it is live. Absent while its task runs. */
  reservation?: ReservationRef;
  /** The other inputs the same holder holds (released together). */
  ids: readonly string[];
  /** Their owners (64 hex). */
  owners: readonly string[];
}

/** A transaction's hold, as its sponsorship keeps it. */
export interface InputClaim {
  network: string;
  holder: string;
  ids: readonly string[];
  owners: readonly string[];
}

/** What of the inputs' holds the other instances share (Redis). */
export interface SharedInputHolds {
  /** Holds every id for `holder` for `ttlMs`, or answers the first held by another (its id and ms left). */
  acquire(network: string, ids: readonly string[], holder: string, ttlMs: number): Promise<{ id: string; leftMs: number } | undefined>;
  /** Extends (ttlMs > 0) or drops (0) the holder's holds. */
  renew(network: string, ids: readonly string[], holder: string, ttlMs: number): void;
}

/** Who holds: one key's one transaction (the dedupe key, hashed: it holds the body's hash and the key id). */
export function holderOf(dedupeKey: string): string {
  return createHash('sha256').update(dedupeKey).digest('base64url');
}

export class InputHolds {
  /** `${network}|${utxoId}` → its hold. */
  private readonly holds = new Map<string, Hold>();

  /**
   * `ended`: told the owners of the inputs of an answer whose reservation ended (its transaction
   * may have spent them: what was read of them is stale).
   */
  constructor(
    private readonly clock: Clock,
    private readonly shared?: SharedInputHolds,
    private readonly ended?: (network: string, owners: readonly string[]) => void,
  ) {}

  /** Inputs held now (tests, status). */
  get size(): number {
    return this.holds.size;
  }

  /**
   * Holds the transaction's inputs until `until` (its task's deadline), or throws 409 INPUT_HELD
   * naming the first input another transaction holds. Answers undefined when there is nothing to hold.
   */
  async acquire(net: SponsoredNetwork, inputs: readonly UnshieldedInput[], holder: string, until: number): Promise<InputClaim | undefined> {
    if (inputs.length === 0) return undefined;
    const ids = [...new Set(inputs.map((i) => utxoId(i.intentHash, i.outputNo)))];
    const owners = [...new Set(inputs.map((i) => i.owner))];
    const now = this.clock.now();
    // Checked and taken here in one synchronous step: no other request of this instance runs between.
    for (const id of ids) {
      const hold = this.live(net, id, now);
      if (hold && hold.holder !== holder) throw held(net.name, id, hold.until, now);
    }
    for (const id of ids) this.holds.set(`${net.name}|${id}`, { holder, until, ids, owners });
    const claim = { network: net.name, holder, ids, owners };
    if (this.shared) {
      const other = await this.shared.acquire(net.name, ids, holder, until - now);
      if (other) {
        this.drop(claim);
        const at = this.clock.now();
        throw held(net.name, other.id, at + other.leftMs, at);
      }
    }
    return claim;
  }

  /** The claim's transaction was answered: held while `reservation` is live, until `until` at the latest. */
  answered(claim: InputClaim, reservation: ReservationRef, until: number): void {
    for (const id of claim.ids) {
      const hold = this.holds.get(`${claim.network}|${id}`);
      if (hold?.holder === claim.holder) {
        hold.reservation = reservation;
        hold.until = until;
      }
    }
    this.shared?.renew(claim.network, claim.ids, claim.holder, until - this.clock.now());
  }

  /**
   * The claim's sponsorship ended without an answer, or (`reservation`) its answer's reservation
   * ended: then only if the holds are still that answer's (not a later one of the same bytes).
   */
  release(claim: InputClaim, reservation?: ReservationRef): void {
    if (reservation) {
      const hold = this.holds.get(`${claim.network}|${claim.ids[0]!}`);
      if (hold?.holder !== claim.holder || hold.reservation?.slot !== reservation.slot || hold.reservation.generation !== reservation.generation) return;
      this.ended?.(claim.network, claim.owners);
    }
    this.drop(claim);
    this.shared?.renew(claim.network, claim.ids, claim.holder, 0);
  }

  /** Drops the network's holds whose reservation has ended (landed or reclaimed) or whose time is up. */
  settle(net: SponsoredNetwork): void {
    const now = this.clock.now();
    for (const key of [...this.holds.keys()]) if (key.startsWith(`${net.name}|`)) this.live(net, key.slice(net.name.length + 1), now);
  }

  private live(net: SponsoredNetwork, id: string, now: number): Hold | undefined {
    const hold = this.holds.get(`${net.name}|${id}`);
    if (!hold) return undefined;
    if (now < hold.until && (hold.reservation === undefined || net.table.isLive(hold.reservation))) return hold;
    if (hold.reservation) this.ended?.(net.name, hold.owners);
    this.release({ network: net.name, holder: hold.holder, ids: hold.ids, owners: hold.owners });
    return undefined;
  }

  private drop(claim: InputClaim): void {
    for (const id of claim.ids) {
      const key = `${claim.network}|${id}`;
      if (this.holds.get(key)?.holder === claim.holder) this.holds.delete(key);
    }
  }
}

function held(network: string, id: string, until: number, now: number): GatewayError {
  const retryS = Math.max(1, Math.ceil((until - now) / 1000));
  return new GatewayError(
    'INPUT_HELD',
    `the transaction spends input ${id} on ${network}, which another sponsored transaction spends; ` +
      `that one holds it until it lands or its answer expires (at the latest ${new Date(until).toISOString()}` +
      `); nothing was reserved`,
    {
      headers: { 'Retry-After': String(retryS) },
    },
  );
}
