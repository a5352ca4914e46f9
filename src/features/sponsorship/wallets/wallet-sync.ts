/**
 * DUST wallet sync for one network (docs/sponsorship.md, "What happens to a request"): replay the indexer's
 * `dustLedgerEvents` into a `DustLocalState` per server DUST key, keep the allocator table in step
 * with the wallets' UTXOs (new ones FREE, spent ones SPENT, values refreshed as DUST accrues), and
 * publish the wallets' state to the balancing workers through the shared snapshot.
 *
 * This runs on the sync thread, which is the allocator's single owner (add, updateValue,
 * markSpent, recycle, reclaimExpired); workers only reserve and release. Ledger replays cost
 * milliseconds per event, which is why none of this runs on the uWS thread.
 *
 * Each event is replayed with the ledger of its era (its `protocolVersion`). When the chain
 * changes era, the wallets start afresh in the new era: no ledger reads the other era's wallet
 * state, and a chain that switches starts the new era from a fresh state that funds the same
 * wallets again. Every UTXO of the old era is marked SPENT then: none can be spent on the new
 * chain, so none may be handed out again, and a reservation held on one can no longer be returned
 * to the free pool (its holder's release fails; the main thread answers 409 LEDGER_ERA_CHANGED).
 * The change is seen in whichever comes first: an event of the new era, or the tip's parameters
 * (then the wallets wait for the new era's first event before they are synced again); it is
 * announced to the workers through the snapshot's header before any UTXO is marked. Events of an
 * older era than the wallets' are skipped.
 */
import { GraphqlWsConnection } from '../../../infra/indexer/graphql-ws.js';
import { eraOfProtocolVersion, release, type Era } from '../../../infra/ledger/index.js';
import { DustAllocatorTable } from '../allocator/allocator.js';
import { SharedSnapshot } from '../allocator/shared-snapshot.js';
import { DUST_EVENTS } from '../common/queries.js';
import type { NetworkSyncInit, SyncPhase, SyncStatus } from './sync-protocol.js';
import { TipParameters } from './tip-parameters.js';
import { UtxoSlots } from './utxo-slots.js';
import { freshWallets, replay, runsByEra, type PendingEvent, type Wallet } from './wallet-replay.js';
import { encodeWalletState } from './wallet-state.js';

export type { SyncStatus } from './sync-protocol.js';

const SAFETY_SWEEP_MS = 10_000;
const PARAMS_REFRESH_MS = 1_000;
/** Values are refreshed at every block and every sweep: twice the sweep bounds the time to the next refresh. */
const VALUE_HORIZON_MS = 2 * SAFETY_SWEEP_MS;

