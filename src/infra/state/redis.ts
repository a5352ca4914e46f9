/**
 * The Redis connection behind the shared stores (`state.redisUrl`). One client per
 * instance (node-redis, the client Redis maintains): RESP3, Lua scripts sent by EVALSHA and
 * loaded again by EVAL when Redis answers NOSCRIPT (after a restart), reconnection with capped
 * exponential backoff, and the offline queue turned off, so a command issued while Redis is away
 * fails at once instead of waiting to run late (a late rate-limit hit or budget charge would be
 * worse than a refusal now). Every command has a timeout.
 *
 * Callers ask `available` before relying on Redis, and treat a failed command as "unavailable":
 * each store decides what that means (local limits, or a 503 for anything that spends DUST).
 * What happened is counted (`counters()`) and logged at warn once per outage, not per request.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { createClient, defineScript } from 'redis';
import { redactUrl } from '../../core/log/url-redaction.js';

/** Keys nightgate writes start with this, so one Redis can serve other programs too. */
export const KEY_PREFIX = 'nightgate:';

interface RedisStateOptions {
  url: string;
  logger: Logger;
  /** A command not answered within this is failed (the store then falls back or refuses). */
  commandTimeoutMs?: number;
  /** Longest wait between reconnection attempts; they start at 50 ms and double. */
  reconnectMaxMs?: number;
}

/** What the shared stores have done without Redis, since start (for /health and the metrics). */
export interface SharedStateCounters {
  /** Keyed-route decisions (rate limit, auth throttle, reservation share) taken on local counters because Redis was unavailable. */
  localFallbacks: number;
  /** Sponsorships refused with 503 BUDGET_UNAVAILABLE because a budget could not be charged exactly. */
  budgetUnavailable: number;
  /** Redis commands that failed (timeout, connection lost, error reply). */
  commandErrors: number;
  /** Connections (re)established after the first. */
  reconnects: number;
  /** Refunds and claim releases waiting for Redis to come back. */
  pendingRefunds: number;
}

export class StateUnavailableError extends Error {
  override name = 'StateUnavailableError';
}

type ScriptFn = (keys: readonly string[], args: readonly string[]) => Promise<unknown>;

/** A Lua script taking keys and string arguments, run by EVALSHA (EVAL again on NOSCRIPT). */
function script(source: string, keys: number) {
  return defineScript({
    SCRIPT: source,
    NUMBER_OF_KEYS: keys,
    parseCommand(parser, keyNames: readonly string[], args: readonly string[]) {
      for (const k of keyNames) parser.pushKey(k);
      parser.push(...args);
    },
    transformReply: (reply: unknown) => reply,
  } as Parameters<typeof defineScript>[0]);
}

/** Sources by name; each store adds its own (src/infra/state/*.ts) before the client is created. */
const SOURCES = new Map<string, { source: string; keys: number }>();

/** Registers a script for every client created afterwards; returns its name. */
export function registerScript(name: string, keys: number, source: string): string {
  SOURCES.set(name, { source, keys });
  return name;
}

export class RedisState {
  readonly instanceId = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly client;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  private readonly url: string;
  private readyOnce = false;
  private down = false;
  private stalled = false;
  private closed = false;
  private readonly readyListeners: Array<() => void> = [];
  private readonly stats: SharedStateCounters = { localFallbacks: 0, budgetUnavailable: 0, commandErrors: 0, reconnects: 0, pendingRefunds: 0 };
  /** Work to retry once Redis is back (idempotent refunds, claim releases). */
  private readonly pending = new Map<string, () => Promise<unknown>>();

  constructor(opts: RedisStateOptions) {
    this.url = redactUrl(opts.url);
    this.log = opts.logger.child({ module: 'state', redis: this.url });
    const maxDelay = opts.reconnectMaxMs ?? 2_000;
    const scripts: Record<string, ReturnType<typeof script>> = {};
    for (const [name, s] of SOURCES) scripts[name] = script(s.source, s.keys);
    this.client = createClient({
      url: opts.url,
      RESP: 3,
      disableOfflineQueue: true,
      scripts,
      socket: {
        connectTimeout: 2_000,
        reconnectStrategy: (retries: number) => Math.min(maxDelay, 50 * 2 ** Math.min(retries, 10)) + Math.floor(Math.random() * 50),
      },
    });
    this.timeoutMs = opts.commandTimeoutMs ?? 1_000;
    this.client.on('error', (err: Error) => this.markDown(err));
    this.client.on('ready', () => {
      if (this.readyOnce) this.stats.reconnects++;
      const wasDown = this.down || !this.readyOnce;
      this.readyOnce = true;
      this.down = false;
      if (wasDown) this.log.info('redis connected: limits, budgets, dedupe and wallet leases are shared');
      for (const l of this.readyListeners) l();
      void this.flushPending();
    });
    this.client.on('end', () => this.markDown(new Error('connection closed')));
  }

