/** CIDR matching for IPv4 and IPv6 (IPv4-mapped IPv6 addresses match IPv4 ranges). */
import { isIPv4, isIPv6 } from 'node:net';

interface Range {
  text: string;
  bits: bigint;
  prefix: number;
  width: 32 | 128;
}

function v4ToBig(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBig(ip: string): bigint {
  let s = ip;
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hextets.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (quad) {
    const v = v4ToBig(quad[1]!);
    s = s.slice(0, -quad[1]!.length) + `${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? (s.split('::') as [string, string]) : [s, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

/** Normalise an address to (value, width); IPv4-mapped IPv6 becomes IPv4. */
export function parseIp(ip: string): { value: bigint; width: 32 | 128 } | undefined {
  if (isIPv4(ip)) return { value: v4ToBig(ip), width: 32 };
  if (isIPv6(ip)) {
    const value = v6ToBig(ip);
    if (value >> 32n === 0xffffn) return { value: value & 0xffffffffn, width: 32 };
    return { value, width: 128 };
  }
  return undefined;
}

export class CidrList {
  private readonly ranges: Range[];

  constructor(cidrs: readonly string[]) {
    this.ranges = cidrs.map((text) => {
      const [addr, len] = text.split('/') as [string, string];
      const ip = parseIp(addr);
      const prefix = Number(len);
      if (!ip || !Number.isInteger(prefix) || prefix < 0 || prefix > ip.width) throw new Error(`not a CIDR: ${text}`);
      const shift = BigInt(ip.width - prefix);
      return { text, bits: (ip.value >> shift) << shift, prefix, width: ip.width };
    });
  }

  /** The first range containing `ip`, or undefined. */
  match(ip: string): string | undefined {
    if (this.ranges.length === 0) return undefined;
    const parsed = parseIp(ip);
    if (!parsed) return undefined;
    for (const r of this.ranges) {
      if (r.width !== parsed.width) continue;
      const shift = BigInt(r.width - r.prefix);
      if ((parsed.value >> shift) << shift === r.bits) return r.text;
    }
    return undefined;
  }
}

/**
 * Who the per-IP rate limit counts: an IPv4 address (IPv4-mapped IPv6 included) as itself, an
 * IPv6 address by its /64 — one subscriber's allocation, where every address is equally cheap to
 * take (RFC 6177). Keyed per /128, one /64 would hold 2^64 separate quotas.
 */
export function rateLimitSubject(ip: string): string {
  if (!ip.includes(':')) return ip;
  const parsed = parseIp(ip);
  if (!parsed) return ip;
  if (parsed.width === 32) return [24n, 16n, 8n, 0n].map((shift) => (parsed.value >> shift) & 0xffn).join('.');
  const prefix = parsed.value >> 64n;
  const groups = [48n, 32n, 16n, 0n].map((shift) => ((prefix >> shift) & 0xffffn).toString(16));
  return `${groups.join(':')}::/64`;
}
