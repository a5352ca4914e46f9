/**
 * What nightgate's upstream prover backend adds over calling the proof server directly. A loopback
 * stand-in proof server (bench/stand-in-prover.ts) answers /prove after a fixed delay; a second
 * nightgate process, without devnet, proves every network through it. The same distinct bodies
 * (valid proving payloads differing in their binding input) go to the stand-in directly and then
 * through nightgate, with its proof cache off, so every request reaches the stand-in.
 * Added p50 = p50 through nightgate − p50 direct, taken per round: in a full run the pair (direct,
 * then through nightgate) is measured three times, and the target takes the median of the rounds'
 * differences (one pair moved between 1.1 and 2.7 ms from run to run on this machine, with the
 * code unchanged). A round whose runs were not mostly 200s gives no difference.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestSpec } from 'autocannon';
import { mostlyOk } from '../lib/load.js';
import { request } from '../lib/http.js';
import { baseEnv, closedPort, startNightgate, withoutDevnet } from '../lib/nightgate.js';
import { portAfter, type Started } from '../lib/processes.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { median, ROUND } from '../lib/targets.js';
import type { Measurement } from '../lib/types.js';

/** The stand-in's fixed proving time. */
const STAND_IN_DELAY_MS = 20;
/** Bodies per expected request, so no body repeats within a run. */
const BODY_MARGIN = 2;

function replay(bodies: readonly Buffer[], headers: Record<string, string>): RequestSpec[] {
  let next = 0;
  return [
    {
      method: 'POST',
      setupRequest: (req) => {
        req.headers = headers;
        req.body = bodies[next++ % bodies.length];
        return req;
      },
    },
  ];
}

export const scenario: Scenario = {
  id: 'upstream-prove',
  title: `proving: upstream backend vs the proof server directly (stand-in, ${STAND_IN_DELAY_MS} ms)`,
  localOnly: true,
  ownServer: true,
  async run(ctx: ScenarioContext) {
    const apiKey = ctx.target.apiKey ?? '';
    const payloads = await ctx.fixtures.proving();
    const proofFile = join(ctx.fixtures.tempDir, 'stand-in-proof.bin');
    writeFileSync(proofFile, payloads.proofResponse);
    const { connections, shortDurationS, warmupS } = ctx.settings;
    const perRun = Math.ceil((connections * (shortDurationS + warmupS) * 1000) / STAND_IN_DELAY_MS);
    const bodies = payloads.distinctProve(perRun * BODY_MARGIN);

    const started: Started[] = [];
    try {
      const standIn = await ctx.processes.start({
        name: 'stand-in-prover',
        module: 'bench/stand-in-prover',
        args: ['--delay-ms', String(STAND_IN_DELAY_MS), '--response-file', proofFile],
        env: {},
        readyPort: portAfter('"standIn"'),
        timeoutMs: 30_000,
      });
      started.push(standIn);
      const standInUrl = `http://127.0.0.1:${standIn.port}`;
      const gateway = await startNightgate(
        ctx.processes,
        'nightgate (upstream)',
        { ...baseEnv(apiKey), ...withoutDevnet(await closedPort(), standInUrl), NIGHTGATE_PROVER_CACHE_TTL_MS: '0' },
        { probe: false },
      );
      started.push(gateway);
      const gatewayUrl = `http://127.0.0.1:${gateway.port}`;

      const headers = { 'content-type': 'application/octet-stream', 'x-api-key': apiKey, 'x-midnight-network': ctx.target.network };
      const check = await request(`${gatewayUrl}/prove`, { method: 'POST', headers, body: payloads.distinctProve(1)[0] as Buffer, timeoutMs: 30_000 });
      const notes = [
        `${bodies.length} distinct ${payloads.prove.length}-byte bodies; proof cache TTL 0`,
        `pre-flight through nightgate: ${check.status}, ${
          check.body.equals(payloads.proofResponse) ? "the stand-in's proof" : `${check.body.length}` + ` bytes that are not the stand-in's proof`
        }`,
      ];
      const common = { connections, durationS: shortDurationS };
      const out: Measurement[] = [];
      const added: number[] = [];
      const addedP99: number[] = [];
      for (let round = 1; round <= ctx.settings.targetRounds; round++) {
        const suffix = round === 1 ? '' : ` ${ROUND} ${round}`;
        const direct = await ctx.measure(
          { scenario: 'upstream-prove', variant: `direct${suffix}`, target: 'stand-in' },
          { ...common, url: `${standInUrl}/prove`, requests: replay(bodies, { 'content-type': 'application/octet-stream' }), pid: standIn.pid },
        );
        const via = await ctx.measure(
          { scenario: 'upstream-prove', variant: `via-nightgate${suffix}`, target: 'nightgate', ...(round === 1 ? { notes } : {}) },
          { ...common, url: `${gatewayUrl}/prove`, requests: replay(bodies, headers), pid: gateway.pid },
        );
        out.push(direct, via);
        if (direct.load && via.load && mostlyOk(direct.load) && mostlyOk(via.load)) {
          added.push(via.load.latencyMs.p50 - direct.load.latencyMs.p50);
          addedP99.push(via.load.latencyMs.p99 - direct.load.latencyMs.p99);
        }
      }
      if (added.length > 0) {
        const rounds = (xs: number[]): string => xs.map((x) => x.toFixed(2)).join(', ');
        out.push({
          scenario: 'upstream-prove',
          variant: 'added',
          target: 'nightgate',
          figures: {
            addedP50Ms: median(added) ?? null,
            addedP99Ms: median(addedP99) ?? null,
            ...(added.length > 1 ? { addedP50MsRounds: rounds(added), addedP99MsRounds: rounds(addedP99) } : {}),
            standInDelayMs: STAND_IN_DELAY_MS,
          },
        });
      }
      return out;
    } finally {
      await Promise.all(started.map((s) => s.stop()));
    }
  },
};