  /** Starts connecting; resolves once connected or after `waitMs` (it keeps trying in the background). */
  async start(waitMs = 3_000): Promise<boolean> {
    const ready = new Promise<boolean>((resolve) => {
      if (this.client.isReady) return resolve(true);
      this.readyListeners.push(() => resolve(true));
      const t = setTimeout(() => resolve(false), waitMs);
      t.unref();
    });
    this.client.connect().catch((err: unknown) => this.markDown(err as Error));
    const ok = await ready;
    if (!ok)
      this.log.warn(
        { waitedMs: waitMs },
        'redis unreachable at start: keyed routes use local limits and sponsorship answers 503 BUDGET_UNAVAILABLE until it answers',
      );
    return ok;
  }

  private markDown(err: Error): void {
    if (this.closed) return;
    if (!this.down) {
      this.down = true;
      this.log.warn(
        { err: err.message },
        'redis unavailable: keyed routes use local limits, sponsorship refuses (503 BUDGET_UNAVAILABLE) until it is back; reconnecting with backoff',
      );
    }
  }

  /** Connected and answering now (a command that timed out makes it unavailable until a PING is answered again). */
  get available(): boolean {
    return !this.closed && !this.stalled && this.client.isReady;
  }

  /** A command failed on an open connection (Redis paused, overloaded): probe it until it answers. */
  private stall(): void {
    if (this.stalled || this.closed) return;
    this.stalled = true;
    this.markDown(new Error('a command timed out'));
    const probe = (): void => {
      if (this.closed) return;
      this.bounded(this.client.sendCommand(['PING'])).then(
        () => {
          this.stalled = false;
          this.down = false;
          this.log.info('redis answers again');
          void this.flushPending();
        },
        () => setTimeout(probe, 250).unref(),
      );
    };
    setTimeout(probe, 100).unref();
  }

  /**
   * The reply within the command timeout, else a rejection. (node-redis times out a command only
   * while it waits to be written; one written to a Redis that stopped answering would wait for
   * ever. Its reply, if it comes, is read and dropped in order.)
   */
  private bounded<T>(p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }

  /** Called on every (re)connection. */
  onReady(listener: () => void): void {
    this.readyListeners.push(listener);
  }

  /** Runs a registered script; throws StateUnavailableError when Redis is away or does not answer. */
  async run(name: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (!this.available) throw new StateUnavailableError('redis is not connected');
    try {
      return await this.bounded(
        (this.client as unknown as Record<string, ScriptFn>)[name]!(
          keys.map((k) => KEY_PREFIX + k),
          args.map(String),
        ),
      );
    } catch (err) {
      this.stats.commandErrors++;
      this.markDownIfClosed();
      throw new StateUnavailableError(`redis command failed: ${(err as Error).message}`, { cause: err });
    }
  }

  /** A plain command (tests, the proof cache). */
  async command(args: readonly string[]): Promise<unknown> {
    if (!this.available) throw new StateUnavailableError('redis is not connected');
    try {
      return await this.bounded(this.client.sendCommand([...args]));
    } catch (err) {
      this.stats.commandErrors++;
      this.markDownIfClosed();
      throw new StateUnavailableError(`redis command failed: ${(err as Error).message}`, { cause: err });
    }
  }

  private markDownIfClosed(): void {
    if (!this.client.isReady) this.markDown(new Error('not ready'));
    else this.stall();
  }

  /** Work that must reach Redis eventually (idempotent): tried now, else once it is back. */
  later(id: string, work: () => Promise<unknown>): void {
    this.pending.set(id, work);
    this.stats.pendingRefunds = this.pending.size;
    if (this.available) void this.flushPending();
  }

  private flushing = false;

  private async flushPending(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (const [id, work] of [...this.pending]) {
        if (!this.available) break;
        try {
          await work();
          this.pending.delete(id);
        } catch {
          // Still unavailable: kept for the next connection.
          break;
        }
      }
    } finally {
      this.flushing = false;
      this.stats.pendingRefunds = this.pending.size;
    }
  }

  /** Count one decision taken locally because Redis was away. */
  countFallback(): void {
    this.stats.localFallbacks++;
  }

  countBudgetUnavailable(): void {
    this.stats.budgetUnavailable++;
  }

  counters(): Readonly<SharedStateCounters> {
    return { ...this.stats };
  }

  health(): { status: 'ok' | 'degraded'; [detail: string]: unknown } {
    return { status: this.available ? 'ok' : 'degraded', redis: this.url, connected: this.available, instanceId: this.instanceId, ...this.counters() };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.client.isOpen) await this.client.close();
      else this.client.destroy();
    } catch {
      this.client.destroy();
    }
  }
}
