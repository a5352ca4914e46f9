/**
 * The chain follower of one network (docs/DESIGN.md, "One request per feature"): keeps the block window filled.
 *
 *  - On start, and whenever it may have missed blocks, it catches up over HTTP: the tip
 *    (`block` with no offset), then the missing heights in aliased batches (queries.ts).
 *  - It follows new blocks over the `blocks` subscription (graphql-transport-ws); when the
 *    connection drops it reconnects with exponential backoff and resumes from the last height
 *    it holds (inclusive: the indexer replays it, the window recognises it).
 *  - While the subscription is not streaming it polls every `pollIntervalMs` instead.
 *
 * Listeners get `blocks` (the tip height) whenever the window changed and `state` when the
 * follower's health changed; tests await `waitUntil` instead of sleeping.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import { GatewayError, toGatewayError } from '../../core/errors.js';
import type { BlockWindow } from './block-window.js';
import type { GraphqlHttpClient } from '../../infra/indexer/graphql-http.js';
import { GraphqlWsConnection } from '../../infra/indexer/graphql-ws.js';
import type { IndexerFeatureProbe } from './indexer-features.js';
import { BACKFILL_BATCH, BASELINE_FEATURES, documentsFor, type FeatureDocuments } from './queries.js';
import { BackfillData, BlocksEvent, TipData, expectShape, type RingBlock } from './upstream-types.js';
import type { UpstreamCredentials } from '../../core/config/index.js';
import { isFinalRefusal, refusalSetting } from '../../infra/indexer/graphql-http.js';

export type FollowerState = 'starting' | 'live' | 'polling' | 'stopped';

const SUBSCRIPTIONS_KEPT = 16;

interface FollowerOptions {
  http: GraphqlHttpClient;
  /** The indexer's WebSocket endpoint; without one the follower only polls. */
  wsUrl: string | undefined;
  /** The network, to name the setting to fix when its indexer refuses for good. */
  network?: string;
  /** A hosted provider's credentials for the subscription. */
  credentials?: UpstreamCredentials;
  window: BlockWindow;
  clock: Clock;
  log: Logger;
  pollIntervalMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** Deadline for the subscription's connection_ack. */
  ackTimeoutMs: number;
  keepAliveMs?: number;
  /** Chooses the documents by what the indexer supports; without one, the baseline documents (valid on every v4 indexer). */
  features?: IndexerFeatureProbe;
}

export class ChainFollower extends EventEmitter<{ blocks: [number]; state: [] }> {
  /** Whether the most recent exchange with the indexer (a poll or a subscribed block) succeeded. */
  upstreamOk = false;
  lastError: GatewayError | undefined;
  /** Injected-clock times of the last answer from the indexer and of the last failure. */
  lastSuccessAt: number | undefined;
  lastErrorAt: number | undefined;
  upstreamErrors = 0;
  reconnects = 0;
  /** Whole seconds since the indexer last answered, at `now`; null before its first answer. */
  dataAgeSeconds(now: number): number | null {
    return this.lastSuccessAt === undefined ? null : Math.max(0, Math.floor((now - this.lastSuccessAt) / 1000));
  }
  /** The `offset` of the latest subscriptions opened (at most SUBSCRIPTIONS_KEPT), for health and tests. */
  readonly subscribedFrom: Array<number | null> = [];
  private ws: GraphqlWsConnection | undefined;
  private wsLive = false;
  private stopped = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private backoffMs: number;
  private catching: Promise<void> | undefined;
  /** Heights below this do not exist (the indexer answered null for one): never asked again. */
  private floor = 0;
  /**
   * Exchanges with the indexer (a catch-up, a subscribed block) are numbered as they start. A
   * failure of an exchange older than the latest success is history, not news: a poll that times
   * out after the subscription came back must not mark the recovered indexer as failing.
   */
  private exchanges = 0;
  private lastOkExchange = 0;
  /**
   * The exchange whose answer made the window's tip what it is. An answer to an older exchange
   * that names a lower tip is history, not a chain reset: a catch-up asked for the tip, the
   * subscription then delivered a newer block, and the catch-up's answer arrived after it.
   */
  private tipExchange = 0;
  /** A catch-up was asked for while one ran: its answers may predate what the caller knows. */
  private catchUpAgain = false;

  constructor(private readonly opts: FollowerOptions) {
    super();
    this.backoffMs = opts.reconnectMinMs;
  }

  get state(): FollowerState {
    if (this.stopped) return 'stopped';
    if (this.wsLive) return 'live';
    return this.lastSuccessAt === undefined ? 'starting' : 'polling';
  }

  get subscriptionConnected(): boolean {
    return this.wsLive;
  }

