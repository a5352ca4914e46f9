/**
 * What the shared stores (`state.redisUrl`) cost a keyed route: two nightgate processes
 * behind one external devnet, identical but for NIGHTGATE_REDIS_URL (a local redis-server, no
 * persistence), each with its own DUST wallet. GET /wallet-status with an API key is loaded with
 * autocannon in interleaved rounds (the order alternates each round, so drift on a shared machine
 * falls on both alike): with Redis every request's per-key rate limit is one Lua script in Redis,
 * without it a Map lookup. Reports each round's requests/s, p50/p99 latency and main-thread CPU
 * per request, and the ratios of the medians, Redis over memory.
 *
 *   node --import tsx bench/shared-stores-cost.ts [--rounds 5] [--seconds 5] [--connections 20]
 *
 * Needs redis-server (Debian's package; NIGHTGATE_BENCH_REDIS_SERVER to point elsewhere).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { pollUntil } from './lib/http.js';
import { baseEnv, benchKey, closedPort, sponsorSeeds, startNightgate } from './lib/nightgate.js';
import { behindExternalDevnet, startExternalDevnet } from './lib/external-devnet.js';
import { ProcessGroup, cpuMicros } from './lib/processes.js';
import { arg, medianOf as median } from './lib/script.js';

/** A redis-server on a free loopback port, no persistence; resolves once it accepts connections. */
async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await closedPort();
  const dir = mkdtempSync(join(tmpdir(), 'nightgate-bench-redis-'));
  const child = spawn(
    process.env['NIGHTGATE_BENCH_REDIS_SERVER'] ?? 'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(child.pid!, 'SIGTERM');
      await gone;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Round {
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerReq: number;
  non2xx: number;
}

async function load(url: string, key: string, pid: number, connections: number, seconds: number): Promise<Round> {
  const c0 = cpuMicros(pid) ?? NaN;
  const r = await autocannon({ url, connections, duration: seconds, headers: { 'x-api-key': key } });
  const done = r.requests.total;
  return { rps: done / seconds, p50: r.latency.p50, p99: r.latency.p99, cpuUsPerReq: ((cpuMicros(pid) ?? NaN) - c0) / Math.max(1, done), non2xx: r.non2xx };
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '5'));
  const seconds = Number(arg('seconds', '5'));
  const connections = Number(arg('connections', '20'));
  const group = new ProcessGroup();
  process.once('exit', () => group.killAllNow());
  const redis = await startRedis();
  try {
    const seeds = sponsorSeeds(2);
    const devnet = await startExternalDevnet(group, { sponsorSeeds: seeds });
    const key = benchKey();
    const common = { ...baseEnv(key), NIGHTGATE_DUST_TARGET_UTXOS: '0' };
    const memory = await startNightgate(group, 'memory', { ...common, ...behindExternalDevnet(devnet, 'http://127.0.0.1:9', [seeds[0]!]) }, { probe: false });
    const shared = await startNightgate(
      group,
      'redis',
      { ...common, ...behindExternalDevnet(devnet, 'http://127.0.0.1:9', [seeds[1]!]), NIGHTGATE_REDIS_URL: redis.url },
      { probe: false },
    );
    const path = '/wallet-status';
    for (const s of [memory, shared]) {
      const ok = await pollUntil(
        async () => ((await fetch(`http://127.0.0.1:${s.port}${path}`, { headers: { 'x-api-key': key } })).status === 200 ? true : undefined),
        { timeoutMs: 180_000, intervalMs: 500 },
      );
      if (!ok) throw new Error(`${path} never answered 200 on port ${s.port}`);
    }
    console.log(`autocannon; ${rounds} rounds of ${seconds} s, ${connections} connections, GET ${path} with an API key`);
    const runs: Record<'memory' | 'redis', Round[]> = { memory: [], redis: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['memory', 'redis'] as const) : (['redis', 'memory'] as const);
      for (const which of order) {
        const s = which === 'memory' ? memory : shared;
        runs[which].push(await load(`http://127.0.0.1:${s.port}${path}`, key, s.pid, connections, seconds));
      }
      const m = runs.memory.at(-1)!;
      const x = runs.redis.at(-1)!;
      console.log(
        `round ${r + 1}: memory ${Math.round(m.rps)} req/s p50 ${m.p50}` +
          ` ms p99 ${m.p99}` +
          ` ms ${m.cpuUsPerReq.toFixed(1)}` +
          ` us/req; redis ${Math.round(x.rps)}` +
          ` req/s p50 ${x.p50}` +
          ` ms p99 ${x.p99}` +
          ` ms ${x.cpuUsPerReq.toFixed(1)}` +
          ` us/req${m.non2xx + x.non2xx > 0 ? ` (non-2xx: ${m.non2xx}` + ` / ${x.non2xx}` + `)` : ''}`,
      );
    }
    const med = (w: 'memory' | 'redis', f: keyof Round): number => median(runs[w].map((x) => x[f]));
    console.log(
      `median: memory ${Math.round(med('memory', 'rps'))} req/s, redis ${Math.round(med('redis', 'rps'))}` +
        ` req/s, ratio redis/memory ${(med('redis', 'rps') / med('memory', 'rps')).toFixed(3)}`,
    );
    console.log(`median p50 / p99: memory ${med('memory', 'p50')} / ${med('memory', 'p99')} ms, redis ${med('redis', 'p50')} / ${med('redis', 'p99')} ms`);
    console.log(
      `median main-thread CPU per request: memory ${med('memory', 'cpuUsPerReq').toFixed(1)}` +
        ` us, redis ${med('redis', 'cpuUsPerReq').toFixed(1)}` +
        ` us, ratio ${(med('redis', 'cpuUsPerReq') / med('memory', 'cpuUsPerReq')).toFixed(3)}`,
    );
  } finally {
    await group.stopAll();
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
