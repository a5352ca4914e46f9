/**
 * GET /api/v1/{network}/summary — the cached route the targets compare with the baselines. Where
 * the runner started one, the same route on a second nightgate with the shipped defaults (access
 * log on, per-IP limit on) right after it, so both configurations meet the same machine.
 */
import { cachedPath, measureCachedRoutes } from '../lib/cached-routes.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'cached-summary',
  title: 'cached statistics: summary (tuned: access log off; and the defaults)',
  async run(ctx) {
    const path = [cachedPath(ctx.target.network, 'summary')];
    const tuned = await measureCachedRoutes(ctx, 'cached-summary', path);
    const d = ctx.target.defaults;
    if (!d) return tuned;
    // Its stats follower may still be waiting for its first block: statsReady asks the main server.
    return [...tuned, ...(await measureCachedRoutes(ctx, 'cached-summary', path, { target: 'nightgate-defaults', baseUrl: d.baseUrl, pid: d.pid }))];
  },
};
