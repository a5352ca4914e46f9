/** GET /api/v1/{network}/summary — the cached route the targets compare with the baselines. */
import { cachedPath, measureCachedRoutes } from '../lib/cached-routes.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'cached-summary',
  title: 'cached statistics: summary',
  run: (ctx) => measureCachedRoutes(ctx, 'cached-summary', [cachedPath(ctx.target.network, 'summary')]),
};
