/** The health feature's front door: the probes (/health, /livez, /readyz) and the API document. */
export { metaRoutes } from './probes.js';
