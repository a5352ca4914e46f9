/**
 * What the front says when it turns a request away: every refusal the HTTP layer itself makes
 * (the door, auth, limits, the body, unknown paths, push WebSocket upgrades) is built here and
 * nowhere else, so its status, message and headers are the same wherever the pipeline reaches it.
 * How a refusal ends its connection is refusal.ts; the body budget's own refusals are
 * guards/body-budget.ts.
 */
import { GatewayError, type ErrorCode } from '../errors.js';
import { retryAfterSeconds, type RateLimitResult } from '../guards/rate-limit.js';

/**
 * A refusal is an answer, not a fault: nothing reads its stack, and capturing one costs per frame
 * of the pipeline on every refused request (a 404 flood is the client's cheapest attack), so none
 * is captured.
 */
function refusal(code: ErrorCode, detail?: string, headers?: Record<string, string>): GatewayError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new GatewayError(code, detail, headers === undefined ? undefined : { headers });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Draining for shutdown: another instance (or this one restarted) takes the retry. */
export function shuttingDown(): GatewayError {
  return refusal('SHUTTING_DOWN', undefined, { 'Retry-After': '5' });
}

/** RFC 9112 §3, RFC 9110 §15.5.15: the request line alone is over the header section's bound. */
export function uriTooLong(maxHeaderBytes: number): GatewayError {
  return refusal('URI_TOO_LONG', `The request line exceeds ${maxHeaderBytes} bytes`);
}

/** RFC 6585 §5: the header section is over its bound in bytes or in fields. */
export function headersTooLarge(maxHeaderBytes: number, maxHeaders: number): GatewayError {
  return refusal('HEADERS_TOO_LARGE', `Request headers exceed ${maxHeaderBytes} bytes or ${maxHeaders} fields`);
}

/** RFC 9112 §6.3: framing other parsers would read differently (request-head.ts says which). */
export function ambiguousFraming(why: string): GatewayError {
  return refusal('BAD_REQUEST', `Ambiguous message framing: ${why}`);
}

/** The address failed to authenticate too often in the auth-failure window (guards/auth-throttle.ts). */
export function tooManyAuthFailures(resetAt: number, now: number): GatewayError {
  return refusal('TOO_MANY_AUTH_FAILURES', `Too many failed authentications from this address; retry after ${retryAfterSeconds(resetAt, now)} s`);
}

/** RFC 9110 §11.6.1: a 401 names the scheme the client is to use. */
export function unauthorized(): GatewayError {
  return refusal('UNAUTHORIZED', undefined, { 'WWW-Authenticate': 'Bearer realm="nightgate"' });
}

/** Over the key's or the address's request limit; the exchange writes the limit's headers with it. */
export function rateLimited(result: RateLimitResult): GatewayError {
  return refusal('RATE_LIMITED', `Rate limit of ${result.limit} requests per ${Math.round(result.windowMs / 1000)} s exceeded`);
}

export function unsupportedMediaType(accepted: readonly string[], got: string): GatewayError {
  return refusal('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${accepted.join(' or ')}${got ? `, got ${got}` : ''}`);
}

/** RFC 9110 §8.6: Content-Length is 1*DIGIT. */
export function invalidContentLength(): GatewayError {
  return refusal('BAD_REQUEST', 'Invalid Content-Length');
}

export function payloadTooLarge(limit: number): GatewayError {
  return refusal('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
}

/** A known path asked with a method it does not take; `allow` lists those it does (RFC 9110 §15.5.6). */
export function methodNotAllowed(method: string, allow: string): GatewayError {
  return refusal('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allow}`, { Allow: allow });
}

/** No route for this path; `target` already clipped for the message. */
export function notFound(method: string, target: string): GatewayError {
  return refusal('NOT_FOUND', `No route for ${method} ${target}`);
}

/**
 * A push WebSocket upgrade turned away before it opens (topics.ts): the server is shutting down,
 * the page's origin may not open it, or the address holds as many sockets as it may.
 */
export function upgradeRefused(code: 'SHUTTING_DOWN' | 'ORIGIN_NOT_ALLOWED' | 'TOO_MANY_CONNECTIONS'): GatewayError {
  return refusal(code, undefined, code === 'TOO_MANY_CONNECTIONS' ? { 'Retry-After': '10' } : undefined);
}
