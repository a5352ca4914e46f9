/**
 * Ending a connection with a refusal (400 for bad framing, 413, 431). RFC 9112 §9.6: after
 * "Connection: close" the server must not process further requests on that connection; §11.2:
 * with ambiguous framing, what follows may be a request smuggled past a proxy. So the answer must
 * reach the client whole, and nothing already read behind it may be served.
 *
 * Both uWS builds nightgate loads (src/core/http/uws.ts: 20.30 on Node 20, 20.57 on Node 22/24) behave
 * the same here; each statement below is asserted on both by test/reliability/refusal-close.test.ts
 * (the trixie CI lane runs it on 20.57).
 *
 * uWS does not do both by itself. `end(body, true)` marks the connection and closes it only if, at
 * that moment, the socket is uncorked and nothing is left queued. Inside a request handler or an
 * onData callback the socket is corked: the answer waits in the event loop's 16 KiB cork buffer
 * while uWS goes on parsing what it has already read, and dispatching the next request resets the
 * close mark, so a request pipelined behind a 431 (or hidden in an ambiguously framed body) is
 * served on a connection that stays open. `res.close()` stops the parser but discards the corked
 * bytes (this answer and any earlier pipelined ones), and a response cannot be touched after
 * `end()`.
 *
 * One write larger than the cork buffer makes uWS flush it and write straight to the socket; then
 * `end(body, true)` finds the socket uncorked with nothing queued, and shuts it down and closes it
 * before returning. Hence a refusal's body is padded with JSON whitespace (RFC 8259 §2:
 * insignificant after a value) to one byte over the cork buffer.
 *
 * After a request handler, uWS's parser sees the closed socket and stops. After an onData callback
 * (a chunked body growing over the limit) it does not look: the chunk loop ignores what the data
 * handler returns, and the next request read behind the refusal is dispatched on the closed
 * socket — to a handler that must not run, or to a WebSocket upgrade that crashed the process
 * (on both 20.30 and 20.57). Every entry point therefore drops a request whose socket is already
 * closed (`socketClosed`).
 *
 * Open on both builds:
 *  - if the kernel cannot take the whole write at once (the client stopped reading and the send
 *    buffer is full), uWS queues the rest, keeps the socket open and keeps parsing, so a request
 *    read behind the refusal is served (the refusal itself still arrives whole; a tap `todo`);
 *  - a HEAD answer has no body to pad, so a refused HEAD is dropped unanswered (`res.close()`),
 *    with any answers to requests pipelined before it that are still corked.
 *
 * Does not work: sending the refusal as `write(first)` + `end(rest, true)`, so that a
 * `write` refused for backpressure could `close()` the still-open response before anything behind
 * is parsed. It closes and serves nothing behind, but `end(…, true)` then writes its
 * `Connection: close` header into the chunked body, which corrupts the answer. `tryEnd` for the
 * first part cannot be followed by `end`: the response never completes and uWS aborts.
 * Not possible from JavaScript on either build: remembering
 * the refused connection until the event loop turns and refusing whatever is dispatched from it
 * meanwhile. A response object is new per request and neither build has `getRemotePort`, so the
 * only key is the client address, which on loopback or behind a proxy is every client's: their
 * requests in the same turn would be refused too. Nor can a held request close the connection
 * once the refusal has drained: `onWritable` reports that the socket takes more, not that the
 * queue is empty, and neither build exposes an HTTP response's buffered amount. (Newer
 * uWebSockets sources have a remote-port call; neither build nightgate loads has it.)
 */

/** uWS `LoopData::CORK_BUFFER_SIZE`: writes that fit are held until the socket is uncorked. */
export const CORK_BUFFER_BYTES = 16 * 1024;

const SPACE = 0x20;

/** The body padded with trailing spaces to more than the cork buffer holds. */
export function refusalBody(body: string | Uint8Array): string | Uint8Array {
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  const pad = CORK_BUFFER_BYTES + 1 - size;
  if (pad <= 0) return body;
  if (typeof body === 'string') return body + ' '.repeat(pad);
  const out = Buffer.alloc(size + pad, SPACE);
  out.set(body);
  return out;
}

/**
 * True when uWS dispatches a request from a socket it has already closed: a closed socket has no
 * peer address (`getRemoteAddress()` is empty; the server listens on TCP only).
 */
export function socketClosed(remoteAddress: ArrayBuffer): boolean {
  return remoteAddress.byteLength === 0;
}
