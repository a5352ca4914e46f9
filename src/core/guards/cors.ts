/**
 * Cross-origin reads of the public routes (the Fetch standard's CORS protocol, §3.2). A dashboard on
 * another origin may read the statistics if its origin is in `server.corsOrigins` (`*` = any). The
 * routes that need a key get no CORS headers: a page elsewhere must not spend a key from a browser.
 *
 * With `*` the answer is the same for every origin, so it carries no `Vary`. With a list, the
 * allowed origin is echoed and every answer says `Vary: Origin` (allowed or not), so a shared cache
 * never hands one origin's permission to another.
 */

/** Response headers a page may read besides the CORS-safelisted ones (Fetch §3.2.6). */
const EXPOSED = [
  'ETag',
  'Age',
  'X-Cache',
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
].join(', ');
/** Request headers a page may send to the public routes. */
const ALLOWED_HEADERS = 'If-None-Match, X-Client-ID, X-Client-Name, X-Request-Id';
const PREFLIGHT_METHODS = 'GET, HEAD, OPTIONS';
/** How long a browser may cache a preflight answer, s (Fetch §3.2.3). */
const MAX_AGE = 600;

export class CorsPolicy {
  private readonly any: boolean;
  private readonly origins: ReadonlySet<string>;
  private readonly anyLines: string;

  constructor(origins: readonly string[]) {
    this.any = origins.includes('*');
    this.origins = new Set(origins);
    this.anyLines = `\r\nAccess-Control-Allow-Origin: *\r\nAccess-Control-Expose-Headers: ${EXPOSED}`;
  }

  /** False when no origin is configured: no CORS headers and no preflight answers. */
  get enabled(): boolean {
    return this.any || this.origins.size > 0;
  }

  /** Whether a page from `origin` may read (and open the push WebSocket). */
  allows(origin: string): boolean {
    return this.any || this.origins.has(origin);
  }

  /** Head lines (`\r\nName: value`…) for an answer to a public route; `origin` as the request sent it. */
  headLines(origin: string | undefined): string {
    if (this.any) return this.anyLines;
    if (!this.enabled) return '';
    if (origin === undefined || !this.origins.has(origin)) return '\r\nVary: Origin';
    return `\r\nAccess-Control-Allow-Origin: ${origin}\r\nAccess-Control-Expose-Headers: ${EXPOSED}\r\nVary: Origin`;
  }

  /** Headers of a preflight answer (204). */
  preflight(origin: string | undefined): Record<string, string> {
    const h: Record<string, string> = { Allow: PREFLIGHT_METHODS };
    if (origin !== undefined && this.allows(origin)) {
      h['Access-Control-Allow-Origin'] = this.any ? '*' : origin;
      h['Access-Control-Allow-Methods'] = PREFLIGHT_METHODS;
      h['Access-Control-Allow-Headers'] = ALLOWED_HEADERS;
      h['Access-Control-Max-Age'] = String(MAX_AGE);
    }
    if (!this.any) h['Vary'] = 'Origin';
    return h;
  }
}

/**
 * Whether a page's Origin is this server itself: the authority of `origin` is the Host the request
 * was sent to. nightgate's own dashboard (`/`) opens the push WebSocket this way whatever
 * `server.corsOrigins` says; a page of any other site names another authority.
 */
export function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || host === '') return false;
  const m = /^https?:\/\/([^/?#]+)$/i.exec(origin);
  return m !== null && m[1]!.toLowerCase() === host.toLowerCase();
}
