/** The site feature's front door: the pages (/, /api, /api/reference, /docs). */
export { siteRoutes } from './site.js';
