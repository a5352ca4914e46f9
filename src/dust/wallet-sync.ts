/**
 * DUST wallet sync for one network (DESIGN.md, "DUST wallet sync"): replay the indexer's
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
import { GraphqlHttpClient } from '../indexer/graphql-http.js';
import { GraphqlWsConnection } from '../indexer/graphql-ws.js';
import { eraOfBytes, eraOfProtocolVersion, ledger, release, type Era, type L } from '../infra/ledger/index.js';
import { DustAllocatorTable } from './allocator.js';
import { SharedSnapshot } from './shared-snapshot.js';
import { DUST_EVENTS, LEDGER_PARAMETERS } from './queries.js';
import { dustSecretKey, encodeWalletState, utxoKey, utxoValue, valueToTableUnits } from './wallet-state.js';

export interface NetworkSyncInit {
  network: string;
  graphqlUrl: string;
  graphqlWsUrl: string;
  /** Hex seeds of the server DUST wallets; the wallet index is the position here. */
  seeds: readonly string[];
  table: SharedArrayBuffer;
  snapshot: SharedArrayBuffer;
  timeoutMs: number;
  /** SPENT slots stay visible (wallet-status counts) this long before their slot is reused. */
  spentRetentionMs: number;
  /**
   * How often the tip's ledger parameters are read again (fee prices move every block with its
   * fullness, so fees must be computed from the tip's, not from those read at start). Default 1 000.
   */
  paramsRefreshMs?: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** The network's block interval: how far behind the chain's head the indexer's tip may be is counted in blocks. */
  blockTimeMs: number;
}

/**
 * Blocks the indexer's tip may trail the chain's head by when its parameters are read: the fee
 * margin counts the price rise of that many blocks before the read. Counting from the tip block's
 * timestamp instead would price every second a stalled or back-dated chain did not move.
 */
const TIP_LAG_BLOCKS = 2;

export type SyncPhase = 'starting' | 'syncing' | 'synced' | 'reconnecting';

export interface SyncStatus {
  network: string;
  phase: SyncPhase;
  /** The ledger era the wallets are replayed in (undefined before the chain has said). */
  era: Era | undefined;
  /** How many times the wallets started afresh because the chain changed era. */
  eraSwitches: number;
  /** Last event replayed, and the indexer's latest event id when it was sent. */
  eventId: number;
  maxId: number;
  /** Spendable DUST of all server wallets now (SPECK, decimal string). */
  balance: string;
  wallets: Array<{ index: number; balance: string; utxos: number }>;
  lastError: string | undefined;
  updatedAt: number;
}

interface Wallet {
  sk: L.DustSecretKey;
  state: L.DustLocalState;
}

interface PendingEvent {
  id: number;
  raw: Uint8Array;
  era: Era;
}

const SAFETY_SWEEP_MS = 10_000;
const PARAMS_REFRESH_MS = 1_000;
/** Values are refreshed at every block and every sweep: twice the sweep bounds the time to the next refresh. */
const VALUE_HORIZON_MS = 2 * SAFETY_SWEEP_MS;

