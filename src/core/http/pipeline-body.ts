/**
 * The pipeline's body step (pipeline.ts), for routes that take a body: its media type and declared
 * length checked, the route's own admission asked, the body budget (guards/body-budget.ts)
 * charged, then the body read as it arrives (body.ts). A refusal before the read ends the
 * connection with the answer, so the body is never received; one during the read ends it too, so
 * the rest is never buffered (refusal.ts). A body is charged what it costs, not its length: its
 * route's `body.cost` per byte.
 */
import { toGatewayError, type GatewayError } from '../errors.js';
import { rateLimitSubject } from '../config/cidr.js';
import type { Endpoint } from './endpoint.js';
import type { Exchange } from './exchange.js';
import { mediaType, readBody } from './body.js';
import { invalidContentLength, payloadTooLarge, unsupportedMediaType } from './refusals.js';

/** RFC 9110 §8.6: Content-Length is 1*DIGIT; no sign, no hex, no list. */
const CONTENT_LENGTH = /^\d{1,15}$/;

/** Read the body onto `ex.body`, then `next`; or refuse. */
export function readBodyThen(ep: Endpoint, ex: Exchange, next: (ep: Endpoint, ex: Exchange) => void): void {
  const spec = ep.def.body!;
  const type = mediaType(ex.headers['content-type']);
  if (!spec.contentTypes.includes(type)) return ex.fail(unsupportedMediaType(spec.contentTypes, type));
  const cl = ex.headers['content-length'];
  if (cl !== undefined && !CONTENT_LENGTH.test(cl.trim())) {
    ex.closeAfter = true;
    return ex.fail(invalidContentLength());
  }
  const declared = cl === undefined ? undefined : Number(cl.trim());
  // Refused before a byte is read: the connection closes with the answer, so the body never is.
  const refused = declared !== undefined && declared > spec.limit ? undefined : (admission(ep, ex) ?? takeDeclared(ep, ex, declared));
  if (refused !== undefined) {
    ex.closeAfter = true;
    return ex.fail(refused);
  }
  ex.watchAbort();
  const budgeted = ep.server.opts.bodyBudget !== undefined;
  readBody(
    ex.res,
    spec.limit,
    declared,
    (outcome) => {
      if (ex.aborted) return;
      if (!outcome.ok) {
        // Close the connection after the refusal so the rest of the body is never read.
        ex.closeAfter = true;
        ex.fail(outcome.reason === 'refused' ? outcome.error : payloadTooLarge(spec.limit));
        return;
      }
      ex.body = outcome.body;
      next(ep, ex);
    },
    budgeted ? (n) => take(ep, ex, n, true) : undefined,
  );
}

/** The route's own refusal before its body is read, if it has one (a throw is one too). */
function admission(ep: Endpoint, ex: Exchange): GatewayError | undefined {
  try {
    return ep.def.admit?.(ex);
  } catch (err) {
    return toGatewayError(err);
  }
}

/** A declared body's bytes, taken from the budget before it is read; the refusal if they cannot be. */
function takeDeclared(ep: Endpoint, ex: Exchange, declared: number | undefined): GatewayError | undefined {
  if (ep.server.opts.bodyBudget === undefined) return undefined;
  ex.bodyClient = bodyClientOf(ex);
  return declared === undefined || declared === 0 ? undefined : take(ep, ex, declared, false);
}

/**
 * What `length` bytes of the body cost (its route's `body.cost` per byte), taken from the budget
 * and given back when the request has ended and no work holds the body (server.ts, `bodyReleased`).
 */
function take(ep: Endpoint, ex: Exchange, length: number, chunked: boolean): GatewayError | undefined {
  const budget = ep.server.opts.bodyBudget!;
  const cost = budget.costOf(length, ep.def.body!.cost ?? 1, chunked, ex.bodyHeld);
  const refusal = budget.take(ex.bodyClient, cost);
  if (refusal !== undefined) return budget.refusal(refusal);
  ex.bodyHeld += cost;
  return undefined;
}

/**
 * Whose share of the body budget a request spends: its API key's, or its address's when it has no
 * key of its own (a client of `auth.trustedNetworks` shares its network's id with every other).
 */
function bodyClientOf(ex: Exchange): string {
  const key = ex.key;
  return key !== undefined && key.source !== 'trusted-network' ? `key:${key.id}` : `ip:${rateLimitSubject(ex.ip)}`;
}
