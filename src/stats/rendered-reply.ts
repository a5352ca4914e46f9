/**
 * A response rendered ahead of requests: body bytes, ETag and Cache-Control (also as head lines,
 * http/head.ts), handed to the socket as-is by a synchronous handler. The same object is updated
 * in place on re-render, so serving it costs no allocation (the front writes a Reply
 * synchronously, before any re-render can run, so in-place updates are never observed half-done).
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
  readonly headers: { 'Cache-Control': string; ETag: string } = { 'Cache-Control': 'no-store', ETag: '""' };
  headLines = headerLines(this.headers);

  /** Re-render from a value; bytes and ETag change only when the JSON does. */
  set(value: unknown, cacheControl: string): void {
    const text = JSON.stringify(value);
    if (text !== this.text) {
      this.text = text;
      this.body = Buffer.from(text);
      this.headers.ETag = etagOf(this.body);
    }
    this.setCacheControl(cacheControl);
  }

  setCacheControl(cacheControl: string): void {
    this.headers['Cache-Control'] = cacheControl;
    this.headLines = headerLines(this.headers);
  }
}
