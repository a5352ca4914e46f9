/** The site feature's front door: the pages and the probes (/, /api, /docs, /health, /readyz). */
export { metaRoutes } from './meta.js';
export { siteRoutes } from './site.js';
