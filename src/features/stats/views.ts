/**
 * The derived routes of one network, pre-rendered (docs/DESIGN.md, "One request per feature"):
 *  - bodies that depend only on the chain (block-time, blocks-produced, d-parameter,
 *    recent-transactions) are rendered once per change of the window, not per request;
 *  - bodies that depend on the time too (latest-block's age, uptime, epoch, summary) are
 *    re-rendered lazily, at most once per second of the injected clock, on the first request
 *    of that second — honest to the second without per-request work — and at once when the
 *    chain turns stale (derive.ts, `isStale`), so their status never lags /readyz.
 * A request for a fresh view costs a comparison and returns the same Reply object.
 */
import type { NetworkName } from '../../core/config/index.js';
import { ERRORS, GatewayError } from '../../core/errors.js';
import type { Reply } from '../../core/http/route.js';
import type { BlockWindow } from './block-window.js';
import { TARGET_BLOCK_SECONDS, blockTime, blocksProduced, dParameter, isStale, latestBlock, recentTransactions, uptime } from './derive.js';
import { anchorFromChainTime, epochAt, type EpochAnchor } from './epoch.js';
import type { ChainFollower } from './follower.js';
import type { Governance } from './governance.js';
import { NIGHT_SUPPLY } from './night-supply.js';
import { RenderedReply } from './rendered-reply.js';
import type { BlockTime, DParameter, Epoch, Summary } from './schemas.js';

export const DEFAULT_RECENT_LIMIT = 20;
/** `public, max-age=N` for N = 0..6, built once. */
const MAX_AGE = Array.from({ length: TARGET_BLOCK_SECONDS + 1 }, (_, n) => `public, max-age=${n}`);
const TIMED_CACHE = MAX_AGE[1]!;
const SUPPLY_CACHE = 'public, max-age=86400';

export type DerivedRoute = 'latest-block' | 'block-time' | 'blocks-produced' | 'uptime' | 'epoch' | 'd-parameter' | 'summary';

interface ViewDeps {
  network: { id: NetworkName; name: string; source: string };
  window: BlockWindow;
  follower: ChainFollower;
  governance: Governance;
  /** Epoch length to derive epochs from chain time when the indexer has none; undefined = unknown. */
  chainEpochSeconds: number | undefined;
  /** The block time the network is expected to keep, which its freshness is judged by (derive.ts, `isStale`); default Midnight's. */
  blockTimeMs?: number;
}

export class DerivedViews {
  readonly nightSupply = new RenderedReply();
  private readonly replies: Record<DerivedRoute, RenderedReply> = {
    'latest-block': new RenderedReply(),
    'block-time': new RenderedReply(),
    'blocks-produced': new RenderedReply(),
    uptime: new RenderedReply(),
    epoch: new RenderedReply(),
    'd-parameter': new RenderedReply(),
    summary: new RenderedReply(),
  };
  /** The default recent-transactions reply, reused across blocks; other limits are rendered on demand. */
  private readonly recentDefault = new RenderedReply();
  private readonly recent = new Map<number, RenderedReply>([[DEFAULT_RECENT_LIMIT, this.recentDefault]]);
  private version = 0;
  private renderedVersion = -1;
  private renderedSecond = Number.NaN;
  /** Whether the chain was stale at the last render: a change re-renders within the second, as /readyz sees it. */
  private renderedStale = false;
  private bt: BlockTime | undefined;
  private dp: DParameter | null = null;
  private ep: Epoch | null = null;

  constructor(private readonly deps: ViewDeps) {
    this.nightSupply.set(NIGHT_SUPPLY, SUPPLY_CACHE);
  }

  /** The window, the follower's health or governance data changed: re-render on next use. */
  invalidate(): void {
    this.version++;
  }

  /** A derived route's reply for `now`; throws when there is nothing to serve. */
  get(route: DerivedRoute, now: number): Reply {
    this.refresh(now);
    if (route === 'epoch' && this.ep === null)
      throw this.unavailable(
        'EPOCH_UNAVAILABLE',
        `No epoch information for ${this.deps.network.id}: the indexer has no currentEpochInfo and the epoch length is not known`,
        this.deps.governance.nodeEpochError,
      );
    if (route === 'd-parameter' && this.dp === null)
      throw this.unavailable('D_PARAMETER_UNAVAILABLE', ERRORS.D_PARAMETER_UNAVAILABLE.message, this.deps.governance.nodeDParameterError);
    return this.replies[route];
  }

  /** Nothing to serve: say why, and why the node (when one is configured) could not fill it in. */
  private unavailable(code: 'EPOCH_UNAVAILABLE' | 'D_PARAMETER_UNAVAILABLE', why: string, nodeError: GatewayError | undefined): GatewayError {
    return new GatewayError(code, nodeError ? `${why}; nor did the node RPC give it (${nodeError.message})` : why);
  }

  /** recent-transactions for `limit`: the default is kept rendered, others once per block. */
  recentTransactions(limit: number, now: number): Reply {
    this.refresh(now);
    let r = this.recent.get(limit);
    if (!r) {
      r = new RenderedReply();
      r.set(recentTransactions(this.deps.window, limit), this.perBlockCache(now), this.staleSeconds(now));
      this.recent.set(limit, r);
    }
    return r;
  }

