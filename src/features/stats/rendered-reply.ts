/**
 * A response rendered ahead of requests: body bytes, ETag, Cache-Control and X-Cache (also as head
 * lines, http/head.ts), handed to the socket as-is by a synchronous handler. The same object is
 * re-rendered in place (its body and head lines replaced at most once a second), so serving it
 * costs no allocation; the front writes a Reply synchronously, before any re-render can run, so a
 * re-render is never observed half-done. Its gzip and brotli forms are made once per rendered body,
 * on first demand (http/compression.ts).
 *
 * The entity tag is strong and derived from the bytes, unless the caller names what the body is
 * about (`tag`): then it is weak and derived from that. A body that carries the clock
 * (`generatedAt`, ages in seconds) changes every second while its data does not; tagged by its
 * data, a dashboard polling with If-None-Match gets 304 until the data changes (RFC 9110 §8.8.1:
 * a weak tag for representations that are equivalent, not byte-identical).
 */
import { createHash } from 'node:crypto';
import { Encoded } from '../../core/http/compression.js';
import { headerLines } from '../../core/http/head.js';
import { JSON_TYPE, liveReplies, type Reply } from '../../core/http/route.js';

/** A strong validator (RFC 9110 §8.8.3) derived from the bytes: equal bodies, equal tags. */
export function etagOf(body: Uint8Array | string): string {
  return `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`;
}

/** A weak validator derived from what a body is about (its JSON), not from its bytes. */
function weakEtagOf(tag: unknown): string {
  return `W/"${createHash('sha1')
    .update(JSON.stringify(tag) ?? '')
    .digest('base64url')
    .slice(0, 22)}"`;
}

type Headers = Readonly<{ 'Cache-Control': string; ETag: string; 'X-Cache': 'HIT' | 'STALE'; Age?: string }>;

export class RenderedReply implements Reply {
  readonly status = 200;
  readonly contentType = JSON_TYPE;
  readonly live = true;
  body: Buffer = Buffer.alloc(0);
  /** The body as text, for pushing over WebSocket. */
  text = '';
  private etag = '""';
  /** The body and its compressed forms; the exchange writes ETag (per coding) and Vary from it. */
  encoded = new Encoded(this.body, this.etag);
  /**
   * `X-Cache: HIT` while the follower keeps the data current; `STALE` with `Age` (seconds since the
   * indexer last answered) while it fails and the last data is served (docs/api.md, "Conventions").
   * The record carries the identity form's ETag; the head lines leave it to the exchange.
   */
  headers: Headers = { 'Cache-Control': 'no-store', ETag: this.etag, 'X-Cache': 'HIT' };
  headLines = linesWithoutEtag(this.headers);

  /**
   * Re-render from a value; bytes change only when the JSON does. `tag`: what the body is about,
   * for a weak ETag that ignores the rest (the clock); without it the tag follows the bytes.
   */
  set(value: unknown, cacheControl: string, staleSeconds?: number, tag?: unknown): void {
    const text = JSON.stringify(value);
    if (text !== this.text) {
      this.text = text;
      this.body = Buffer.from(text);
      if (tag === undefined) this.etag = etagOf(this.body);
      this.encoded = new Encoded(this.body, tag === undefined ? this.etag : (this.etag = weakEtagOf(tag)));
    } else if (tag !== undefined) {
      const etag = weakEtagOf(tag);
      if (etag !== this.etag) this.encoded = new Encoded(this.body, (this.etag = etag));
    }
    this.setCacheControl(cacheControl, staleSeconds);
  }

  /** New freshness: its lifetime, and whether (and for how long) the indexer has been failing. */
  setCacheControl(cacheControl: string, staleSeconds?: number): void {
    const ETag = this.etag;
    this.headers =
      staleSeconds === undefined
        ? { 'Cache-Control': cacheControl, ETag, 'X-Cache': 'HIT' }
        : { 'Cache-Control': cacheControl, ETag, 'X-Cache': 'STALE', Age: String(staleSeconds) };
    this.headLines = linesWithoutEtag(this.headers);
    if (liveReplies.listeners.size > 0) liveReplies.changed(this);
  }
}

function linesWithoutEtag(headers: Headers): string {
  const { ETag: _etag, ...rest } = headers;
  return headerLines(rest);
}
