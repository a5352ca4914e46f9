/**
 * DUST wallet sync for one network (DESIGN.md, "DUST wallet sync"): replay the indexer's
 * `dustLedgerEvents` into a `DustLocalState` per server DUST key, keep the allocator table in step
 * with the wallets' UTXOs (new ones FREE, spent ones SPENT, values refreshed as DUST accrues), and
 * publish the wallets' state to the balancing workers through the shared snapshot.
 *
 * This runs on the sync thread, which is the allocator's single owner (add, updateValue,
 * markSpent, recycle, reclaimExpired); workers only reserve and release. ledger-v8 replays cost
 * milliseconds per event, which is why none of this runs on the uWS thread.
 */
import * as L from '@midnight-ntwrk/ledger-v8';
import { GraphqlHttpClient } from '../indexer/graphql-http.js';
import { GraphqlWsConnection } from '../indexer/graphql-ws.js';
import { release } from '../infra/ledger/release.js';
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
}

export type SyncPhase = 'starting' | 'syncing' | 'synced' | 'reconnecting';

export interface SyncStatus {
  network: string;
  phase: SyncPhase;
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
  /** When (ms, this clock) the held parameters were read from the tip. */
  private paramsAt = 0;
  private paramsTimer: NodeJS.Timeout | undefined;
  private paramsInFlight: Promise<void> | undefined;
  private wallets: Wallet[] = [];
  /** `${wallet}:${nonce hex}` → allocator slot, for every UTXO the table holds. */
  private readonly slots = new Map<string, number>();
  private readonly spentAt = new Map<number, number>();
  private pending: Uint8Array[] = [];
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
    this.wallets = this.init.seeds.map((seed) => ({ sk: dustSecretKey(seed), state: new L.DustLocalState(this.dustParams!) }));
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

  /** Reads the tip's parameters; returns whether they differ from those held. */
  private async loadParams(): Promise<boolean> {
    const res = await this.http.request(LEDGER_PARAMETERS);
    const block = res.data['block'] as { height?: number; ledgerParameters?: string } | null;
    if (!block?.ledgerParameters) throw new Error(`the indexer of ${this.init.network} has no block with ledger parameters yet`);
    const readAt = this.now();
    const bytes = Buffer.from(block.ledgerParameters, 'hex');
    if (this.paramsBytes && Buffer.compare(bytes, this.paramsBytes) === 0) return false;
    const first = this.paramsBytes === undefined;
    this.paramsBytes = bytes;
    this.paramsAt = readAt;
    // The DUST parameters are read once: wallets are built on them, and they change only by a
    // governance update (a new wallet state then follows from the events).
    if (first) {
      const params = L.LedgerParameters.deserialize(bytes);
      this.dustParams = params.dust;
      release(params);
    }
    return true;
  }

  /**
   * Reads the tip's parameters again. Moved fee prices are published to the workers at once; the
   * same ones are only confirmed (a header word), so workers know how fresh their prices are
   * without decoding the wallets again. The fee margin counts blocks from that moment
   * (src/dust/fee-margin.ts), so a failing read makes fees safer, not short.
   */
  private async refreshParams(): Promise<void> {
    if (this.closed || this.paramsInFlight) return;
    this.paramsInFlight = (async () => {
      try {
        const readAt = this.now();
        const moved = await this.loadParams();
        if (this.closed || this.eventId < 0) return;
        if (moved) this.publish();
        this.snapshot.confirm(readAt);
      } catch (err) {
        this.lastError = `reading the ledger parameters failed: ${(err as Error).message}`;
      } finally {
        this.paramsInFlight = undefined;
      }
    })();
    await this.paramsInFlight;
  }

  private publish(): void {
    this.snapshot.publish(
      encodeWalletState({ params: this.paramsBytes!, paramsAt: this.paramsAt, wallets: this.wallets.map((w) => w.state.serialize()), eventId: this.eventId }),
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
      next: (data) => this.onEvent(data['dustLedgerEvents'] as { id: number; raw: string; maxId: number }),
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

  private onEvent(e: { id: number; raw: string; maxId: number } | undefined): void {
    if (!e || typeof e.id !== 'number' || typeof e.raw !== 'string') return this.retry('the indexer sent a malformed DUST event');
    if (e.id <= this.eventId) return; // a replay after reconnect
    this.pending.push(Buffer.from(e.raw, 'hex'));
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
    const raw = Buffer.concat(this.pending);
    this.pending = [];
    try {
      for (const w of this.wallets) {
        const replayed = w.state.replayRawEvents(w.sk, raw);
        const previous = w.state;
        w.state = replayed.state;
        // Each block leaves a whole wallet state behind: free it (and the replay's own copy) now.
        release(previous, replayed);
      }
    } catch (err) {
      // State is only replaced on success, so resubscribing from the last good id is safe.
      this.lastError = `DUST event replay failed: ${(err as Error).message}`;
      return this.retry(this.lastError);
    }
    if (this.eventId >= this.maxId) this.phase = 'synced';
    // Publish first: a UTXO the table offers is then always in the snapshot a worker can read
    // (a worker holding an older replica reads it again, workers/lib/sponsor.ts).
    this.publish();
    this.reconcile();
    this.report();
    // A new block: its fee prices are what the next fees must be computed from.
    void this.refreshParams();
  }

  /** Bring the allocator table in line with the wallets' UTXOs. */
  private reconcile(): void {
    const dustParams = this.dustParams;
    if (!dustParams) return;
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
        const now0 = utxoValue(w.state, qdo, date, dustParams);
        const later = utxoValue(w.state, qdo, horizon, dustParams);
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
