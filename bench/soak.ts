/**
 * Soak run (not part of CI or `npm run bench`): the real server (`src/cli serve`, embedded devnet)
 * under mixed traffic for a bounded time, its RSS, open file descriptors and threads sampled from
 * /proc/<pid> at a fixed interval, and a linear regression over the samples after warm-up that
 * says whether they stay flat.
 *
 *   npx tsx bench/soak.ts --minutes 10              (or: npm run build && node dist/bench/soak.js --minutes 10)
 *
 * Traffic, from `--concurrency` clients capped at `--rate` requests/s overall: cached statistics
 * (every network), lookups over the whole chain (lookup-cache churn), /prove with new bodies
 * (result-cache churn) and with a repeated one, /verify, /prove-and-balance with distinct
 * transfers (DUST reservations, reclaimed after 5 minutes), refused requests (401, 404, 400),
 * clients that disconnect mid-request, and WebSocket subscribers that come and go.
 *
 * Output: one line per sample, a summary, and bench/results/soak-<time>-<commit>.json.
 * Every process it starts is stopped by pid.
 */
import { performance } from 'node:perf_hooks';
import { ProcessGroup } from './lib/processes.js';
import { buildProvingPayloads } from './lib/proving-payloads.js';
import { testAccountTransfers } from './lib/test-account-transfers.js';
import { parseArgs, type SoakArgs } from './soak/args.js';
import { regress } from './soak/regression.js';
import { writeReport } from './soak/report.js';
import { takeSamples } from './soak/samples.js';
import { startSoakServer } from './soak/server.js';
import { Traffic } from './soak/traffic.js';

async function main(): Promise<number> {
  let args: SoakArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`soak: ${(err as Error).message}\n`);
    return 2;
  }
  const group = new ProcessGroup();
  const stopAll = (): void => void group.stopAll().then(() => process.exit(130));
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
  try {
    return await soak(args, group);
  } finally {
    await group.stopAll();
  }
}

async function soak(args: SoakArgs, group: ProcessGroup): Promise<number> {
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  const { server, external, key, base, health, preview, majorGcs } = await startSoakServer(group, args, log);
  const payloads = await buildProvingPayloads();
  // Distinct /prove bodies, cycled: by the time one comes round again its cached result (30 s) has expired.
  const distinct = payloads.distinctProve(2_000);
  const transfers = await testAccountTransfers(preview, Math.ceil(args.minutes * 60 * 2), 'unproven');
  log(`soak: ready (pid ${server.pid}, port ${server.port}); ${transfers.length} distinct transfers for /prove-and-balance`);

  const traffic = new Traffic(args, { base, port: server.port, key, payloads, distinct, transfers });
  const started = performance.now();
  const endAt = started + args.minutes * 60_000;
  const [samples] = await Promise.all([
    takeSamples({ pid: server.pid, devnetPid: external?.started.pid, health, traffic, started, endAt, everyS: args.sampleS, log }),
    traffic.subscribers(endAt),
    ...Array.from({ length: args.concurrency }, () => traffic.client(endAt)),
  ]);
  await traffic.close();
  const regression = regress(args, samples, majorGcs, started);

  // A graceful stop, timed: the server must still shut down cleanly after the soak.
  const stopStarted = performance.now();
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  await server.stop();
  const exitCode = await exited;
  const shutdown = { exitCode, ms: Math.round(performance.now() - stopStarted) };

  writeReport({ args, traffic, samples, regression, shutdown }, log);
  return regression.rssFlat && regression.fdsFlat && exitCode === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`soak: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
