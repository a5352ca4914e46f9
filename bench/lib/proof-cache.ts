/**
 * The /prove and /verify cache-hit runs: the same body every time (results are cached by SHA-256
 * of the body, docs/proving.md, "Results cache"), so all but the first request are hits. A pre-flight pair of
 * requests records what the cache said (`X-Cache: MISS`, then `HIT`).
 */
import { request } from './http.js';
import type { ScenarioContext } from './scenario.js';
import type { Measurement } from './types.js';

/** A cache miss proves once (the dev backend in a worker); longer than this means it is stuck. */
const PREFLIGHT_TIMEOUT_MS = 15_000;

export function proverHeaders(ctx: ScenarioContext): Record<string, string> {
  return {
    'content-type': 'application/octet-stream',
    'x-api-key': ctx.target.apiKey ?? '',
    'x-midnight-network': ctx.target.network,
  };
}

export async function measureCacheHits(ctx: ScenarioContext, scenario: string, path: '/prove' | '/verify', body: Buffer): Promise<Measurement[]> {
  if (!ctx.target.apiKey) return [{ scenario, variant: 'hit', target: 'nightgate', skipped: 'no API key (--key)' }];
  const url = `${ctx.target.baseUrl}${path}`;
  const headers = proverHeaders(ctx);
  let first;
  let second;
  try {
    first = await request(url, { method: 'POST', headers, body, timeoutMs: PREFLIGHT_TIMEOUT_MS });
    second = await request(url, { method: 'POST', headers, body, timeoutMs: PREFLIGHT_TIMEOUT_MS });
  } catch (err) {
    return [
      { scenario, variant: 'hit', target: 'nightgate', skipped: `pre-flight POST ${path}: ${(err as Error).message} (limit ${PREFLIGHT_TIMEOUT_MS / 1000} s)` },
    ];
  }
  const cache = (r: typeof first): string => `${r.status} X-Cache ${r.headers.get('x-cache') ?? '-'}`;
  const notes = [`${body.length}-byte body; pre-flight: ${cache(first)}, then ${cache(second)}`];
  if (second.status === 200 && second.headers.get('x-cache')?.toUpperCase() !== 'HIT') notes.push('the repeated request was not reported as a cache hit');
  return [
    await ctx.measure(
      { scenario, variant: 'hit', target: 'nightgate', notes },
      {
        url,
        method: 'POST',
        headers,
        body,
        connections: ctx.settings.connections,
        durationS: ctx.settings.shortDurationS,
        ...(ctx.target.pid !== undefined ? { pid: ctx.target.pid } : {}),
      },
    ),
  ];
}
