/**
 * The pages a person opens: `/` (the live dashboard, src/features/site/dashboard/), `/api` (Swagger UI over this
 * server's OpenAPI document, with "try it"), `/api/reference` (the same document as plain HTML,
 * for curl and browsers without scripts) and `/docs` (the proving and sponsorship guide).
 *
 * Every page is sent with a Content-Security-Policy: scripts only from this server and never inline
 * (the pages' own code is in served .js files), connections only back to it. Everything they load is
 * served here (src/features/site/dashboard/assets.ts): nothing from a CDN, so they work on an air-gapped host.
 */
import { servedMany } from '../../core/http/compression.js';
import type { Reply, RouteDef } from '../../core/http/route.js';
import { assetRoutes, assetUrl } from './dashboard/assets.js';
import { apiUiPage, dashboardPage } from './dashboard/pages.js';
import { PAGE_CSP, apiPage, docsPage } from './pages.js';

/**
 * The dashboard and Swagger UI: scripts and styles from here only; `img-src data:` for the icons
 * Swagger UI draws inline; `connect-src 'self'` covers the push WebSocket of the same host and port.
 */
export const SCRIPT_PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const VALIDATED = { ETag: 'Validator of the body (its coding named in it); send it back in If-None-Match for a 304' };
const NOT_MODIFIED = { description: 'Not Modified: If-None-Match matched the ETag' };
/** Pages name their assets by content digest: revalidated on every load, so a new build shows at once. */
const html = (body: string, csp: string, cache = 'no-cache'): Reply =>
  servedMany({ body, contentType: 'text/html; charset=utf-8', headers: { 'Cache-Control': cache, 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' } });

/** A Host header as it may be written back into a page: a name or address and a port, nothing else. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
/** Distinct hosts the guide is kept rendered for; more are rendered per request, uncompressed. */
const DOCS_HOSTS_KEPT = 16;

/** The origin a request was made to, from its Host (and a proxy's X-Forwarded-Proto); undefined if Host is missing or malformed. */
export function requestOrigin(headers: Readonly<Record<string, string>>): string | undefined {
  const host = headers['host'];
  if (host === undefined || !HOST.test(host)) return undefined;
  const proto = headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase() === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}

export interface SiteDeps {
  /** The OpenAPI document; computed once all routes are mounted. */
  openapi(): Record<string, unknown>;
  /** The networks whose statistics are served; asked once, at the dashboard's first request. */
  networks(): readonly string[];
}

export function siteRoutes(deps: SiteDeps): RouteDef[] {
  let dashboard: Reply | undefined;
  let api: Reply | undefined;
  let reference: Reply | undefined;
  let docsDefault: Reply | undefined;
  const docsByOrigin = new Map<string, Reply>();
  // Rendered once with a marker where the address goes: a new host costs a string replace.
  const ORIGIN_MARK = '\u0000origin\u0000';
  let docsTemplate: string | undefined;
  const page = (summary: string, extra?: string): RouteDef['schema'] => ({
    summary,
    ...(extra ? { description: extra } : {}),
    tags: ['meta'],
    response: { 200: { description: 'HTML', contentType: 'text/html', headers: { ...VALIDATED, 'Content-Security-Policy': 'Scripts from this server only' } }, 304: NOT_MODIFIED },
  });
  return [
    {
      method: 'GET', url: '/', auth: 'none', rateLimit: 'none',
      schema: page('Live dashboard: each network\'s tip, block times, epoch, uptime; the sponsorship pool and proving queue with an operator key', 'Updated on every block over `GET /api/v1/{network}/ws`. An operator key typed into the page is kept for the browser tab only (sessionStorage) and sent as `X-API-Key` to `/wallet-status`, `/health` and `/metrics`.'),
      handler: () => (dashboard ??= html(dashboardPage({ networks: deps.networks(), asset: assetUrl }), SCRIPT_PAGE_CSP)),
    },
    {
      method: 'GET', url: '/api', auth: 'none', rateLimit: 'none',
      schema: page('API reference you can try (Swagger UI over /api/openapi.json)', 'Route index, schemas, and "Try it out" against this server: `Authorize` takes an API key (`X-API-Key` or bearer); the proving routes take a file as their binary body. The same document as plain HTML: `/api/reference`.'),
      handler: () => (api ??= html(apiUiPage({ asset: assetUrl }), SCRIPT_PAGE_CSP)),
    },
    {
      method: 'GET', url: '/api/reference', auth: 'none', rateLimit: 'none',
      schema: page('The API description as one readable HTML page, without scripts'),
      handler: () => (reference ??= html(apiPage(deps.openapi()), PAGE_CSP, 'public, max-age=300')),
    },
    {
      method: 'GET', url: '/docs', auth: 'none', rateLimit: 'none', readHeaders: ['host', 'x-forwarded-proto'],
      schema: page('Proving and sponsorship API guide', 'Its `curl` examples use the address the page was asked for (Host, and X-Forwarded-Proto from a TLS proxy).'),
      handler: (ctx) => {
        const origin = requestOrigin(ctx.headers);
        if (origin === undefined) return (docsDefault ??= html(docsPage(deps.openapi()), PAGE_CSP, 'public, max-age=300'));
        const kept = docsByOrigin.get(origin);
        if (kept) return kept;
        // The origin passed HOST: letters, digits and `.-:[]` only, nothing HTML would read as markup.
        const body = (docsTemplate ??= docsPage(deps.openapi(), ORIGIN_MARK)).replaceAll(ORIGIN_MARK, origin);
        // Host is the client's to choose: past a few, a page is not kept, nor compressed, per name.
        if (docsByOrigin.size >= DOCS_HOSTS_KEPT) return { body, contentType: 'text/html; charset=utf-8', headers: { 'Cache-Control': 'no-cache', 'Content-Security-Policy': PAGE_CSP, 'X-Content-Type-Options': 'nosniff' } };
        const reply = html(body, PAGE_CSP, 'public, max-age=300');
        docsByOrigin.set(origin, reply);
        return reply;
      },
    },
    ...assetRoutes(),
  ];
}
