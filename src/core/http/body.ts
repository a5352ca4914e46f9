/**
 * Request body reader for uWS. uWS hands body chunks as ArrayBuffers that are neutered when the
 * callback returns, so every chunk is copied. The limit is enforced twice: up front from
 * Content-Length (answer 413 without reading anything), and while streaming for chunked bodies
 * (stop copying at the limit). Either way the caller answers 413 and closes the connection, so
 * the rest of an oversized body is never buffered.
 *
 * A body without Content-Length asks `take` for each chunk's bytes before copying it (the body
 * budget, guards/body-budget.ts); a refusal ends the read like an oversized body, nothing kept.
 * A declared body's bytes are taken by the caller before the read starts.
 */
import type { GatewayError } from '../errors.js';
import type { HttpResponse } from './uws.js';

const PREALLOCATE_MAX = 64 * 1024;
/** A larger declared body is gathered in chunks up to this much, then read into one buffer. */
const GATHER_MAX = 1024 * 1024;

type BodyOutcome = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' } | { ok: false; reason: 'refused'; error: GatewayError };

/** Takes a chunk's bytes from the body budget; the refusal to answer with when it cannot. */
type TakeBytes = (bytes: number) => GatewayError | undefined;

export function readBody(res: HttpResponse, limit: number, declaredLength: number | undefined, done: (outcome: BodyOutcome) => void, take?: TakeBytes): void {
  if (declaredLength !== undefined && declaredLength > limit) {
    done({ ok: false, reason: 'too-large' });
    return;
  }
  // A small declared length is copied straight into one buffer of that size. A large one is
  // gathered in chunks until GATHER_MAX of it has arrived, then read into one buffer of its
  // declared length: memory must follow the bytes received, not the bytes announced (50 clients
  // announcing 64 MiB and sending a little must not reserve 3 GiB), and the body is one buffer,
  // which moves to a worker thread whole, never a copy of it joined from chunks.
  let pre = declaredLength !== undefined && declaredLength <= PREALLOCATE_MAX ? Buffer.allocUnsafe(declaredLength) : undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  let finished = false;
  res.onData((chunk, isLast) => {
    if (finished) return;
    const n = chunk.byteLength;
    if (received + n > limit || (declaredLength !== undefined && received + n > declaredLength)) {
      finished = true;
      done({ ok: false, reason: 'too-large' });
      return;
    }
    const refused = declaredLength === undefined && n > 0 ? take?.(n) : undefined;
    if (refused !== undefined) {
      finished = true;
      chunks.length = 0;
      done({ ok: false, reason: 'refused', error: refused });
      return;
    }
    if (pre === undefined && declaredLength !== undefined && received + n > GATHER_MAX) {
      // The client is sending its body: from here on it goes straight into one buffer of the
      // declared length, whose pages become resident only as they are written. Chunks joined at
      // the end held the body twice, and their many small allocations stayed in the heap after.
      pre = Buffer.allocUnsafeSlow(declaredLength);
      let at = 0;
      for (const c of chunks) at += c.copy(pre, at);
      chunks.length = 0;
    }
    if (pre !== undefined) pre.set(new Uint8Array(chunk), received);
    // One copy: uWS neuters the chunk when this callback returns.
    else chunks.push(Buffer.from(chunk.slice(0)));
    received += n;
    if (isLast) {
      finished = true;
      done({ ok: true, body: pre !== undefined ? pre.subarray(0, received) : Buffer.concat(chunks, received) });
    }
  });
}

/** `application/octet-stream; charset=…` → `application/octet-stream`. */
export function mediaType(contentType: string | undefined): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}
