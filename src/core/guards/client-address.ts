/**
 * Which address a request comes from when nightgate runs behind reverse proxies.
 *
 * `X-Forwarded-For` is a list every proxy appends its own peer to (the de-facto form of RFC 7239
 * §5.2's `for=`): the client writes whatever it likes at the left, and only the entries appended by
 * proxies we run are worth anything — those are at the right end. So, as proxies that do this
 * right do (nginx's `real_ip_recursive`, HAProxy's `option forwardfor` behind trusted hops): only
 * when the socket peer itself is a trusted proxy, walk the list from the right, skip hops inside
 * `server.trustedProxies`, and take the first one outside them. Every hop must be an IP literal; an
 * entry that is not (a port, brackets, a zone id, `unknown`, markup) ends the walk and the socket
 * address is used: the chain can no longer be trusted past it.
 */
import { isIP } from 'node:net';
import { CidrList } from '../config/cidr.js';

/** Hops read at most: more than any real chain of proxies, bounded so a huge header costs little. */
const MAX_HOPS = 32;
/** Peers seen (the proxies, or direct clients) and whether they are trusted; cleared when full. */
const PEER_CACHE = 1024;

export class ClientAddress {
  private readonly trusted: CidrList;
  private readonly enabled: boolean;
  private readonly peers = new Map<string, boolean>();

  constructor(trustedProxies: readonly string[]) {
    this.trusted = new CidrList(trustedProxies);
    this.enabled = trustedProxies.length > 0;
  }

  /**
   * The client address: `peer` (the socket address) unless it is a trusted proxy, then the first
   * untrusted hop of `forwardedFor` (all its header lines joined by commas) from the right.
   */
  resolve(peer: string, forwardedFor: string | undefined): string {
    if (!this.enabled || forwardedFor === undefined || forwardedFor === '' || !this.trustedPeer(peer)) return peer;
    let end = forwardedFor.length;
    let hop = '';
    for (let n = 0; n < MAX_HOPS && end >= 0; n++) {
      const start = forwardedFor.lastIndexOf(',', end - 1);
      hop = forwardedFor.slice(start + 1, end).trim();
      // isIP accepts IPv6 zone ids (`fe80::1%eth0`), whose text is free-form.
      if (isIP(hop) === 0 || hop.includes('%')) return peer;
      if (this.trusted.match(hop) === undefined) return hop;
      if (start < 0) return hop; // every hop is a trusted proxy: the leftmost is the client
      end = start;
    }
    return peer;
  }

  private trustedPeer(peer: string): boolean {
    let t = this.peers.get(peer);
    if (t === undefined) {
      if (this.peers.size >= PEER_CACHE) this.peers.clear();
      t = this.trusted.match(peer) !== undefined;
      this.peers.set(peer, t);
    }
    return t;
  }
}
