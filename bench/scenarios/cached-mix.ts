/**
 * Every cached statistics route in turn on each connection (summary, latest-block, block-time,
 * blocks-produced, uptime, epoch, d-parameter, night-supply): what a dashboard's polling looks like.
 */
import { CACHED_ROUTES, cachedPath, measureCachedRoutes } from '../lib/cached-routes.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'cached-mix',
  title: 'cached statistics: mix of all cached routes',
  run: (ctx) =>
    measureCachedRoutes(
      ctx,
      'cached-mix',
      CACHED_ROUTES.map((r) => cachedPath(ctx.target.network, r)),
    ),
};
