/**
 * A policy webhook receiver's check of `X-Nightgate-Signature` (the one docs/policy-webhook.md
 * shows in plain Node): the tests verify what nightgate signs (src/features/sponsorship/policy/
 * signature.ts) the way a receiver does, with its own HMAC rather than nightgate's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a timestamp may be from the receiver's clock, either way, by default. */
const DEFAULT_TOLERANCE_S = 300;
/** A header longer than this is not one nightgate wrote. */
const MAX_HEADER_LENGTH = 1024;
const HEX_MAC = /^[0-9a-f]{64}$/;
const SECONDS = /^[0-9]{1,12}$/;

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
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  // Compare every candidate, so the time taken says nothing about which one matched.
  let ok = false;
  for (const m of macs) ok = timingSafeEqual(Buffer.from(m, 'hex'), expected) || ok;
  return ok;
}
