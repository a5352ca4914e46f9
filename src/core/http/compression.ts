/**
 * Compressed bodies for the replies served many times (the cached statistics, lookups, the API
 * description): gzip and brotli made once per rendered body, on the first request that accepts
 * them, never per request; the exchange picks one per request from Accept-Encoding.
 *
 *  - Negotiation (RFC 9110 §12.5.3): q-values honoured, `q=0` refuses a coding, `*` stands for the
 *    codings not listed, `identity` is acceptable unless refused (itself or by `*;q=0`), and when
 *    not listed it comes after every coding listed with q > 0. The highest q wins; on a tie
 *    brotli, then gzip, then identity. A client that refuses identity and
 *    accepts nothing we make still gets identity (the section allows it; a 406 would help no one).
 *  - Bodies under COMPRESS_MIN_BYTES are sent as they are, with no Vary: a few hundred bytes fit
 *    in the packet anyway. A compressed form that is not smaller is not used.
 *  - Every answer of a compressible body says `Vary: Accept-Encoding`, so caches keep one copy per
 *    coding, and its entity tag names the coding (`"…-br"`, `"…-gz"`; weak stays weak): a cache
 *    holding the gzip copy never revalidates it against the brotli one (RFC 9110 §8.8.3).
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { headerLines } from './head.js';

export type Coding = 'br' | 'gzip' | 'identity';

/** Smallest body that is compressed. */
export const COMPRESS_MIN_BYTES = 1024;
/** Brotli quality: 5 compresses about as well as gzip -9 in a fraction of brotli 11's time. */
const BROTLI_QUALITY = 5;

const choices = new Map<string, Coding>();
const CHOICES_KEPT = 256;

/** The coding to send for an Accept-Encoding field (all its lines joined by commas), cached by its text. */
export function negotiate(acceptEncoding: string | undefined): Coding {
  if (acceptEncoding === undefined || acceptEncoding === '') return 'identity';
  let c = choices.get(acceptEncoding);
  if (c === undefined) {
    c = parseAcceptEncoding(acceptEncoding);
    if (choices.size >= CHOICES_KEPT) choices.clear();
    choices.set(acceptEncoding, c);
  }
  return c;
}

function qValue(params: readonly string[]): number {
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const q = Number(p.slice(eq + 1).trim());
    return Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : 0;
  }
  return 1;
}

export function parseAcceptEncoding(header: string): Coding {
  let br = -1;
  let gzip = -1;
  let identity = -1;
  let star = -1;
  for (const item of header.split(',')) {
    const [name = '', ...params] = item.split(';');
    const token = name.trim().toLowerCase();
    if (token === '') continue;
    const q = qValue(params);
    if (token === 'br') br = q;
    else if (token === 'gzip' || token === 'x-gzip') gzip = q;
    else if (token === 'identity') identity = q;
    else if (token === '*') star = q;
  }
  if (br < 0) br = star >= 0 ? star : 0;
  if (gzip < 0) gzip = star >= 0 ? star : 0;
  // Unlisted, identity is acceptable unless `*;q=0` refuses it, but preferred last: a client that
  // lists codings, whatever their q, asks for one of them.
  if (identity < 0) identity = star === 0 ? 0 : 0.001;
  if (br > 0 && br >= gzip && br >= identity) return 'br';
  if (gzip > 0 && gzip >= identity) return 'gzip';
  return 'identity';
}

/** `"abc"` → `"abc-br"`, `W/"abc"` → `W/"abc-br"`. */
function taggedEtag(etag: string, suffix: string): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-${suffix}"` : `${etag}-${suffix}`;
}

/**
 * One rendered body and its compressed forms, made on first demand and kept with it. Its owner
 * makes a new one when the body changes (rendered-reply.ts, lookup-cache.ts).
 */
export class Encoded {
  /** Worth compressing (COMPRESS_MIN_BYTES): answers carry Vary and coding-specific tags. */
  readonly compressible: boolean;
  private gz: Buffer | undefined;
  private brotli: Buffer | undefined;
  private readonly tags: Record<Coding, string>;

  constructor(
    readonly body: Buffer,
    readonly etag: string,
  ) {
    this.compressible = body.byteLength >= COMPRESS_MIN_BYTES;
    this.tags = { identity: etag, gzip: taggedEtag(etag, 'gz'), br: taggedEtag(etag, 'br') };
  }

  /** The coding actually sent for the one asked for: identity when the body is small or would not shrink. */
  choose(wanted: Coding): Coding {
    if (wanted === 'identity' || !this.compressible) return 'identity';
    return this.bodyFor(wanted).byteLength < this.body.byteLength ? wanted : 'identity';
  }

  bodyFor(coding: Coding): Buffer {
    if (coding === 'gzip') return (this.gz ??= gzipSync(this.body));
    if (coding === 'br') {
      return (this.brotli ??= brotliCompressSync(this.body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: this.body.byteLength },
      }));
    }
    return this.body;
  }

  etagFor(coding: Coding): string {
    return this.tags[coding];
  }
}

/**
 * A reply that will be served many times as it is (the API description, its HTML pages), made
 * compressible once: its body as bytes with a strong ETag from them, its other headers rendered
 * once (head.ts). Keep the result and hand the same object out on every request.
 */
export function servedMany<R extends { body: string | Uint8Array; headers?: Record<string, string> | undefined }>(
  reply: R,
): R & { body: Buffer; headers: Record<string, string>; headLines: string; encoded: Encoded; live: true } {
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength);
  const etag = `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`;
  const headers = { ...reply.headers };
  delete headers['ETag'];
  return { ...reply, body, headers: { ...headers, ETag: etag }, headLines: headerLines(headers), encoded: new Encoded(body, etag), live: true };
}
