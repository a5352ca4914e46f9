/**
 * Asks a key owner's policy webhook whether to sponsor: one signed JSON POST (signature.ts), one
 * deadline over connecting, the headers and the body, no redirects, no retries (the client
 * retries on the 503 an unavailable webhook becomes). `{"sponsor": true}` in a 2xx answer
 * sponsors; any other 2xx JSON answer denies; everything else is "unavailable", with a short
 * reason that never names the URL (it may carry credentials) or the secret.
 */
import { Agent } from 'undici';
import { systemClock, type Clock } from '../../../core/clock.js';
import type { KeyPolicy } from './compiled-policy.js';
import { redactUrls } from '../../../core/log/url-redaction.js';
import { describe, readCapped } from '../../../infra/indexer/upstream-body.js';
import type { PolicyWebhookClient, WebhookSummary, WebhookVerdict } from './ports.js';
import { SIGNATURE_HEADER, signWebhook } from './signature.js';

/** An answer is `{"sponsor": …, "reason": …}`: anything near this size is not one. */
const MAX_WEBHOOK_RESPONSE_BYTES = 16_384;
/** What of a deny's `reason` is kept, in characters. */
const MAX_REASON_CHARS = 200;
const DEFAULT_CONNECTIONS_PER_ORIGIN = 8;

/** The deadline's timer (tests fire it by hand). */
export interface DeadlineTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: DeadlineTimers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface PolicyWebhookOptions {
  /** The signature's timestamp. */
  clock?: Clock;
  timers?: DeadlineTimers;
  /** Open connections to one webhook origin at most; more questions wait (within their deadline). */
  connectionsPerOrigin?: number;
  maxResponseBytes?: number;
}

type Webhook = NonNullable<KeyPolicy['webhook']>;

class TooLarge extends Error {}

function unavailable(reason: string): WebhookVerdict {
  return { kind: 'unavailable', reason: redactUrls(reason) };
}

/** A deny's reason as shown to others: printable, single-line, at most MAX_REASON_CHARS. */
function cleanReason(reason: unknown): string | undefined {
  if (typeof reason !== 'string') return undefined;
  const text = reason.replace(/[\p{C}\s]+/gu, ' ').trim();
  const kept = Array.from(text).slice(0, MAX_REASON_CHARS).join('').trimEnd();
  return kept === '' ? undefined : kept;
}

export class PolicyWebhook implements PolicyWebhookClient {
  private readonly agent: Agent;
  private readonly clock: Clock;
  private readonly timers: DeadlineTimers;
  private readonly maxBytes: number;
  private closed = false;

  constructor(opts: PolicyWebhookOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.timers = opts.timers ?? realTimers;
    this.maxBytes = opts.maxResponseBytes ?? MAX_WEBHOOK_RESPONSE_BYTES;
    this.agent = new Agent({ connections: opts.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN, keepAliveTimeout: 10_000 });
  }

  async ask(webhook: Webhook, summary: WebhookSummary, signal?: AbortSignal): Promise<WebhookVerdict> {
    if (this.closed) return unavailable('closing');
    if (signal?.aborted) return unavailable('aborted');
    let url: URL;
    try {
      url = new URL(webhook.url);
    } catch {
      return unavailable('the webhook URL is not a URL');
    }
    const body = JSON.stringify(summary);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'nightgate',
      [SIGNATURE_HEADER]: signWebhook(webhook.secret, body, this.clock.now()),
      'X-Nightgate-Request-Id': summary.id,
    };
    if (url.username !== '' || url.password !== '') {
      const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    }

    const controller = new AbortController();
    let stopped: 'timeout' | 'aborted' | undefined;
    const stop = (why: 'timeout' | 'aborted'): void => {
      if (stopped !== undefined) return;
      stopped = why;
      controller.abort();
    };
    const onAbort = (): void => stop('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = this.timers.set(() => stop('timeout'), webhook.timeoutMs);
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
      });
      if (res.statusCode < 200 || res.statusCode > 299) {
        // Read what little there is, so the connection can serve the next question.
        await res.body.dump({ limit: this.maxBytes, signal: controller.signal }).catch(() => undefined);
        const redirect = res.statusCode >= 300 && res.statusCode < 400 ? ' (redirects are not followed)' : '';
        return unavailable(`HTTP ${res.statusCode}${redirect}`);
      }
      const text = await readCapped(res.body, this.maxBytes, res.headers['content-length'], () => new TooLarge());
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        return unavailable(`HTTP ${res.statusCode} with a body that is not JSON`);
      }
      if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
        const { sponsor, reason } = answer as { sponsor?: unknown; reason?: unknown };
        if (sponsor === true) return { kind: 'sponsor' };
        const why = cleanReason(reason);
        return why === undefined ? { kind: 'deny' } : { kind: 'deny', reason: why };
      }
      return { kind: 'deny' };
    } catch (err) {
      if (stopped === 'timeout') return unavailable(`no answer within ${webhook.timeoutMs} ms`);
      if (stopped === 'aborted') return unavailable('aborted');
      if (err instanceof TooLarge) return unavailable(`answer larger than ${this.maxBytes} bytes`);
      return unavailable(`unreachable: ${describe(err)}`);
    } finally {
      this.timers.clear(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Refuse new questions, let those in flight finish (each within its deadline), release every socket. */
  async close(): Promise<void> {
    this.closed = true;
    await this.agent.close();
  }
}
