/**
 * One call: the URL, the key header, the body, and the retries of retry.ts. Typed
 * against the least of `fetch` it uses, so the declarations need neither the DOM library nor
 * Node's types, and any fetch (undici's, a browser's, a test's) fits.
 */
import { errorFromAnswer, type NightgateError } from './errors.js';
import { delayBefore, parseRetryAfter, type RetryClass, type RetryPolicy } from './retry.js';

export interface HeadersLike {
  get(name: string): string | null;
}

export interface ResponseLike {
  readonly status: number;
  readonly headers: HeadersLike;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface RequestInitLike {
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  signal?: AbortSignal;
}

export type FetchLike = (url: string, init: RequestInitLike) => Promise<ResponseLike>;

/** Per call. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Sees the answer's status and headers (rate-limit headers, `X-Dedupe`, `ETag`, …) before the body is read. */
  onResponse?: (answer: { status: number; headers: HeadersLike }) => void;
}

export interface Transport {
  baseUrl: string;
  apiKey: string | undefined;
  fetch: FetchLike;
  retry: RetryPolicy;
  headers: Record<string, string>;
}

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: Uint8Array;
  headers?: Record<string, string>;
  /** Send the API key (routes that need or take one). */
  auth: boolean;
  retry: RetryClass;
}

function urlOf(baseUrl: string, path: string, query: Call['query'] = {}): string {
  const qs = Object.entries(query)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return `${baseUrl.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;
}

/** Resolves to the answer when its status is below 400; else rejects with its NightgateError, after the retries its class allows. */
export async function send(t: Transport, call: Call, opts: CallOptions = {}): Promise<ResponseLike> {
  const headers: Record<string, string> = { ...t.headers, ...call.headers, ...opts.headers };
  if (call.auth && t.apiKey !== undefined) headers['X-API-Key'] = t.apiKey;
  if (call.body !== undefined) headers['Content-Type'] = 'application/octet-stream';
  const url = urlOf(t.baseUrl, call.path, call.query);
  let waited = 0;
  for (let retry = 0; ; retry++) {
    const res = await t.fetch(url, {
      method: call.method,
      headers,
      ...(call.body !== undefined ? { body: call.body } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    opts.onResponse?.({ status: res.status, headers: res.headers });
    if (res.status < 400) return res;
    const err: NightgateError = errorFromAnswer(res.status, await res.text(), parseRetryAfter(res.headers.get('retry-after'), t.retry.now()));
    const delay = delayBefore(t.retry, err, call.retry, retry, waited);
    if (delay === undefined) throw err;
    await t.retry.sleep(delay, opts.signal);
    waited += delay;
  }
}

export async function sendJson<T>(t: Transport, call: Call, opts?: CallOptions): Promise<T> {
  return JSON.parse(await (await send(t, call, opts)).text()) as T;
}

export async function sendText(t: Transport, call: Call, opts?: CallOptions): Promise<string> {
  return (await send(t, call, opts)).text();
}
