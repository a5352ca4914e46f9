/**
 * The lookup scenarios' two runs. Cold: every request a different key, walked in turn across all
 * known keys of all networks, so the lookup cache (and single-flight) cannot answer it. Warm: the
 * same key every time, answered from the cache after the first request.
 */
import type { NetworkKeys } from './lookup-keys.js';
import type { ScenarioContext } from './scenario.js';
import type { Measurement } from './types.js';

/**
 * Lookup cache entries per network on the local server (NIGHTGATE_STATS_CACHE_SIZE, set by the
 * runner). A young devnet has only tens of blocks per network, so the default (10 000) would hold
 * every key and no walk could be cold; with a few entries, walking more keys than that misses.
 */
export const LOCAL_LOOKUP_CACHE_SIZE = 4;

export interface LookupSpec {
  scenario: string;
  route: 'block' | 'transaction' | 'search';
  param: 'height' | 'hash' | 'q';
  /** Query values of one network's keys. */
  values(keys: NetworkKeys): string[];
}

/** Paths of all networks interleaved: consecutive requests differ in network and key. */
function interleave(lists: string[][]): string[] {
  const out: string[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of lists) if (i < l.length) out.push(l[i] as string);
  return out;
}

export async function measureLookup(ctx: ScenarioContext, spec: LookupSpec): Promise<Measurement[]> {
  const keys = await ctx.fixtures.lookupKeys();
  const pathsOf = (n: NetworkKeys): string[] => spec.values(n).map((v) => `/api/v1/${n.network}/${spec.route}?${spec.param}=${encodeURIComponent(v)}`);
  const cold = interleave(keys.networks.map(pathsOf));
  const own = keys.networks.find((n) => n.network === ctx.target.network) ?? keys.networks[0];
  const ownPaths = own ? pathsOf(own) : [];
  const warm = ownPaths[Math.floor(ownPaths.length / 2)];
  if (cold.length === 0 || warm === undefined) {
    return [{ scenario: spec.scenario, variant: 'cold', target: 'nightgate', skipped: `no ${spec.param} values known (keys from ${keys.source})` }];
  }
  const notes = [`${cold.length} distinct keys from ${keys.source}`];
  if (keys.source === 'synthetic') notes.push('synthetic keys: no chain data reachable, the answers are 404s or placeholders');
  // Requests in flight reorder the walk a little: a key comes back while still cached only when a
  // network has barely more keys than its cache holds.
  const fewest = Math.min(...keys.networks.map((n) => spec.values(n).length));
  if (ctx.target.kind === 'local' && fewest <= 2 * LOCAL_LOOKUP_CACHE_SIZE)
    notes.push(`a network has only ${fewest} keys for a ${LOCAL_LOOKUP_CACHE_SIZE}-entry lookup cache: the cold run is partly warm`);
  if (ctx.target.kind === 'remote') notes.push("the deployment's cache size is unknown: cold runs turn warm once every key is cached");

  let next = 0;
  const common = {
    connections: ctx.settings.connections,
    durationS: ctx.settings.shortDurationS,
    ...(ctx.target.pid !== undefined ? { pid: ctx.target.pid } : {}),
  };
  const coldRun = await ctx.measure(
    { scenario: spec.scenario, variant: 'cold', target: 'nightgate', notes },
    {
      ...common,
      url: `${ctx.target.baseUrl}${cold[0]}`,
      warmup: false,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => {
            req.path = cold[next++ % cold.length];
            return req;
          },
        },
      ],
    },
  );
  const warmRun = await ctx.measure(
    { scenario: spec.scenario, variant: 'warm', target: 'nightgate', notes: [`key ${warm}`] },
    { ...common, url: `${ctx.target.baseUrl}${warm}` },
  );
  return [coldRun, warmRun];
}
