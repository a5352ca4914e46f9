/** GET /api/v1/{network}/latest-block — the smallest cached route. */
import { cachedPath, measureCachedRoutes } from '../lib/cached-routes.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'cached-latest-block',
  title: 'cached statistics: latest-block',
  run: (ctx) => measureCachedRoutes(ctx, 'cached-latest-block', [cachedPath(ctx.target.network, 'latest-block')]),
};
