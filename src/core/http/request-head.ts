/**
 * The request head, read while uWS's HttpRequest is valid (only during its synchronous handler
 * call): one pass over the header fields that counts them, checks the message framing and
 * captures the fields the pipeline reads; the door that refuses before anything else; and the
 * copy onto the exchange of what the later steps and the handler need.
 *
 * The hot path allocates as little as it can: at 50k requests/s every object and closure per
 * request shows up as garbage-collector time. So the pass uses one module-level callback and
 * module-level results, valid from `scanHeaders` until the next request's (uWS calls handlers
 * one at a time; nothing here survives an await).
 */
import { randomBytes } from 'node:crypto';
import type { ClientAddress } from '../guards/client-address.js';
import type { CorsPolicy } from '../guards/cors.js';
import type { Endpoint } from './endpoint.js';
import { NO_HEADERS, type Exchange } from './exchange.js';
import { ambiguousFraming, headersTooLarge, shuttingDown, uriTooLong } from './refusals.js';
import { addressText } from './remote-address.js';
import type { HttpRequest } from './uws.js';

let requestSeq = 0;
const bootId = randomBytes(4).toString('hex');

let countedBytes = 0;
let countedFields = 0;
/** The current request's line, counted with its headers against `maxHeaderBytes`. */
let lineBytes = 0;
/**
 * The headers the pipeline itself reads, captured in the same pass (the first of each, as
 * `getHeader` answers): one `getHeader` is a native call that scans the header section again
 * (≈ 0.1 µs), and a request needs two to six of them. A route's own `readHeaders` still use it.
 */
let hRequestId: string | undefined;
let hIfNoneMatch: string | undefined;
let hApiKey: string | undefined;
let hAuthorization: string | undefined;
let hClientId: string | undefined;
let hClientName: string | undefined;
let hContentType: string | undefined;
/** Every X-Forwarded-For line, joined: a proxy may add its own line rather than extend the client's. */
let hForwardedFor: string | undefined;
let hOrigin: string | undefined;
/** Every Accept-Encoding line, joined (compression.ts negotiates on it). */
let hAcceptEncoding: string | undefined;
/** Framing headers seen in the same pass: request smuggling hides in their repeats (RFC 9112 §6.3). */
let contentLengths = 0;
let firstContentLength = '';
let conflictingLength = false;
let transferEncoding = '';
const countHeader = (k: string, v: string): void => {
  countedBytes += k.length + v.length + 4;
  countedFields++;
  switch (k) {
    case 'content-length':
      if (contentLengths++ === 0) firstContentLength = v;
      else if (v.trim() !== firstContentLength.trim()) conflictingLength = true;
      break;
    case 'transfer-encoding':
      transferEncoding = transferEncoding ? `${transferEncoding},${v}` : v;
      break;
    case 'x-request-id':
      hRequestId ??= v;
      break;
    case 'if-none-match':
      hIfNoneMatch ??= v;
      break;
    case 'x-api-key':
      hApiKey ??= v;
      break;
    case 'authorization':
      hAuthorization ??= v;
      break;
    case 'x-client-id':
      hClientId ??= v;
      break;
    case 'x-client-name':
      hClientName ??= v;
      break;
    case 'content-type':
      hContentType ??= v;
      break;
    case 'accept-encoding':
      hAcceptEncoding = hAcceptEncoding === undefined ? v : `${hAcceptEncoding},${v}`;
      break;
    case 'origin':
      hOrigin ??= v;
      break;
    case 'x-forwarded-for':
      hForwardedFor = hForwardedFor === undefined ? v : `${hForwardedFor},${v}`;
      break;
  }
};

/** One pass over the request's headers: counts, framing and the captured values above. */
export function scanHeaders(req: HttpRequest): void {
  countedBytes = 0;
  countedFields = 0;
  contentLengths = 0;
  firstContentLength = '';
  conflictingLength = false;
  transferEncoding = '';
  hRequestId = hIfNoneMatch = hApiKey = hAuthorization = hClientId = hClientName = hContentType = hForwardedFor = hOrigin = hAcceptEncoding = undefined;
  req.forEach(countHeader);
}

/** The request line as sent, counted with the headers: method, target (path and query) and ` HTTP/1.1\r\n`. */
export function measureLine(method: string, url: string, query: string): void {
  lineBytes = method.length + url.length + (query === '' ? 0 : query.length + 1) + 11;
}

/** The client's X-Request-Id when it is short printable ASCII (written raw into the answer: head.ts), else one of ours. */
export function requestId(): string {
  const given = hRequestId ?? '';
  return given !== '' && given.length <= 128 && /^[\x21-\x7e]+$/.test(given) ? given : `${bootId}-${(++requestSeq).toString(36)}`;
}

