/**
 * When a refused call is sent again, and after how long. Only 429 and 503 are retried: the
 * server's "not now". A `Retry-After` is honoured as sent; without one the wait doubles from
 * `baseDelayMs`. Every call is bounded twice: by `attempts`, and by `maxWaitMs` of waiting in
 * total (a Retry-After beyond what is left is not waited for: the refusal is returned at once,
 * its `retryAfter` telling the caller when to come back).
 */
import type { ErrorCode, NightgateError, NightgateErrorCode } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0: none). */
  attempts?: number;
  /** Most time one call may spend waiting between its attempts, ms (default 60 000). */
  maxWaitMs?: number;
  /** First wait when the refusal names no Retry-After, ms (default 500), doubling up to `maxDelayMs` (default 10 000). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** How to wait (tests inject one that does not). Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Current time, ms since the epoch: reads a Retry-After given as an HTTP date. */
  now?: () => number;
}

/**
 * `idempotent`: the same request again changes nothing (every GET, and proving: a pure function of
 * its body). `sponsorship`: retried only on refusals that reserved nothing (below); a retry sends
 * the same bytes, and the server answers the same bytes from the same key once (X-Dedupe), so a
 * retry can never be sponsored twice. `never`: probes, whose answer is the point.
 */
export type RetryClass = 'idempotent' | 'sponsorship' | 'never';

/** Sponsorship refusals given before any DUST is reserved or any budget charged, that time may lift. */
const SPONSOR_RETRYABLE: ReadonlySet<NightgateErrorCode> = new Set([
  'RATE_LIMITED',
  'CLIENT_BODY_BUDGET_FULL',
  'BODY_BUDGET_FULL',
  'WALLET_SYNCING',
  'NO_DUST_AVAILABLE',
  'FEE_UNSETTLED',
  'RESERVATION_LIMIT',
  'QUEUE_FULL',
  'KEY_QUEUE_FULL',
  'PROVER_BUSY',
  'PROVER_UNAVAILABLE',
  'BUDGET_UNAVAILABLE',
  'WALLET_LEASE_LOST',
  'USER_LIMIT',
  'POLICY_WEBHOOK_UNAVAILABLE',
  'CHAIN_STALE',
] satisfies ErrorCode[]);

/** 429/503 that waiting does not lift: the key itself is refused, the prover is not provisioned, the budget is spent, the server is going away. */
const PERMANENT: ReadonlySet<NightgateErrorCode> = new Set([
  'TOO_MANY_AUTH_FAILURES',
  'PROVER_KEYS_MISSING',
  'PROVER_KEYS_INVALID',
  'PROVER_BINARY_NOT_FOUND',
  'PROVER_BINARY_NOT_EXECUTABLE',
  'DUST_BUDGET_EXCEEDED',
  'SHUTTING_DOWN',
] satisfies ErrorCode[]);

export interface RetryPolicy {
  attempts: number;
  maxWaitMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = (): void => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

export function retryPolicy(opts: number | false | RetryOptions | undefined): RetryPolicy {
  const o: RetryOptions = typeof opts === 'number' ? { attempts: opts } : opts === false ? { attempts: 0 } : (opts ?? {});
  return {
    attempts: Math.max(0, Math.floor(o.attempts ?? 3)),
    maxWaitMs: o.maxWaitMs ?? 60_000,
    baseDelayMs: o.baseDelayMs ?? 500,
    maxDelayMs: o.maxDelayMs ?? 10_000,
    sleep: o.sleep ?? sleepFor,
    now: o.now ?? Date.now,
  };
}

/** `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date; in seconds from `now`. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function retryable(err: NightgateError, cls: RetryClass): boolean {
  if (err.status !== 429 && err.status !== 503) return false;
  if (cls === 'sponsorship') return SPONSOR_RETRYABLE.has(err.code);
  return cls === 'idempotent' && !PERMANENT.has(err.code);
}

/** How long to wait before retry number `retry` (0-based) after `err`, or undefined: do not retry. */
export function delayBefore(p: RetryPolicy, err: NightgateError, cls: RetryClass, retry: number, waitedMs: number): number | undefined {
  if (retry >= p.attempts || !retryable(err, cls)) return undefined;
  const ms = err.retryAfter !== undefined ? err.retryAfter * 1000 : Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** retry);
  return waitedMs + ms <= p.maxWaitMs ? ms : undefined;
}
