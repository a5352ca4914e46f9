/**
 * The request pipeline. Every request the front answers — a route's, a 404 or 405, a CORS
 * preflight (endpoint.ts) — enters at `serve` and passes the same steps, each a small function
 * that hands on to the next:
 *
 *   open → identify → door → capture → authenticate → limit → [body] → answer
 *
 * A step that refuses ends the request with `ex.fail`. The steps up to `limit` run inside uWS's
 * synchronous handler call (the HttpRequest is valid only there); a shared rate-limit store and an
 * async handler may answer later (`whenReady`), and a body is read as it arrives (pipeline-body.ts).
 *
 * The uWS response contract (uWebSockets.js docs/index.d.ts, examples/):
 *  - an HttpRequest is valid only in the synchronous part of the handler: copy what we need first;
 *  - a response that is not finished synchronously must have `onAborted` attached before the
 *    handler returns, and must never be touched after the abort;
 *  - writes after an `await` go inside `res.cork` so status, headers and body leave in one syscall;
 *  - a response is finished exactly once.
 */
import { presentedKey } from '../guards/auth.js';
import { rateLimitSubject } from '../config/cidr.js';
import type { RateLimitResult } from '../guards/rate-limit.js';
import type { Endpoint } from './endpoint.js';
import { Exchange } from './exchange.js';
import type { KeyRequests } from './key-requests.js';
import { readBodyThen } from './pipeline-body.js';
import { RequestMetrics } from './request-metrics.js';
import { rateLimited, tooManyAuthFailures, unauthorized } from './refusals.js';
import { capture, clientIp, keepClient, measureLine, refusedAtTheDoor, requestId, scanHeaders } from './request-head.js';
import { socketClosed } from './refusal.js';
import type { Method, Reply } from './route.js';
import type { HttpRequest, HttpResponse } from './uws.js';

/**
 * One request through `ep`. `head`: a HEAD request (answered as GET, without the body). `onReply`:
 * told of the reply before it is written (a request forwarded from an HTTP worker thread: threads/).
 */
export function serve(ep: Endpoint, res: HttpResponse, req: HttpRequest, head: boolean, onReply?: (reply: Reply) => void): void {
  const ex = open(ep, res, req);
  if (ex === undefined) return;
  ex.head = head;
  ex.onReply = onReply;
  try {
    enter(ep, ex, req);
  } catch (err) {
    ex.fail(err);
  }
  ex.sync = false;
}

/** The request's exchange, or undefined (and dropped) if it was read behind a refusal that closed its socket (refusal.ts). */
function open(ep: Endpoint, res: HttpResponse, req: HttpRequest): Exchange | undefined {
  const remote = res.getRemoteAddress();
  if (socketClosed(remote)) {
    res.close();
    return undefined;
  }
  scanHeaders(req);
  const server = ep.server;
  const opts = server.opts;
  const method = ep.method ?? (req.getMethod().toUpperCase() as Method);
  const url = req.getUrl();
  const timed = opts.requestLog !== 'none' || opts.counter?.timeNext(ep.route) === true;
  const ex = new Exchange(server, res, ep.route, method, url, requestId(), clientIp(server.clientAddress, remote), timed);
  ex.query = req.getQuery() ?? '';
  measureLine(method, url, ex.query);
  server.opened();
  return ex;
}

/** The synchronous steps, while the HttpRequest is valid. */
function enter(ep: Endpoint, ex: Exchange, req: HttpRequest): void {
  const server = ep.server;
  const opts = server.opts;
  const def = ep.def;
  // First, so that even a request refused at the door is logged with the client it names.
  if (def.auth !== 'none' || opts.requestLog !== 'none') keepClient(ex);
  if (refusedAtTheDoor(ex, server.closing, opts.maxHeaderBytes, opts.maxHeaders)) return;
  capture(ep, ex, req, server.cors);
  ex.receivedAt = opts.clock.now();
  if (def.auth !== 'none' && !authenticated(ep, ex)) return;
  const limited = limit(ep, ex);
  // uWS hands the body only to a reader attached before this call returns: with a store that
  // answers later, the body is read meanwhile and the handler runs once both are done.
  if (def.body && limited instanceof Promise) {
    ex.watchAbort();
    return withBody(ep, ex, limited);
  }
  whenReady(ep, ex, limited, admitted);
}