  /** The summary as text, for the push WebSocket; undefined before the first block. */
  summaryText(now: number): string | undefined {
    if (this.deps.window.size === 0) return undefined;
    this.refresh(now);
    return this.replies.summary.text;
  }

  private refresh(now: number): void {
    const second = Math.floor(now / 1000);
    const tip = this.deps.window.tip;
    const stale = tip !== undefined && isStale(now - tip.timestamp, this.deps.blockTimeMs ?? TARGET_BLOCK_SECONDS * 1000);
    if (this.renderedVersion === this.version && second === this.renderedSecond && stale === this.renderedStale) return;
    this.ensureData();
    if (this.renderedVersion !== this.version) {
      this.renderPerBlock(now);
      this.renderedVersion = this.version;
    }
    this.renderTimed(now);
    this.renderedSecond = second;
    this.renderedStale = stale;
  }

  private ensureData(): void {
    if (this.deps.window.size > 0) return;
    const err = this.deps.follower.lastError;
    if (err) throw new GatewayError(err.code, `${err.message}; no data is cached for ${this.deps.network.id} yet`);
    throw new GatewayError('NOT_READY', `No data received from the ${this.deps.network.id} indexer yet`, { headers: { 'Retry-After': '1' } });
  }

  /** The bodies that change only with a new block; renderTimed, which always follows, sets their freshness. */
  private renderPerBlock(now: number): void {
    const { window, governance } = this.deps;
    const cache = this.perBlockCache(now);
    this.bt = blockTime(window);
    this.dp = dParameter(window, governance.dParameterHistory, governance.nodeDParameter);
    this.replies['block-time'].set(this.bt, cache);
    this.replies['blocks-produced'].set(blocksProduced(window.tip!, this.bt), cache);
    if (this.dp) this.replies['d-parameter'].set(this.dp, cache);
    this.recent.clear();
    this.recentDefault.set(recentTransactions(window, DEFAULT_RECENT_LIMIT), cache);
    this.recent.set(DEFAULT_RECENT_LIMIT, this.recentDefault);
  }

  private renderTimed(now: number): void {
    const { window, follower, governance, network } = this.deps;
    const tip = window.tip!;
    const lb = latestBlock(tip, now);
    const up = uptime(tip, now, this.bt!, governance.utilization, follower.upstreamOk, this.deps.blockTimeMs);
    this.ep = this.epoch(now);
    const stale = this.staleSeconds(now);
    const summary: Summary = {
      network,
      generatedAt: new Date(now).toISOString(),
      status: up.status,
      dataAgeSeconds: follower.dataAgeSeconds(now),
      ledger: lb.ledger,
      latestBlock: lb,
      blockTime: this.bt!,
      blocksProduced: blocksProduced(tip, this.bt!),
      uptime: up,
      epoch: this.ep,
      dParameter: this.dp,
      nightSupply: NIGHT_SUPPLY,
    };
    this.replies['latest-block'].set(lb, TIMED_CACHE, stale);
    this.replies.uptime.set(up, TIMED_CACHE, stale);
    if (this.ep) this.replies.epoch.set(this.ep, TIMED_CACHE, stale);
    // Its weak ETag follows the data (the version, the status, the epoch, staleness), not the clock
    // fields that change every second: a polling dashboard gets 304 until something happened.
    this.replies.summary.set(summary, TIMED_CACHE, stale, { v: this.version, status: up.status, epoch: this.ep?.number ?? null, stale: stale !== undefined });
    // The chain-only bodies keep their bytes; their freshness lifetime shrinks as the next block nears.
    const cache = this.perBlockCache(now);
    this.replies['block-time'].setCacheControl(cache, stale);
    this.replies['blocks-produced'].setCacheControl(cache, stale);
    this.replies['d-parameter'].setCacheControl(cache, stale);
    for (const r of this.recent.values()) r.setCacheControl(cache, stale);
  }

  /** While the indexer fails, how old the served data is (`X-Cache: STALE` with `Age`); else undefined. */
  private staleSeconds(now: number): number | undefined {
    const f = this.deps.follower;
    return f.upstreamOk ? undefined : (f.dataAgeSeconds(now) ?? 0);
  }

  private epoch(now: number): Epoch | null {
    let anchor: EpochAnchor | undefined = this.deps.governance.epoch;
    if (!anchor && this.deps.chainEpochSeconds) anchor = anchorFromChainTime(this.deps.chainEpochSeconds, now);
    return anchor ? epochAt(anchor, now) : null;
  }

  /** Until the next block is due (6 s after the tip), at least 1 s; 1 s while the indexer fails. */
  private perBlockCache(now: number): string {
    const tip = this.deps.window.tip;
    if (!tip || !this.deps.follower.upstreamOk) return TIMED_CACHE;
    const due = Math.ceil(TARGET_BLOCK_SECONDS - (now - tip.timestamp) / 1000);
    return MAX_AGE[Math.min(TARGET_BLOCK_SECONDS, Math.max(1, due))]!;
  }
}