  start(): void {
    this.poll();
    this.connect();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.reconnectTimer);
    this.wsLive = false;
    const ws = this.ws;
    this.ws = undefined;
    ws?.close();
    this.emit('state');
  }

  /** Resolves once `predicate` holds, checked now and after every change. */
  waitUntil(predicate: (f: this) => boolean): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!predicate(this)) return;
        this.off('blocks', check);
        this.off('state', check);
        resolve();
      };
      this.on('blocks', check);
      this.on('state', check);
    });
  }

  waitForHeight(height: number): Promise<void> {
    return this.waitUntil(() => (this.opts.window.tip?.height ?? -1) >= height);
  }

  /** Resolves when no catch-up is running (nor one queued behind it). */
  async settled(): Promise<void> {
    while (this.catching) await this.catching;
  }

  /**
   * Fetch the tip and whatever the window lacks below it. A call while a catch-up runs does not
   * start a second one beside it but one more after it: the run in flight may have asked before
   * the caller learned something (a subscribed block above a gap), so its answers may not cover
   * it. Never rejects: a failure is reported through `upstreamOk`, `lastError` and `state`.
   */
  catchUp(): Promise<void> {
    if (this.catching) {
      this.catchUpAgain = true;
      return this.catching;
    }
    this.catching = this.catchUpRuns().finally(() => (this.catching = undefined));
    return this.catching;
  }

  private async catchUpRuns(): Promise<void> {
    do {
      this.catchUpAgain = false;
      const exchange = ++this.exchanges;
      try {
        await this.fetchMissing(exchange);
      } catch (err) {
        // The next poll retries; a run queued behind this one would only fail the same way.
        this.failed(err, 'poll', exchange);
        return;
      }
    } while (this.catchUpAgain && !this.stopped);
  }

  private documents(): Promise<FeatureDocuments> {
    return this.opts.features?.documents() ?? Promise.resolve(documentsFor(BASELINE_FEATURES));
  }

  private async fetchMissing(exchange: number): Promise<void> {
    const { http, window } = this.opts;
    const docs = await this.documents();
    const tip = expectShape(TipData, (await http.request(docs.tip)).data, docs.tip.name).block;
    if (!tip) return this.succeeded(exchange);
    const known = window.tip;
    if (known && exchange < this.tipExchange && tip.height <= known.height) {
      // Answered after a newer exchange moved the tip: nothing here overrides that.
      this.succeeded(exchange);
    } else {
      if (known && tip.height < known.height) {
        // The chain behind this indexer was replaced (a restarted devnet, a reset testnet).
        this.opts.log.warn({ was: known.height, now: tip.height }, 'indexer tip went backwards: chain reset, window cleared');
        window.clear();
        this.tipExchange = 0;
        this.floor = 0;
      }
      this.ingest([tip], exchange);
    }
    const missing = window.missingBelow(window.tip!.height, this.floor);
    for (let i = 0; i < missing.length && !this.stopped; i += BACKFILL_BATCH) {
      const heights = missing.slice(i, i + BACKFILL_BATCH);
      const document = docs.backfill(heights.length);
      const variables: Record<string, number> = {};
      heights.forEach((h, k) => (variables[`h${k}`] = h));
      const got = expectShape(BackfillData, (await http.request(document, variables)).data, document.name);
      const blocks: RingBlock[] = [];
      for (let k = 0; k < heights.length; k++) {
        const b = got[`b${k}`];
        if (b) blocks.push(b);
        // A chain is contiguous: no block at h below the tip means none below h either.
        else this.floor = Math.max(this.floor, heights[k]! + 1);
      }
      this.ingest(blocks, exchange);
    }
  }

  private ingest(blocks: readonly RingBlock[], exchange: number): void {
    const before = this.opts.window.tip;
    let changed = false;
    for (const b of blocks) {
      const outcome = this.opts.window.put(b);
      if (outcome === 'replaced') this.opts.log.warn({ height: b.height, hash: b.hash }, 'block replaced at a known height: window truncated above it');
      if (outcome === 'added' || outcome === 'replaced') changed = true;
    }
    const tip = this.opts.window.tip;
    if (tip !== before) this.tipExchange = exchange;
    this.succeeded(exchange);
    if (changed && tip) this.emit('blocks', tip.height);
  }

  private poll(): void {
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    void this.catchUp().finally(() => this.schedulePoll());
  }

  private schedulePoll(): void {
    if (this.stopped || this.wsLive || this.pollTimer) return;
    this.pollTimer = setTimeout(() => this.poll(), this.opts.pollIntervalMs);
    this.pollTimer.unref();
  }

  /** Subscribe with the documents for the indexer's features, asking it for them first if they are not known. */
  private connect(): void {
    if (this.stopped || !this.opts.wsUrl) return;
    const probe = this.opts.features;
    if (!probe || probe.current) return this.subscribe(documentsFor(probe?.current ?? BASELINE_FEATURES));
    probe.documents().then(
      (docs) => this.subscribe(docs),
      (err) => {
        if (!this.stopped && !this.ws) this.lostSubscription(toGatewayError(err));
      },
    );
  }

  private subscribe(docs: FeatureDocuments): void {
    const url = this.opts.wsUrl;
    if (this.stopped || !url || this.ws) return;
    const blocksDocument = docs.blocks;
    const from = this.opts.window.tip?.height ?? null;
    this.subscribedFrom.push(from);
    // One entry per reconnect: a flapping indexer must not grow it for the life of the process.
    if (this.subscribedFrom.length > SUBSCRIPTIONS_KEPT) this.subscribedFrom.shift();
    const ws = new GraphqlWsConnection(url, {
      ackTimeoutMs: this.opts.ackTimeoutMs,
      ...(this.opts.credentials ? { credentials: this.opts.credentials } : {}),
      ...(this.opts.keepAliveMs ? { keepAliveMs: this.opts.keepAliveMs } : {}),
      onClose: (err) => {
        if (this.ws !== ws) return;
        this.lostSubscription(err ?? new GatewayError('INDEXER_UNAVAILABLE', 'The indexer subscription ended'));
      },
    });
    this.ws = ws;
    ws.subscribe(blocksDocument, from === null ? {} : { offset: { height: from } }, {
      next: (data) => {
        let block: RingBlock;
        try {
          block = expectShape(BlocksEvent, data, blocksDocument.name).blocks;
        } catch (err) {
          return this.dropSubscription(ws, toGatewayError(err));
        }
        this.onSubscribedBlock(block);
      },
      error: (err) => this.dropSubscription(ws, err),
      complete: () => this.dropSubscription(ws, new GatewayError('INDEXER_BAD_RESPONSE', 'The indexer completed the blocks subscription')),
    });
  }

  private onSubscribedBlock(block: RingBlock): void {
    const tip = this.opts.window.tip;
    if (!this.wsLive) {
      this.wsLive = true;
      this.backoffMs = this.opts.reconnectMinMs;
      clearTimeout(this.pollTimer);
      this.pollTimer = undefined;
      this.opts.log.info({ from: block.height }, 'following the indexer subscription');
      this.emit('state');
    }
    this.ingest([block], ++this.exchanges);
    // A jump means blocks were skipped (the subscription started above our tip): fetch them.
    if (tip && block.height > tip.height + 1) this.poll();
  }

  private dropSubscription(ws: GraphqlWsConnection, err: GatewayError): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    ws.close();
    this.lostSubscription(err);
  }

  private lostSubscription(err: GatewayError): void {
    this.ws = undefined;
    this.wsLive = false;
    // The indexer may come back as another version: ask it again what it supports.
    this.opts.features?.forget();
    this.upstreamErrors++;
    this.lastError = err;
    this.lastErrorAt = this.opts.clock.now();
    this.opts.log.warn({ code: err.code, err: err.message, retryInMs: this.backoffMs }, 'indexer subscription lost: polling until it reconnects');
    this.emit('state');
    if (this.stopped) return;
    // Catch up at once (this also tells whether the indexer itself is down), then keep polling.
    this.poll();
    this.reconnectTimer = setTimeout(() => {
      this.reconnects++;
      this.connect();
    }, this.backoffMs);
    this.reconnectTimer.unref();
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.reconnectMaxMs);
  }

  private succeeded(exchange: number): void {
    this.lastOkExchange = Math.max(this.lastOkExchange, exchange);
    this.lastSuccessAt = this.opts.clock.now();
    if (!this.upstreamOk) {
      this.upstreamOk = true;
      this.emit('state');
    }
  }

  private failed(err: unknown, where: string, exchange: number): void {
    const e =
      err instanceof GatewayError
        ? err
        : new GatewayError('INDEXER_BAD_RESPONSE', `Unexpected failure while following the indexer: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    this.upstreamErrors++;
    if (exchange < this.lastOkExchange) return;
    this.lastError = e;
    this.lastErrorAt = this.opts.clock.now();
    const wasOk = this.upstreamOk;
    this.upstreamOk = false;
    // A retired host or refused credentials do not change by asking again: stop, and say which setting.
    if (isFinalRefusal(e)) {
      const setting = refusalSetting(e, this.opts.network ?? '<network>');
      this.lastError = new GatewayError(e.code, `${e.message}: set ${setting}`);
      this.opts.log.error({ code: e.code, err: e.message, setting }, `${e.message}: stopped following; set ${setting} and restart`);
      this.stop();
      return;
    }
    if (wasOk || this.upstreamErrors === 1) this.opts.log.warn({ code: e.code, err: e.message, where }, 'indexer request failed');
    this.emit('state');
  }
}
