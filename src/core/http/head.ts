/**
 * The response head as one string. uWS's `writeStatus(s)` copies `HTTP/1.1 ${s}\r\n` into the
 * corked buffer and `writeHeader(k, v)` copies `${k}: ${v}\r\n`; each call crosses into C++ and
 * converts its strings. A summary response has 10 status and header lines, which is where most
 * of the front's per-request cost went (bench/profiling.md). So the exchange renders the status
 * line and every header into one string, each field as `\r\n${name}: ${value}`, and hands it to
 * one `writeStatus` call: the same bytes on the wire for one native call.
 *
 * Writing raw lines means nothing else stands between a value and the wire. A value with CR, LF
 * or NUL (RFC 9110 §5.5 forbids them) would split a header or end the head early, so every header
 * record goes through `fieldLine`, which replaces them with spaces; the exchange writes only its
 * own lines directly (numbers, and a request id checked to be printable ASCII in request-head.ts).
 * Names must be tokens (§5.1); ours are constants in the code, and a name that is not one is
 * dropped (and the test for every route would show it missing).
 */
const UNSAFE_VALUE = /[\r\n\0]/;
const UNSAFE_VALUE_ALL = /[\r\n\0]/g;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A field value safe to write raw: CR, LF and NUL replaced by spaces (RFC 9110 §5.5). */
export function fieldValue(value: string): string {
  return UNSAFE_VALUE.test(value) ? value.replace(UNSAFE_VALUE_ALL, ' ') : value;
}

/** `\r\n${name}: ${value}`, or '' for a name that is not a token. */
export function fieldLine(name: string, value: string): string {
  return TOKEN.test(name) ? `\r\n${name}: ${fieldValue(value)}` : '';
}

/** All of a header record as head lines (see `fieldLine`). */
export function headerLines(headers: Readonly<Record<string, string>>): string {
  let out = '';
  for (const name in headers) out += fieldLine(name, headers[name]!);
  return out;
}
