/**
 * GET /api/v1/{network}/summary — the cached route the targets compare with the baselines. Where
 * the runner started them, on two nightgate processes apart from the one hosting the devnets and
 * the DUST sync, reading its devnets: the tuned one (`nightgate`), then the shipped defaults
 * (access log on, per-IP limit on), so both configurations meet the same machine alike.
 */
import { cachedPath, measureCachedRoutes } from '../lib/cached-routes.js';
import type { Scenario } from '../lib/scenario.js';

let runs = 0;

export const scenario: Scenario = {
  id: 'cached-summary',
  title: 'cached statistics: summary (tuned: access log off; and the defaults)',
  async run(ctx) {
    const path = [cachedPath(ctx.target.network, 'summary')];
    const t = ctx.target.tuned;
    const tuned = t ? { target: 'nightgate', baseUrl: t.baseUrl, pid: t.pid } : undefined;
    const d = ctx.target.defaults;
    if (!d) return await measureCachedRoutes(ctx, 'cached-summary', path, tuned);
    // Every other run the defaults first, so what the order does falls on both configurations.
    const both = [
      () => measureCachedRoutes(ctx, 'cached-summary', path, tuned),
      // Its stats follower may still be waiting for its first block: statsReady asks the main server.
      () => measureCachedRoutes(ctx, 'cached-summary', path, { target: 'nightgate-defaults', baseUrl: d.baseUrl, pid: d.pid }),
    ];
    if (runs++ % 2 === 1) both.reverse();
    const out = [];
    for (const measure of both) out.push(...(await measure()));
    // Rows in one order whichever ran first: the tuned server's, then the defaults'.
    return out.sort((a, b) => Number(a.target === 'nightgate-defaults') - Number(b.target === 'nightgate-defaults'));
  },
};