/** Go on with `value` now, or once it settles: the response then outlives uWS's call, so its abort is watched. */
function whenReady<T>(ep: Endpoint, ex: Exchange, value: T | Promise<T>, next: (ep: Endpoint, ex: Exchange, value: T) => void): void {
  if (!(value instanceof Promise)) return next(ep, ex, value);
  ex.watchAbort();
  value.then(
    (v) => next(ep, ex, v),
    (err: unknown) => ex.fail(err),
  );
}

/**
 * The API key, on routes that take one: refused while the address is throttled for failures
 * (auth-throttle.ts), or without a valid key where one is needed. False when refused.
 */
function authenticated(ep: Endpoint, ex: Exchange): boolean {
  const opts = ep.server.opts;
  const now = ex.receivedAt;
  const presented = presentedKey(ex.headers['x-api-key'], ex.headers['authorization']);
  const needed = ep.def.auth === 'key' || presented !== undefined;
  const throttle = needed ? opts.authFailures : undefined;
  const subject = throttle === undefined ? '' : rateLimitSubject(ex.ip);
  const refused = throttle?.refused(subject, now);
  if (refused !== undefined) {
    ex.rl = refused;
    ex.rlName = 'auth';
    ex.fail(tooManyAuthFailures(refused.resetAt, now));
    return false;
  }
  const key = opts.keys.authenticate(presented) ?? opts.keys.trustedKey(ex.ip);
  if (!key && needed) {
    throttle?.failed(subject, now);
    ex.fail(unauthorized());
    return false;
  }
  ex.key = key;
  ex.keyId = key?.id;
  if (key !== undefined && opts.counter instanceof RequestMetrics) countByKey(ex, key.id, opts.counter.keys);
  return true;
}

/** The answer of a keyed request is counted for its key (key-requests.ts) when it is written. */
function countByKey(ex: Exchange, keyId: string, keys: KeyRequests): void {
  const forwarded = ex.onReply;
  ex.onReply = (r) => {
    keys.count(keyId, r.status ?? 200, r.code);
    forwarded?.(r);
  };
}

/** This request's hit on its key's or its address's limit, if the route is limited. */
function limit(ep: Endpoint, ex: Exchange): RateLimitResult | Promise<RateLimitResult> | undefined {
  const rl = ep.server.opts.rateLimit;
  const kind = ep.def.rateLimit;
  if (kind === 'key' && ex.key && rl.enabled) {
    const pol = ex.key.rateLimit ?? rl;
    ex.rlName = 'key';
    return rl.store.hit('key', ex.key.id, pol.limit, pol.windowMs, ex.receivedAt);
  }
  if (kind === 'ip' && rl.publicEnabled) return rl.store.hit('ip', rateLimitSubject(ex.ip), rl.publicLimit, rl.windowMs, ex.receivedAt);
  return undefined;
}

/** Record the limit's outcome for the answer's headers; false (and refused) when over it. */
function withinLimit(ex: Exchange, result: RateLimitResult): boolean {
  ex.rl = result;
  if (result.allowed) return true;
  ex.fail(rateLimited(result));
  return false;
}

function admitted(ep: Endpoint, ex: Exchange, result: RateLimitResult | undefined): void {
  if (result !== undefined && !withinLimit(ex, result)) return;
  if (ep.def.body) return readBodyThen(ep, ex, answer);
  answer(ep, ex);
}

/** The body is read, while a shared store decided on the limit: answer once both are done. */
function withBody(ep: Endpoint, ex: Exchange, limited: Promise<RateLimitResult>): void {
  readBodyThen(ep, ex, () => {
    limited.then(
      (r) => {
        if (!ex.aborted && withinLimit(ex, r)) answer(ep, ex);
      },
      (err: unknown) => ex.fail(err),
    );
  });
}

/** Run the handler and send what it replies (a throw is a failure). */
function answer(ep: Endpoint, ex: Exchange): void {
  let out: Reply | Promise<Reply>;
  try {
    out = ep.def.handler(ex);
  } catch (err) {
    return ex.fail(err);
  }
  whenReady(ep, ex, out, reply);
}

function reply(_ep: Endpoint, ex: Exchange, r: Reply): void {
  ex.send(r, ex.headers['if-none-match']);
}
