/** HTTP status lines for uWS's writeStatus, precomputed (RFC 9110 §15 reason phrases). */
import { STATUS_CODES } from 'node:http';

const lines = new Map<number, string>();
for (const [code, reason] of Object.entries(STATUS_CODES)) lines.set(Number(code), `${code} ${reason}`);
lines.set(499, '499 Client Closed Request');

export function statusLine(status: number): string {
  return lines.get(status) ?? `${status} Unknown`;
}
