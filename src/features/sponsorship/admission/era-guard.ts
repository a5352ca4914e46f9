/**
 * A sponsorship against the era its network's DUST wallets are synced in: a request waits out a
 * change of era or is refused before anything is reserved, and a task the change overtook gives
 * its reservation back and answers 409 rather than spend a UTXO the chain no longer has.
 */
import type { NetworkName } from '../../../core/config/index.js';
import { GatewayError, isGatewayError } from '../../../core/errors.js';
import type { Era } from '../../../infra/ledger/index.js';
import type { SponsoredNetwork } from '../common/sponsored-network.js';
import type { DustSyncHost } from '../wallets/sync-host.js';
import type { TimerWheel } from '../reservations/timer-wheel.js';
import { eraChanged, expectEra } from '../common/transaction-tag.js';

/**
 * How long, in blocks, a request waits for the wallets when they are syncing because the chain
 * just changed era (they are ready once the new era's first events and parameters are read).
 */
const SWITCH_WAIT_BLOCKS = 2;

export class EraGuard {
  constructor(
    private readonly sync: DustSyncHost,
    private readonly wheel: TimerWheel,
  ) {}

  /** The era the network's DUST wallets are synced in (what the chain the sync follows runs). */
  eraOf(name: NetworkName): Era | undefined {
    return this.sync.status(name)?.era;
  }

  /**
   * The wallets are not synced. Just after the chain changed era that is only for a moment (until
   * the new era's first events and parameters are read): a body of the old era is refused as such
   * at once (400, nothing reserved) and one of the new era waits for the wallets, at most
   * SWITCH_WAIT_BLOCKS blocks, rather than be refused with a 503. Otherwise: 503 WALLET_SYNCING.
   */
  async untilSynced(net: SponsoredNetwork, body: Buffer, signal: AbortSignal): Promise<void> {
    const status = this.sync.status(net.name);
    if (status?.era !== undefined && status.eraSwitches > 0 && status.phase === 'syncing') {
      expectEra(body, status.era);
      if (!signal.aborted)
        await new Promise<void>((resolve) => {
          const done = (): void => {
            off();
            this.wheel.cancel(timer);
            signal.removeEventListener('abort', done);
            resolve();
          };
          const off = this.sync.onStatus((s) => {
            if (s.network === net.name && s.phase !== 'syncing') done();
          });
          const timer = this.wheel.schedule(SWITCH_WAIT_BLOCKS * net.blockTimeMs, done);
          signal.addEventListener('abort', done);
        });
    }
    if (!this.sync.isSynced(net.name) || this.eraOf(net.name) === undefined)
      throw new GatewayError('WALLET_SYNCING', `the server DUST wallets of ${net.name} are still syncing`, { headers: { 'Retry-After': '30' } });
  }

  /**
   * The network changed era while the task ran (the worker saw the old wallets): the answer would
   * spend a DUST UTXO the chain no longer has. Its reservation goes back (the sync has marked it
   * SPENT already, so it is never handed out again) and the request gets 409.
   */
  expectEra(net: SponsoredNetwork, era: Era, reservation: { slot: number; generation: number }): void {
    const now = this.currentEra(net);
    if (now === undefined || now === era) return;
    net.table.release(reservation);
    throw eraChanged(era, now);
  }

  /** A failure of a task that the network's change of era caused is that change (409), not a 5xx. */
  eraChangedOr(net: SponsoredNetwork, era: Era, err: unknown): GatewayError {
    const failure = isGatewayError(err) ? err : new GatewayError('INTERNAL', undefined, { cause: err });
    const now = this.currentEra(net);
    if (now !== undefined && now !== era && failure.status >= 500) return eraChanged(era, now);
    return failure;
  }

  /**
   * The era the sync has announced through shared memory (at once, before its status message
   * arrives), else the status's: what a finished task is checked against.
   */
  private currentEra(net: SponsoredNetwork): Era | undefined {
    return (net.snapshot.era as Era | undefined) ?? this.eraOf(net.name);
  }
}