export class NetworkDustSync {
  private readonly table: DustAllocatorTable;
  private readonly snapshot: SharedSnapshot;
  private readonly http: GraphqlHttpClient;
  /** The chain's DUST parameters, read once: every `LedgerParameters.dust` read is a new WASM object. */
  private dustParams: L.DustParameters | undefined;
  private paramsBytes: Uint8Array | undefined;
  /** The era of the held DUST parameters (those of another era cannot build its wallets). */
  private dustParamsEra: Era | undefined;
  /** Since when (ms) the held parameters are the tip's: the tip block's time, never after the read. */
  private paramsAt = 0;
  /** The latest block time (ms) the indexer reported: no DUST spend may claim a later ctime. */
  private chainTime = 0;
  /** When the prices last read were the tip's, as loadParams bounds it. */
  private pricedAt = 0;
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
  /** `${wallet}:${nonce hex}` → allocator slot, for every UTXO the table holds. */
  private readonly slots = new Map<string, number>();
  private readonly spentAt = new Map<number, number>();
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
    this.http = new GraphqlHttpClient(init.graphqlUrl, { timeoutMs: init.timeoutMs, maxResponseBytes: 16 * 1024 * 1024, connections: 2 });
    this.retryDelay = init.reconnectMinMs;
  }

  async start(): Promise<void> {
    await this.loadParams();
    this.era = this.dustParamsEra;
    this.snapshot.announceEra(this.era!);
    this.wallets = this.freshWallets(this.era!);
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
    void this.http.close();
  }

  /**
   * Reads the tip's parameters; returns whether they differ from those held. `pricedAt` is the tip
   * block's time, not the moment of the read (an indexer a block behind the chain must not make
   * the fee margin one short), but no earlier than TIP_LAG_BLOCKS before the read.
   */
  private async loadParams(): Promise<boolean> {
    const res = await this.http.request(LEDGER_PARAMETERS);
    const block = res.data['block'] as { height?: number; timestamp?: number; protocolVersion?: number; ledgerParameters?: string } | null;
    if (!block?.ledgerParameters) throw new Error(`the indexer of ${this.init.network} has no block with ledger parameters yet`);
    const readAt = this.now();
    const tipAt = Math.min(readAt, typeof block.timestamp === 'number' ? block.timestamp : readAt);
    this.chainTime = Math.max(this.chainTime, tipAt);
    this.pricedAt = Math.max(tipAt, readAt - TIP_LAG_BLOCKS * this.init.blockTimeMs);
    const bytes = Buffer.from(block.ledgerParameters, 'hex');
    if (this.paramsBytes && Buffer.compare(bytes, this.paramsBytes) === 0) return false;
    const era = eraOfBytes(bytes) ?? (typeof block.protocolVersion === 'number' ? eraOfProtocolVersion(block.protocolVersion) : undefined);
    if (era === undefined) throw new Error(`the ledger parameters of ${this.init.network} are of no known ledger era`);
    // Eras only move forward: an older era's parameters come from an indexer still behind the
    // switch the wallets have made, and price nothing they can build.
    if (this.era !== undefined && era < this.era) return false;
    this.paramsBytes = bytes;
    this.paramsAt = this.pricedAt;
    // The DUST parameters are read once per era: wallets are built on them, and they change only
    // by a governance update (a new wallet state then follows from the events).
    if (this.dustParamsEra !== era) {
      const params = ledger(era).LedgerParameters.deserialize(bytes);
      release(this.dustParams);
      this.dustParams = params.dust;
      this.dustParamsEra = era;
      release(params);
    }
    return true;
  }

  /** Empty wallets of `era` (the era's DUST parameters, or its initial ones until the tip's are read). */
  private freshWallets(era: Era): Wallet[] {
    const L = ledger(era);
    const params = this.dustParamsEra === era ? undefined : L.LedgerParameters.initialParameters();
    const dust = params ? params.dust : this.dustParams!;
    try {
      return this.init.seeds.map((seed) => ({ sk: dustSecretKey(era, seed), state: new L.DustLocalState(dust) }));
    } finally {
      if (params) release(dust, params);
    }
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
    for (const [id, slot] of this.slots) {
      this.table.markSpent(slot);
      this.spentAt.set(slot, now);
      this.slots.delete(id);
    }
    for (const w of this.wallets) release(w.state, w.sk);
    this.era = to;
    if (this.replayedAny) this.eraSwitches++;
    this.wallets = this.freshWallets(to);
    // The old era's parameters price nothing now: until the tip's are read, nothing is published.
    this.phase = 'syncing';
    this.lastError = undefined;
  }

  /** Whether the held parameters are of the wallets' era (a snapshot is published only then). */
  private paramsMatchEra(): boolean {
    return this.paramsBytes !== undefined && this.era !== undefined && eraOfBytes(this.paramsBytes) === this.era;
  }

  /**
   * Reads the tip's parameters again. Moved fee prices are published to the workers at once; the
   * same ones are only confirmed (a header word), so workers know how fresh their prices are
   * without decoding the wallets again. The fee margin counts blocks from that moment
   * (src/dust/fee-margin.ts), so a failing read makes fees safer, not short.
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
        const moved = await this.loadParams();
        if (this.closed || this.eventId < 0) return;
        if (moved && this.replayedAny && this.era !== undefined && this.dustParamsEra !== undefined && this.dustParamsEra > this.era) {
          // The tip runs a newer era than the wallets: the chain switched, and its first blocks of
          // the new era may carry no DUST event to say so. Until they do, every sponsorship would
          // spend a UTXO of an era the chain has left: switch now.
          this.switchEra(this.dustParamsEra);
          this.awaitingEraEvents = true;
          this.report();
        }
        if (moved) this.publish();
        if (this.paramsMatchEra()) this.snapshot.confirm(this.pricedAt);
        if (moved && this.pending.length === 0 && this.eventId >= this.maxId && this.phase === 'syncing' && this.paramsMatchEra() && !this.awaitingEraEvents) {
          // The new era's parameters arrived after its events: the wallets are ready now.
          this.phase = 'synced';
          this.reconcile();
          this.report();
        }
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
    let chainTime = this.chainTime;
    for (const w of this.wallets) chainTime = Math.max(chainTime, w.state.syncTime.getTime());
    this.chainTime = Math.min(chainTime, this.now());
    this.snapshot.publish(
      encodeWalletState({ era: this.era!, chainTime: this.chainTime, params: this.paramsBytes!, paramsAt: this.paramsAt, wallets: this.wallets.map((w) => w.state.serialize()), eventId: this.eventId }),
    );
  }

  private connect(): void {
    if (this.closed) return;
    this.phase = this.eventId < 0 ? 'syncing' : this.phase === 'synced' ? 'synced' : 'syncing';
    const ws = new GraphqlWsConnection(this.init.graphqlWsUrl, {
      ackTimeoutMs: this.init.timeoutMs,
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
        this.replay(Buffer.concat(run.events.map((e) => e.raw)));
        this.replayedAny = true;
        this.awaitingEraEvents = false;
      } catch (err) {
        // State is only replaced on success: resubscribe after the last event replayed.
        this.eventId = run.events[0]!.id - 1;
        this.lastError = `DUST event replay failed: ${(err as Error).message}`;
        return this.retry(this.lastError);
      }
    }
    if (this.eventId >= this.maxId && this.paramsMatchEra() && !this.awaitingEraEvents) this.phase = 'synced';
    // Publish first: a UTXO the table offers is then always in the snapshot a worker can read
    // (a worker holding an older replica reads it again, workers/lib/sponsor.ts).
    this.publish();
    this.reconcile();
    this.report();
    // A new block: its fee prices are what the next fees must be computed from.
    void this.refreshParams();
  }

  /** Replays one era's events into every wallet, all or none. */
  private replay(raw: Uint8Array): void {
    const next: L.DustLocalState[] = [];
    try {
      for (const w of this.wallets) {
        const replayed = w.state.replayRawEvents(w.sk, raw);
        next.push(replayed.state);
        // The replay's own wrapper holds a copy of the changes: free it now.
        release(replayed);
      }
    } catch (err) {
      release(...next);
      throw err;
    }
    this.wallets.forEach((w, i) => {
      // Each block leaves a whole wallet state behind: free it now.
      release(w.state);
      w.state = next[i]!;
    });
  }

  /** Bring the allocator table in line with the wallets' UTXOs. */
  private reconcile(): void {
    const dustParams = this.dustParams;
    const era = this.era;
    if (!dustParams || era === undefined || this.dustParamsEra !== era) return;
    const now = this.now();
    const date = new Date(now);
    const horizon = new Date(now + VALUE_HORIZON_MS);
    const seen = new Set<string>();
    this.wallets.forEach((w, walletIndex) => {
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
      if (now - at < this.init.spentRetentionMs) continue;
      this.table.recycle(slot);
      this.spentAt.delete(slot);
    }
  }

  private track(id: string, walletIndex: number, nonce: bigint, value: bigint): void {
    try {
      this.slots.set(id, this.table.add({ walletIndex, key: utxoKey(nonce), value }));
    } catch (err) {
      // Table full: the UTXO is not offered until a slot frees; the status says so.
      this.lastError = `DUST UTXO not offered: ${(err as Error).message}`;
    }
  }

  status(): SyncStatus {
    const date = new Date(this.now());
    const wallets = this.wallets.map((w, index) => ({ index, balance: this.dustParams ? w.state.walletBalance(date).toString() : '0', utxos: w.state.utxos.length }));
    return {
      network: this.init.network,
      phase: this.phase,
      era: this.era,
      eraSwitches: this.eraSwitches,
      eventId: this.eventId,
      maxId: this.maxId,
      balance: wallets.reduce((s, w) => s + BigInt(w.balance), 0n).toString(),
      wallets,
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

/** Consecutive events of the same era, in order: each run is replayed with its era's ledger. */
function runsByEra(events: readonly PendingEvent[]): Array<{ era: Era; events: PendingEvent[] }> {
  const runs: Array<{ era: Era; events: PendingEvent[] }> = [];
  for (const e of events) {
    const last = runs[runs.length - 1];
    if (last && last.era === e.era) last.events.push(e);
    else runs.push({ era: e.era, events: [e] });
  }
  return runs;
}
