/**
 * The baselines the cached routes are judged against, measured in the same run with the same load
 * and the same response bytes (nightgate's own summary body and headers): a raw uWS handler
 * returning a fixed buffer (the ceiling on this machine), and the summary route written plainly on
 * Fastify and on node:http. Each is its own process, like the server under test.
 * The local nightgate process keeps running, idle, while they are measured: its devnets produce
 * blocks and its DUST sync follows them exactly as while nightgate itself is loaded, so every
 * server meets the same background on these two cores (each run reports it as `backgroundCorePct`).
 * Before 05c406e nightgate was paused (SIGSTOP) here instead, which gave the baselines a quieter
 * machine than the server they were compared with: ≈ 20 % of a core less background.
 */
import { roundLoad, type Scenario } from '../lib/scenario.js';
import { portAfter, type Started } from '../lib/processes.js';
import type { Measurement } from '../lib/types.js';

const BASELINES: ReadonlyArray<{ target: string; module: string; args?: string[]; wrkOnly?: true }> = [
  { target: 'raw-uws', module: 'bench/baselines/raw-uws' },
  // Only where the generator does not cap the uWS servers (the wrk rounds): under autocannon it
  // would run at the same capped rate as raw uWS and show nothing.
  { target: 'raw-uws-address', module: 'bench/baselines/raw-uws', args: ['--read-address'], wrkOnly: true },
  { target: 'fastify', module: 'bench/baselines/fastify-summary' },
  { target: 'node-http', module: 'bench/baselines/node-http-summary' },
];

const START_TIMEOUT_MS = 30_000;

export const scenario: Scenario = {
  id: 'baselines',
  title: 'baselines: raw uWS (and, in the wrk rounds, raw uWS reading the client address), Fastify, node:http serving the same summary',
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
    try {
      for (const b of BASELINES.filter((x) => !x.wrkOnly || ctx.settings.generator === 'wrk')) {
        const server = await ctx.processes.start({
          name: b.target,
          module: b.module,
          args: ['--fixture', file, ...(b.args ?? [])],
          env: {},
          readyPort: portAfter('"baseline"'),
          timeoutMs: START_TIMEOUT_MS,
        });
        started.push({ target: b.target, server });
      }
      if (ctx.target.pid !== undefined) notes.push('nightgate idle alongside, its devnets producing blocks, as during its own runs');
      const path = `/api/v1/${fixture.network}/summary`;
      for (const connections of ctx.settings.connectionLevels) {
        for (const { target, server } of started) {
          out.push(
            await ctx.measure(
              { scenario: 'baselines', variant: `c=${connections}`, target, notes: [...notes] },
              {
                url: `http://127.0.0.1:${server.port}${path}`,
                connections,
                durationS: ctx.settings.durationS,
                pid: server.pid,
                ...roundLoad(ctx.settings),
                background: true,
              },
            ),
          );
        }
      }
    } finally {
      await Promise.all(started.map(({ server }) => server.stop()));
    }
    return out;
  },
};
