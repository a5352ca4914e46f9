/**
 * The HTML shells of `/` and `/api`. They hold no script of their own (the Content-Security-Policy
 * allows none inline): the dashboard is drawn by static/dashboard.js (its operator panel by
 * static/operator.js) with the parts the scripts before them define (DASHBOARD_SCRIPTS), Swagger
 * UI is started by static/api.js. Without scripts each says where the same data is as JSON or
 * plain HTML.
 */
import type { AssetName } from './assets.js';

/**
 * The dashboard's classic scripts, in the order they run: each defines its part on
 * `window.nightgate` for the ones after it (the helpers first, the chart and the operator's
 * tables before the scripts that draw with them).
 */
const DASHBOARD_SCRIPTS: AssetName[] = ['uplot.js', 'dashboard-helpers.js', 'dashboard-chart.js', 'dashboard.js', 'operator-tables.js', 'operator.js'];

interface Shell {
  asset(name: AssetName): string;
}

const head = (title: string, asset: Shell['asset'], styles: AssetName[]): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
  `content="width=device-width,initial-scale=1"><title>${title}` +
  `</title><link rel="icon" href="${asset('favicon.svg')}` +
  `">${styles.map((s) => `<link rel="stylesheet" href="${asset(s)}` + `">`).join('')}` +
  `</head>`;

const NAV =
  '<nav><a href="/" data-nav="dashboard">Dashboard</a><a href="/api" data-nav="api">API</a><a href="/docs">Proving ' +
  'guide</a><a href="/api/openapi.json">openapi.json</a></nav>';

export function dashboardPage(opts: Shell & { networks: readonly string[] }): string {
  const { asset } = opts;
  return (
    `${head('nightgate — dashboard', asset, ['uplot.css', 'dashboard.css'])}<body data-page="dashboard" data-networks="${opts.networks.join(',')}">
<header class="bar"><div class="brand"><img src="${asset('favicon.svg')}" alt="" width="22" height="22"><b>nightgate</b><span class="muted">Midnight ` +
    `gateway</span></div>${NAV}</header>
<main>
<noscript><p class="note">The dashboard needs scripts (from this server only). The same figures as JSON: ` +
    `<a href="/api/v1/preview/summary">/api/v1/{network}/summary</a>; the API: <a href="/api/reference">/api/reference</a>.</p></noscript>
<section id="networks" class="networks" aria-label="Networks"></section>
<section id="operator" class="operator" aria-label="Operator">
<div class="op-head"><h2>Operator</h2>
<form id="key-form" class="key-form" autocomplete="off"><label for="key">API ` +
    `key</label><input id="key" name="key" type="password" placeholder="operator key" autocomplete="off" spellcheck="false">` +
    `<button type="submit" id="key-save">Show</button><button type="button" id="key-forget" hidden>Forget</button></form></div>
<p class="muted small" id="op-note">The key stays in this tab (sessionStorage) and is sent only to this server, as <code>X-API-Key</code>, to ` +
    `<code>/wallet-status</code>, <code>/usage</code>, <code>/health</code> and <code>/metrics</code>.</p>
<div id="op-body" class="op-body"></div>
</section>
</main>
<footer class="muted small" id="foot"></footer>
${DASHBOARD_SCRIPTS.map((s) => `<script src="${asset(s)}"></script>`).join('')}
</body></html>`
  );
}

export function apiUiPage(opts: Shell): string {
  const { asset } = opts;
  return (
    `${head('nightgate — API', asset, ['swagger-ui.css', 'api.css'])}<body data-page="api">
<header class="bar"><div class="brand"><img src="${asset('favicon.svg')}" alt="" width="22" height="22"><b>nightgate</b><span class="muted">API ` +
    `reference</span></div>${NAV}</header>
<noscript><p class="note">This page needs scripts (from this server only). Without them: <a href="/api/reference">the API as plain HTML</a>, ` +
    `<a href="/api/openapi.json">the OpenAPI document</a>.</p></noscript>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script><script src="${asset('api.js')}"></script>
</body></html>`
  );
}
