/**
 * How a policy webhook's receiver knows the question comes from nightgate: the header
 * `X-Nightgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * The timestamp is signed with the body, so a captured request cannot be replayed once it is
 * older than the receiver's tolerance; within it, the summary's `id` tells a repeat apart.
 * docs/policy-webhook.md shows the receiver's check in plain Node.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Nightgate-Signature';

function mac(secret: string, t: string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest();
}

/** The header's value for `body` (the exact bytes sent), signed at `nowMs`. */
export function signWebhook(secret: string, body: string | Uint8Array, nowMs: number): string {
  const t = String(Math.floor(nowMs / 1000));
  return `t=${t},v1=${mac(secret, t, body).toString('hex')}`;
}
