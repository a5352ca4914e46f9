/**
 * The cached statistics routes (docs/api.md, "Conventions": re-rendered to bytes once per block, not per
 * request) and the run every cached-route scenario makes: the same load at each connection level.
 */
import type { RequestSpec } from 'autocannon';
import { roundLoad, type ScenarioContext } from './scenario.js';
import type { Measurement } from './types.js';

export const CACHED_ROUTES = ['summary', 'latest-block', 'block-time', 'blocks-produced', 'uptime', 'epoch', 'd-parameter', 'night-supply'] as const;

export function cachedPath(network: string, route: (typeof CACHED_ROUTES)[number]): string {
  return `/api/v1/${network}/${route}`;
}

/**
 * Loads `paths` (in turn, one after the other on every connection) at each connection level;
 * `server` names another nightgate than the target's own (the defaults of the cached summary).
 */
export async function measureCachedRoutes(
  ctx: ScenarioContext,
  scenario: string,
  paths: readonly string[],
  server?: { target: string; baseUrl: string; pid: number },
): Promise<Measurement[]> {
  const status = await ctx.fixtures.statsReady();
  const notes = status === 503 ? ['statistics still answered 503 (no data from the indexer) after the wait'] : [];
  const requests: RequestSpec[] | undefined = paths.length > 1 ? paths.map((path) => ({ method: 'GET', path })) : undefined;
  const out: Measurement[] = [];
  for (const connections of ctx.settings.connectionLevels) {
    out.push(
      await ctx.measure(
        { scenario, variant: `c=${connections}`, target: server?.target ?? 'nightgate', ...(notes.length ? { notes: [...notes] } : {}) },
        {
          url: `${server?.baseUrl ?? ctx.target.baseUrl}${paths[0]}`,
          connections,
          durationS: ctx.settings.durationS,
          ...(requests ? { requests } : {}),
          ...roundLoad(ctx.settings),
          background: true,
          ...(server ? { pid: server.pid } : ctx.target.pid !== undefined ? { pid: ctx.target.pid } : {}),
        },
      ),
    );
  }
  return out;
}
