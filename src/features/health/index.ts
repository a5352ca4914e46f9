/** The health feature's front door: the probes (/health, /livez, /readyz). */
export { probeRoutes } from './probes.js';
