/**
 * The baselines the cached routes are judged against, measured in the same run with the same load
 * and the same response bytes (nightgate's own summary body and headers): a raw uWS handler
 * returning a fixed buffer (the ceiling on this machine), and the summary route written plainly on
 * Fastify and on node:http. Each is its own process, like the server under test.
 * While they are measured the local nightgate process is paused (SIGSTOP): on a 2-core machine its
 * devnets' block production would otherwise take CPU from a baseline at random moments. nightgate
 * itself is measured with its devnets running, as it is deployed by default.
 */
import { sleep } from '../lib/http.js';
import type { Scenario } from '../lib/scenario.js';
import { portAfter, type Started } from '../lib/processes.js';
import type { Measurement } from '../lib/types.js';

const BASELINES = [
  { target: 'raw-uws', module: 'bench/baselines/raw-uws' },
  { target: 'fastify', module: 'bench/baselines/fastify-summary' },
  { target: 'node-http', module: 'bench/baselines/node-http-summary' },
] as const;

const START_TIMEOUT_MS = 30_000;
/** After resuming nightgate: let the timers that came due while it was paused run first. */
const SETTLE_MS = 1000;

export const scenario: Scenario = {
  id: 'baselines',
  title: 'baselines: raw uWS, Fastify, node:http serving the same summary',
  localOnly: true,
  async run(ctx) {
    const { fixture, file } = await ctx.fixtures.summary();
    const bytes = Buffer.byteLength(JSON.stringify(fixture.body));
    const notes = [
      fixture.source === 'built-in'
        ? `nightgate's summary answered non-200: serving the built-in ${bytes}-byte summary of the documented shape`
        : `serving nightgate's ${bytes}-byte summary with its headers (${Object.keys(fixture.headers).join(', ')})`,
    ];
    const started: Array<{ target: string; server: Started }> = [];
    const out: Measurement[] = [];
    const paused = ctx.target.pid;
    try {
      for (const b of BASELINES) {
        const server = await ctx.processes.start({
          name: b.target,
          module: b.module,
          args: ['--fixture', file],
          env: {},
          readyPort: portAfter('"baseline"'),
          timeoutMs: START_TIMEOUT_MS,
        });
        started.push({ target: b.target, server });
      }
      if (paused !== undefined) {
        ctx.processes.pause(paused);
        notes.push('nightgate paused (SIGSTOP) meanwhile');
      }
      const path = `/api/v1/${fixture.network}/summary`;
      for (const connections of ctx.settings.connectionLevels) {
        for (const { target, server } of started) {
          out.push(
            await ctx.measure(
              { scenario: 'baselines', variant: `c=${connections}`, target, notes: [...notes] },
              { url: `http://127.0.0.1:${server.port}${path}`, connections, durationS: ctx.settings.durationS, pid: server.pid },
            ),
          );
        }
      }
    } finally {
      if (paused !== undefined) ctx.processes.resume(paused);
      await Promise.all(started.map(({ server }) => server.stop()));
    }
    if (paused !== undefined) await sleep(SETTLE_MS);
    return out;
  },
};
