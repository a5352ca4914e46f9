/** The site feature's front door: the pages (/, /api, /api/reference, /docs) and /api/openapi.json. */
export { siteRoutes } from './site.js';
