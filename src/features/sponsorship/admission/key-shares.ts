/**
 * The per-key share of each network's DUST pool (docs/sponsorship.md, "What happens to a request"): what a key holds
 * there, tasks in flight plus answered reservations still live, and the 429 once that reaches the
 * share its landings earn it (key-health.ts), so one key cannot drain the pool.
 */
import { GatewayError } from '../../../core/errors.js';
import type { AuthenticatedKey } from '../../../core/guards/auth.js';
import type { SponsorshipSharing } from './sharing.js';
import { FEE_TTL_BLOCKS } from '../common/fee-margin.js';
import type { KeyHealth, KeyShare } from './key-health.js';
import { POOL_KEY_ID } from '../common/pool-constants.js';
import type { SponsoredNetwork } from '../common/sponsored-network.js';

/** What one key holds on one network: tasks running, and answered reservations not yet settled. */
interface KeyHold {
  computing: number;
  answered: Array<{ slot: number; generation: number; member?: string | undefined }>;
}

interface KeySharesOptions {
  health: KeyHealth;
  /** UTXOs one key may hold reserved at once per network (`dust.maxReservationsPerKey`). */
  maxReservationsPerKey: number;
  /** Life of a fee intent (`dust.feeTtlMs`); 0: FEE_TTL_BLOCKS of the network. */
  feeTtlMs: number;
  expiryMarginMs?: number | undefined;
  /** Several instances: a settled answer gives its place in the key's share over all of them back. */
  sharing?: SponsorshipSharing | undefined;
}

function reservationLimit(net: SponsoredNetwork, cap: number): GatewayError {
  return new GatewayError(
    'RESERVATION_LIMIT',
    `this key holds ${cap} DUST UTXO(s) of ${net.name} reserved, its share of the pool; one is freed when its transaction lands or its reservation expires`,
    {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(net.blockTimeMs / 1000))) },
    },
  );
}

export class KeyShares {
  /** `${network}|${keyId}` → what the key holds there. */
  private readonly holds = new Map<string, KeyHold>();

  constructor(private readonly opts: KeySharesOptions) {}

  /**
   * The key's share of the pool: tasks in flight plus answered reservations still live. Answered
   * ones leave when chain sync marks their UTXO spent or the reclaim frees it (checked lazily here,
   * at most `maxReservationsPerKey` entries).
   */
  hold(net: SponsoredNetwork, key: AuthenticatedKey): KeyHold {
    let hold = this.liveHold(net, key.id);
    if (!hold) {
      hold = { computing: 0, answered: [] };
      this.holds.set(`${net.name}|${key.id}`, hold);
    }
    const share = this.shareOf(net, key.id);
    if (hold.computing + hold.answered.length >= share.limit) throw this.refusal(net, share);
    hold.computing++;
    return hold;
  }

  /** What the key may hold on the network now: its full share, less while its answers keep expiring unlanded. */
  shareOf(net: SponsoredNetwork, keyId: string): KeyShare {
    if (keyId === POOL_KEY_ID) return { limit: this.opts.maxReservationsPerKey };
    return this.opts.health.share(net.name, keyId, this.opts.maxReservationsPerKey);
  }

  /** The 429 of a key at its share: the plain limit, or the throttle that cut it. */
  refusal(net: SponsoredNetwork, share: KeyShare): GatewayError {
    return share.throttledBy === undefined ? reservationLimit(net, share.limit) : this.throttled(net, share.limit, share.throttledBy);
  }

  /** DUST UTXOs the key holds on the network now: tasks in flight plus live answered reservations. */
  held(net: SponsoredNetwork, keyId: string): number {
    const hold = this.liveHold(net, keyId);
    return hold ? hold.computing + hold.answered.length : 0;
  }

  /**
   * The key's share over every instance (`sharing`): a place held until the reservation ends (or
   * its deadline); undefined when the shared state could not say (the request goes on). Refused
   * like `hold` (and `hold` given back) when the key's places elsewhere fill its share.
   */
  async holdShared(net: SponsoredNetwork, key: AuthenticatedKey, hold: KeyHold, deadline: number): Promise<string | undefined> {
    const share = this.shareOf(net, key.id);
    const held = await this.opts.sharing!.hold(net.name, key.id, share.limit, deadline).catch(() => undefined);
    if (held === false) {
      this.unhold(net, key, hold);
      throw this.refusal(net, share);
    }
    return held;
  }

  /** Gives back a place `holdShared` took, for a task that ended without an answer. */
  releaseShared(net: SponsoredNetwork, key: AuthenticatedKey, member: string | undefined): void {
    if (member !== undefined) this.opts.sharing!.release(net.name, key.id, member);
  }

  /** Drops every key's settled answers on the network (a synced block may have spent them). */
  settle(net: SponsoredNetwork): void {
    for (const id of this.holds.keys()) if (id.startsWith(`${net.name}|`)) this.liveHold(net, id.slice(net.name.length + 1));
  }

  unhold(net: SponsoredNetwork, key: AuthenticatedKey, hold: KeyHold): void {
    hold.computing--;
    if (hold.computing === 0 && hold.answered.length === 0) this.holds.delete(`${net.name}|${key.id}`);
  }

  private throttled(net: SponsoredNetwork, limit: number, debt: number): GatewayError {
    // Its next place comes back when one of its answers lands or expires: within a fee intent's life.
    const retryS = Math.ceil(((this.opts.feeTtlMs || FEE_TTL_BLOCKS * net.blockTimeMs) + (this.opts.expiryMarginMs ?? 10_000)) / 1000);
    return new GatewayError(
      'RESERVATION_LIMIT',
      `this key's share of the ${net.name} DUST pool is cut to ${limit}` +
        ` of ${this.opts.maxReservationsPerKey}` +
        `: about ${Math.round(debt)} more of its recent sponsored transactions expired without landing than landed. Submit what you are answered before its ` +
        `expiresAt; the share grows back as its transactions land`,
      {
        headers: { 'Retry-After': String(Math.max(1, retryS)) },
      },
    );
  }

  /** The key's hold on the network with its settled answers dropped (spent or reclaimed since). */
  private liveHold(net: SponsoredNetwork, keyId: string): KeyHold | undefined {
    const hold = this.holds.get(`${net.name}|${keyId}`);
    if (hold) {
      hold.answered = hold.answered.filter((r) => {
        if (net.table.isLive(r)) return true;
        if (r.member !== undefined) this.opts.sharing?.release(net.name, keyId, r.member);
        return false;
      });
    }
    return hold;
  }
}
