/**
 * A response rendered ahead of requests: body bytes, ETag, Cache-Control and X-Cache (also as head
 * lines, http/head.ts), handed to the socket as-is by a synchronous handler. The same object is
 * re-rendered in place (its body and head lines replaced at most once a second), so serving it
 * costs no allocation; the front writes a Reply synchronously, before any re-render can run, so a
 * re-render is never observed half-done.
 */
import { createHash } from 'node:crypto';
import { headerLines } from '../http/head.js';
import { JSON_TYPE, type Reply } from '../http/route.js';

/** A strong validator (RFC 9110 §8.8.3) derived from the bytes: equal bodies, equal tags. */
export function etagOf(body: Uint8Array | string): string {
  return `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`;
}

export class RenderedReply implements Reply {
  readonly status = 200;
  readonly contentType = JSON_TYPE;
  body: Buffer = Buffer.alloc(0);
  /** The body as text, for pushing over WebSocket. */
  text = '';
  private etag = '""';
  /**
   * `X-Cache: HIT` while the follower keeps the data current; `STALE` with `Age` (seconds since the
   * indexer last answered) while it fails and the last data is served (DESIGN.md: degraded).
   */
  headers: Readonly<{ 'Cache-Control': string; ETag: string; 'X-Cache': 'HIT' | 'STALE'; Age?: string }> = { 'Cache-Control': 'no-store', ETag: this.etag, 'X-Cache': 'HIT' };
  headLines = headerLines(this.headers);

  /** Re-render from a value; bytes and ETag change only when the JSON does. */
  set(value: unknown, cacheControl: string, staleSeconds?: number): void {
    const text = JSON.stringify(value);
    if (text !== this.text) {
      this.text = text;
      this.body = Buffer.from(text);
      this.etag = etagOf(this.body);
    }
    this.setCacheControl(cacheControl, staleSeconds);
  }

  /** New freshness: its lifetime, and whether (and for how long) the indexer has been failing. */
  setCacheControl(cacheControl: string, staleSeconds?: number): void {
    const ETag = this.etag;
    this.headers = staleSeconds === undefined
      ? { 'Cache-Control': cacheControl, ETag, 'X-Cache': 'HIT' }
      : { 'Cache-Control': cacheControl, ETag, 'X-Cache': 'STALE', Age: String(staleSeconds) };
    this.headLines = headerLines(this.headers);
  }
}