export class NetworkDustSync {
  private readonly table: DustAllocatorTable;
  private readonly snapshot: SharedSnapshot;
  private readonly tip: TipParameters;
  private readonly utxos: UtxoSlots;
  /** The era the wallets are replayed in. */
  private era: Era | undefined;
  private eraSwitches = 0;
  private paramsTimer: NodeJS.Timeout | undefined;
  private paramsInFlight: Promise<void> | undefined;
  /** A read asked for while one was in flight: run once that one ends (it may predate the block that asked). */
  private paramsAgain = false;
  /** Whether any event was replayed yet (a start on a chain past a switch replays its old era first: no switch of ours). */
  private replayedAny = false;
  /** Switched on the tip's parameters: not synced until an event of the new era is replayed. */
  private awaitingEraEvents = false;
  private wallets: Wallet[] = [];
  private pending: PendingEvent[] = [];
  private flushScheduled = false;
  private eventId = -1;
  private maxId = -1;
  private phase: SyncPhase = 'starting';
  private lastError: string | undefined;
  private ws: GraphqlWsConnection | undefined;
  private unsubscribe: (() => void) | undefined;
  private retryDelay: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly init: NetworkSyncInit,
    private readonly onStatus: (s: SyncStatus) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.table = DustAllocatorTable.fromShared(init.table);
    this.snapshot = new SharedSnapshot(init.snapshot);
    this.tip = new TipParameters(init, now);
    this.utxos = new UtxoSlots(this.table, init.spentRetentionMs, VALUE_HORIZON_MS, (message) => {
      this.lastError = message;
    });
    this.retryDelay = init.reconnectMinMs;
  }

  async start(): Promise<void> {
    await this.tip.load(() => this.era);
    this.era = this.tip.dustParamsEra;
    this.snapshot.announceEra(this.era!);
    this.wallets = freshWallets(this.era!, this.init.seeds, this.tip);
    this.connect();
    // Values grow between events, and a crashed worker may leave a reservation nobody tracks:
    // refresh values and reclaim expired reservations on a slow timer too.
    this.sweepTimer = setInterval(() => {
      this.reconcile();
      this.table.reclaimExpired(this.now());
      this.report();
    }, SAFETY_SWEEP_MS);
    this.sweepTimer.unref();
    this.paramsTimer = setInterval(() => void this.refreshParams(), this.init.paramsRefreshMs ?? PARAMS_REFRESH_MS);
    this.paramsTimer.unref();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.sweepTimer);
    clearInterval(this.paramsTimer);
    this.unsubscribe?.();
    this.ws?.close();
    this.tip.close();
  }

  /**
   * The chain changed era: wallets start afresh in the new era, and every UTXO of the old one is
   * marked SPENT (SPENT wins over a reservation: it is never handed out again, its holder cannot
   * release it into the free pool, and the slot is recycled after the retention).
   */
  private switchEra(to: Era): void {
    const now = this.now();
    // Announced before a single UTXO is marked: a worker that finds no free UTXO a moment from now
    // must see that the era changed (409 LEDGER_ERA_CHANGED), not an empty pool (503), although
    // the status saying so reaches the main thread only after this replay.
    this.snapshot.announceEra(to);
    this.utxos.markAllSpent(now);
    for (const w of this.wallets) release(w.state, w.sk);
    this.era = to;
    if (this.replayedAny) this.eraSwitches++;
    this.wallets = freshWallets(to, this.init.seeds, this.tip);
    // The old era's parameters price nothing now: until the tip's are read, nothing is published.
    this.phase = 'syncing';
    this.lastError = undefined;
  }

  /** Whether the held parameters are of the wallets' era (a snapshot is published only then). */
  private paramsMatchEra(): boolean {
    return this.tip.isOfEra(this.era);
  }

  /**
   * Reads the tip's parameters again. Moved fee prices are published to the workers at once; the
   * same ones are only confirmed (a header word), so workers know how fresh their prices are
   * without decoding the wallets again. The fee margin counts blocks from that moment
   * (src/features/sponsorship/common/fee-margin.ts), so a failing read makes fees safer, not short.
   */
  private async refreshParams(): Promise<void> {
    if (this.closed) return;
    if (this.paramsInFlight) {
      // The read in flight may have been sent before the block that asks now: after a switch of
      // era the wallets publish nothing until the new era's parameters are read, so read again
      // as soon as it ends rather than at the next timer tick.
      this.paramsAgain = true;
      return;
    }
    this.paramsInFlight = (async () => {
      try {
        const moved = await this.tip.load(() => this.era);
        if (this.closed || this.eventId < 0) return;
        const tipEra = this.tip.dustParamsEra;
        if (moved && this.replayedAny && this.era !== undefined && tipEra !== undefined && tipEra > this.era) {
          // The tip runs a newer era than the wallets: the chain switched, and its first blocks of
          // the new era may carry no DUST event to say so. Until they do, every sponsorship would
          // spend a UTXO of an era the chain has left: switch now.
          this.switchEra(tipEra);
          this.awaitingEraEvents = true;
        }
        if (moved) this.publish();
        if (this.paramsMatchEra()) this.snapshot.confirm(this.tip.pricedAt);
        if (moved && this.pending.length === 0 && this.eventId >= this.maxId && this.phase === 'syncing' && this.paramsMatchEra() && !this.awaitingEraEvents) {
          // The new era's parameters arrived after its events: the wallets are ready now.
          this.phase = 'synced';
          this.reconcile();
        }
        // A new era, the wallets synced, or new fee prices for /wallet-status.
        if (moved) this.report();
      } catch (err) {
        this.lastError = `reading the ledger parameters failed: ${(err as Error).message}`;
      } finally {
        this.paramsInFlight = undefined;
      }
    })();
    await this.paramsInFlight;
    if (this.paramsAgain) {
      this.paramsAgain = false;
      await this.refreshParams();
    }
  }

  private publish(): void {
    if (!this.paramsMatchEra()) return;
    const tip = this.tip;
    let chainTime = tip.chainTime;
    for (const w of this.wallets) chainTime = Math.max(chainTime, w.state.syncTime.getTime());
    tip.chainTime = Math.min(chainTime, this.now());
    this.snapshot.publish(
      encodeWalletState({
        era: this.era!,
        chainTime: tip.chainTime,
        params: tip.paramsBytes!,
        paramsAt: tip.paramsAt,
        wallets: this.wallets.map((w) => w.state.serialize()),
        eventId: this.eventId,
      }),
    );
  }

  private connect(): void {
    if (this.closed) return;
    this.phase = this.eventId < 0 ? 'syncing' : this.phase === 'synced' ? 'synced' : 'syncing';
    const ws = new GraphqlWsConnection(this.init.graphqlWsUrl, {
      ackTimeoutMs: this.init.timeoutMs,
      ...(this.init.credentials ? { credentials: this.init.credentials } : {}),
      keepAliveMs: 15_000,
      onReady: () => {
        this.retryDelay = this.init.reconnectMinMs;
      },
      onClose: (err) => {
        if (err) this.retry(err.message);
      },
    });
    this.ws = ws;
    const variables = this.eventId >= 0 ? { id: this.eventId + 1 } : {};
    this.unsubscribe = ws.subscribe(DUST_EVENTS, variables, {
      next: (data) => this.onEvent(data['dustLedgerEvents'] as DustEvent),
      error: (err) => this.retry(err.message),
      complete: () => this.retry('the indexer completed the DUST event subscription'),
    });
  }

  private retry(reason: string): void {
    if (this.closed || this.retryTimer) return;
    this.lastError = reason;
    this.unsubscribe?.();
    this.ws?.close();
    this.phase = 'reconnecting';
    this.report();
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, this.init.reconnectMaxMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private onEvent(e: DustEvent | undefined): void {
    if (!e || typeof e.id !== 'number' || typeof e.raw !== 'string') return this.retry('the indexer sent a malformed DUST event');
    if (e.id <= this.eventId) return; // a replay after reconnect
    // An indexer that does not say is on the era the wallets are in.
    const era = typeof e.protocolVersion === 'number' ? eraOfProtocolVersion(e.protocolVersion) : this.era!;
    this.pending.push({ id: e.id, raw: Buffer.from(e.raw, 'hex'), era });
    this.eventId = e.id;
    this.maxId = Math.max(this.maxId, e.maxId);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // Batch a burst of events into one replay per wallet: replay cost is mostly per call.
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.closed || this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    for (const run of runsByEra(pending)) {
      // Events of an older era than the wallets' (the sync was behind when it switched on the
      // tip, or it started on a chain past its switch): every UTXO of that era is gone with it.
      if (this.era !== undefined && run.era < this.era) continue;
      if (run.era !== this.era) this.switchEra(run.era);
      try {
        replay(this.wallets, Buffer.concat(run.events.map((e) => e.raw)));
        this.replayedAny = true;
        this.awaitingEraEvents = false;
      } catch (err) {
        // State is only replaced on success: resubscribe after the last event replayed.
        this.eventId = run.events[0]!.id - 1;
        this.lastError = `DUST event replay failed: ${(err as Error).message}`;
        return this.retry(this.lastError);
      }
    }
    // Events replayed: whatever failed before has passed (/wallet-status shows the current error only).
    this.lastError = undefined;
    if (this.eventId >= this.maxId && this.paramsMatchEra() && !this.awaitingEraEvents) this.phase = 'synced';
    // Publish first: a UTXO the table offers is then always in the snapshot a worker can read
    // (a worker holding an older replica reads it again, src/features/sponsorship/worker/sponsor.ts).
    this.publish();
    this.reconcile();
    this.report();
    // A new block: its fee prices are what the next fees must be computed from.
    void this.refreshParams();
  }

  /** Bring the allocator table in line with the wallets' UTXOs, once the DUST parameters are of their era. */
  private reconcile(): void {
    const dustParams = this.tip.dustParams;
    const era = this.era;
    if (!dustParams || era === undefined || this.tip.dustParamsEra !== era) return;
    this.utxos.reconcile(era, this.wallets, dustParams, this.now());
  }

  status(): SyncStatus {
    const date = new Date(this.now());
    const wallets = this.wallets.map((w, index) => ({
      index,
      balance: this.tip.dustParams ? w.state.walletBalance(date).toString() : '0',
      utxos: w.state.utxos.length,
    }));
    return {
      network: this.init.network,
      phase: this.phase,
      era: this.era,
      eraSwitches: this.eraSwitches,
      eventId: this.eventId,
      maxId: this.maxId,
      balance: wallets.reduce((s, w) => s + BigInt(w.balance), 0n).toString(),
      wallets,
      fees: this.paramsMatchEra() ? this.tip.fees : undefined,
      lastError: this.lastError,
      updatedAt: this.now(),
    };
  }

  private report(): void {
    this.onStatus(this.status());
  }
}

interface DustEvent {
  id: number;
  raw: string;
  maxId: number;
  protocolVersion?: number;
}
