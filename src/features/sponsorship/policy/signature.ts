/**
 * How a policy webhook's receiver knows the question comes from nightgate: the header
 * `X-Nightgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * The timestamp is signed with the body, so a captured request cannot be replayed once it is
 * older than the receiver's tolerance; within it, the summary's `id` tells a repeat apart.
 * docs/policy-webhook.md shows the same check in plain Node for receivers.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Nightgate-Signature';

/** How far a timestamp may be from the receiver's clock, either way, by default. */
const DEFAULT_TOLERANCE_S = 300;

/** A header longer than this is not one nightgate wrote. */
const MAX_HEADER_LENGTH = 1024;

const HEX_MAC = /^[0-9a-f]{64}$/;
const SECONDS = /^[0-9]{1,12}$/;

function mac(secret: string, t: string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest();
}

/** The header's value for `body` (the exact bytes sent), signed at `nowMs`. */
export function signWebhook(secret: string, body: string | Uint8Array, nowMs: number): string {
  const t = String(Math.floor(nowMs / 1000));
  return `t=${t},v1=${mac(secret, t, body).toString('hex')}`;
}

/**
 * Whether `header` signs `rawBody` with `secret` at a time within `toleranceS` of `nowMs`.
 * The header is comma-separated `key=value` pairs: exactly one `t`, at least one `v1` (any of
 * them may match, so a sender can sign with an old and a new secret during a rotation); other
 * keys are ignored. Anything else is refused.
 */
export function verifyWebhookSignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  nowMs: number,
  toleranceS: number = DEFAULT_TOLERANCE_S,
): boolean {
  if (typeof header !== 'string' || header.length > MAX_HEADER_LENGTH) return false;
  let t: string | undefined;
  const macs: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return false;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined || !SECONDS.test(value)) return false;
      t = value;
    } else if (key === 'v1') {
      if (!HEX_MAC.test(value)) return false;
      macs.push(value);
    }
  }
  if (t === undefined || macs.length === 0) return false;
  if (Math.abs(nowMs / 1000 - Number(t)) > toleranceS) return false;
  const expected = mac(secret, t, rawBody);
  // Compare every candidate, so the time taken says nothing about which one matched.
  let ok = false;
  for (const m of macs) ok = timingSafeEqual(Buffer.from(m, 'hex'), expected) || ok;
  return ok;
}
