/**
 * The pages a person opens: `/` (the live dashboard, src/features/site/dashboard/), `/api` (Swagger UI over this
 * server's OpenAPI document, with "try it"), `/api/reference` (the same document as plain HTML,
 * for curl and browsers without scripts), `/docs` (the proving and sponsorship guide) and the
 * document itself, `/api/openapi.json`.
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
import { openApiRoute } from './openapi-route.js';

/**
 * The dashboard and Swagger UI: scripts and styles from here only; `img-src data:` for the icons
 * Swagger UI draws inline; `connect-src 'self'` covers the push WebSocket of the same host and port.
 */
const SCRIPT_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const VALIDATED = { ETag: 'Validator of the body (its coding named in it); send it back in If-None-Match for a 304' };
const NOT_MODIFIED = { description: 'Not Modified: If-None-Match matched the ETag' };
/** Pages name their assets by content digest: revalidated on every load, so a new build shows at once. */
const html = (body: string, csp: string, cache = 'no-cache'): Reply =>
  servedMany({
    body,
    contentType: 'text/html; charset=utf-8',
    headers: { 'Cache-Control': cache, 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' },
  });

interface SiteDeps {
  /** The OpenAPI document; computed once all routes are mounted. */
  openapi(): Record<string, unknown>;
  /** The networks whose statistics are served; asked once, at the dashboard's first request. */
  networks(): readonly string[];
}

export function siteRoutes(deps: SiteDeps): RouteDef[] {
  let dashboard: Reply | undefined;
  let api: Reply | undefined;
  let reference: Reply | undefined;
  let docs: Reply | undefined;
  const page = (summary: string, extra?: string): RouteDef['schema'] => ({
    summary,
    ...(extra ? { description: extra } : {}),
    tags: ['meta'],
    response: {
      200: { description: 'HTML', contentType: 'text/html', headers: { ...VALIDATED, 'Content-Security-Policy': 'Scripts from this server only' } },
      304: NOT_MODIFIED,
    },
  });
  return [
    openApiRoute(deps.openapi),
    {
      method: 'GET',
      url: '/',
      auth: 'none',
      rateLimit: 'none',
      schema: page(
        "Live dashboard: each network's tip, block times, epoch, uptime; the sponsorship pool and proving queue with an operator key",
        'Updated on every block over `GET /api/v1/{network}/ws`. An operator key typed into the page is kept for the browser tab ' +
          'only (sessionStorage) and sent as `X-API-Key` to `/wallet-status`, `/health` and `/metrics`.',
      ),
      handler: () => (dashboard ??= html(dashboardPage({ networks: deps.networks(), asset: assetUrl }), SCRIPT_PAGE_CSP)),
    },
    {
      method: 'GET',
      url: '/api',
      auth: 'none',
      rateLimit: 'none',
      schema: page(
        'API reference you can try (Swagger UI over /api/openapi.json)',
        'Route index, schemas, and "Try it out" against this server: `Authorize` takes an API key (`X-API-Key` or bearer); the ' +
          'proving routes take a file as their binary body. The same document as plain HTML: `/api/reference`.',
      ),
      handler: () => (api ??= html(apiUiPage({ asset: assetUrl }), SCRIPT_PAGE_CSP)),
    },
    {
      method: 'GET',
      url: '/api/reference',
      auth: 'none',
      rateLimit: 'none',
      schema: page('The API description as one readable HTML page, without scripts'),
      handler: () => (reference ??= html(apiPage(deps.openapi()), PAGE_CSP, 'public, max-age=300')),
    },
    {
      // Nothing of the request goes into the page (no Host, no X-Forwarded-*): one page for every
      // client, so a shared cache may keep it, and a client's junk Host cannot reach another reader.
      method: 'GET',
      url: '/docs',
      auth: 'none',
      rateLimit: 'none',
      schema: page(
        'Proving and sponsorship API guide',
        'The same page for every request: its `curl` examples are written for the default address, `http://127.0.0.1:8080`.',
      ),
      handler: () => (docs ??= html(docsPage(deps.openapi()), PAGE_CSP, 'public, max-age=300')),
    },
    ...assetRoutes(),
  ];
}