/** The client's address: the peer's, or what trusted proxies say in X-Forwarded-For (client-address.ts). */
export function clientIp(addresses: ClientAddress, remote: ArrayBuffer): string {
  return addresses.resolve(addressText(remote), hForwardedFor);
}

/** The first Origin field, as sent (empty included). */
export function origin(): string | undefined {
  return hOrigin;
}

/**
 * RFC 9112 §6.3: a message with Content-Lengths that disagree, or a Transfer-Encoding other than
 * plain `chunked` (which uWS would still read as chunked), is framed differently by different
 * parsers: a proxy in front and nightgate would disagree where the next request starts.
 */
function smuggling(): string | undefined {
  if (conflictingLength) return 'conflicting Content-Length headers';
  if (transferEncoding && transferEncoding.trim().toLowerCase() !== 'chunked') return `unsupported Transfer-Encoding "${transferEncoding.slice(0, 40)}"`;
  if (transferEncoding && contentLengths > 0) return 'both Content-Length and Transfer-Encoding';
  return undefined;
}

/**
 * Shutdown, oversized request lines and header sections, ambiguous framing: answered before
 * anything else. All but shutdown end the connection (refusal.ts). True when refused.
 */
export function refusedAtTheDoor(ex: Exchange, closing: boolean, maxHeaderBytes: number, maxHeaders: number): boolean {
  if (closing) {
    ex.fail(shuttingDown());
    return true;
  }
  // uWS itself accepts very long request lines: the line counts towards the same bound as the
  // header section, and a line alone beyond it is a URI too long (RFC 9112 §3, RFC 9110 §15.5.15).
  if (lineBytes > maxHeaderBytes) {
    ex.closeAfter = true;
    ex.fail(uriTooLong(maxHeaderBytes));
    return true;
  }
  // uWS itself accepts very large header sections; bound them here (RFC 6585 §5).
  if (lineBytes + countedBytes > maxHeaderBytes || countedFields > maxHeaders) {
    ex.closeAfter = true;
    ex.fail(headersTooLarge(maxHeaderBytes, maxHeaders));
    return true;
  }
  const framing = smuggling();
  if (framing !== undefined) {
    ex.closeAfter = true;
    ex.fail(ambiguousFraming(framing));
    return true;
  }
  return false;
}

/** Keep a captured header on the exchange (absent, or empty where it first appears: not kept, as with `getHeader`). */
function keep(ex: Exchange, name: string, value: string | undefined): void {
  if (value === undefined || value === '') return;
  if (ex.headers === NO_HEADERS) ex.headers = {};
  ex.headers[name] = value;
}

/** Who the client says it is (X-Client-ID, X-Client-Name): for the access log and the handler. */
export function keepClient(ex: Exchange): void {
  keep(ex, 'x-client-id', hClientId);
  keep(ex, 'x-client-name', hClientName);
}

/** Copy everything the later steps and the handler may need while the HttpRequest is still valid. */
export function capture(ep: Endpoint, ex: Exchange, req: HttpRequest, cors: CorsPolicy): void {
  const def = ep.def;
  if (ep.cors === 'lines') ex.cors = cors.headLines(hOrigin);
  else if (ep.cors === 'origin' && hOrigin !== undefined) {
    // As sent, empty included: the preflight answers for exactly this value.
    if (ex.headers === NO_HEADERS) ex.headers = {};
    ex.headers['origin'] = hOrigin;
  }
  if (def.auth !== 'none') {
    keep(ex, 'x-api-key', hApiKey);
    keep(ex, 'authorization', hAuthorization);
  }
  if (def.body) {
    keep(ex, 'content-type', hContentType);
    if (contentLengths > 0) keep(ex, 'content-length', firstContentLength);
  }
  if (ep.method === 'GET') {
    keep(ex, 'if-none-match', hIfNoneMatch);
    ex.acceptEncoding = hAcceptEncoding;
  }
  if (def.readHeaders) copyHeaders(req, ex, def.readHeaders);
  const names = ep.params;
  if (names.length > 0) {
    const params: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) params[names[i]!] = req.getParameter(i) ?? '';
    ex.params = params;
  }
}

/** Copy the named headers that are present; the exchange gets its own record at the first one. */
function copyHeaders(req: HttpRequest, ex: Exchange, names: readonly string[]): void {
  for (let i = 0; i < names.length; i++) {
    const n = names[i]!;
    const v = req.getHeader(n);
    if (v !== '') {
      if (ex.headers === NO_HEADERS) ex.headers = {};
      ex.headers[n] = v;
    }
  }
}
