/**
 * Sustained sponsorship: nightgate used the way a wallet backend uses it, many users at once, each
 * transfer submitted and waited for on chain, for a fixed time.
 *
 *   npm run bench:sustained -- --clients 150 --duration 600 --network preview
 *   (from source: npx tsx bench/sustained.ts --clients 10 --duration 60)
 *
 * Phases, each bounded: start nightgate (local) or read the deployment's /health (--url); wait for
 * the DUST wallet to sync and for the first block; fund every client (faucet, or --seeds); the
 * measured window (--duration), clients looping; the drain (--drain) for transactions still on
 * their way. Output: progress lines, bench/results/sustained-<time>-<commit>.json and its ledger
 * era's subsection of RESULTS.md (printed, and written beside the JSON as .md; a local run of at
 * least RECORDED_MIN_S also replaces that subsection in bench/RESULTS.md). `--markdown FILE`
 * renders a result file again, its summary recomputed from its raw records. Every process it
 * starts is stopped by pid at the end, on error and on SIGINT/SIGTERM.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DEFAULT_ERA, type Era } from '../src/infra/ledger/index.js';
import { mintKey, sha256Hex } from '../src/core/guards/auth.js';
import { ChainWatch } from './lib/chain-watch.js';
import { DevnetDrops } from './lib/devnet-drops.js';
import { fundFromFaucet, prefunded, type Funded } from './lib/funding.js';
import { pollUntil, sleep } from './lib/http.js';
import { commitInfo, machineInfo } from './lib/machine.js';
import { startNightgate } from './lib/nightgate.js';
import { freshWallet, ledger, walletFromSeed, type NightWallet } from './lib/night-transfer.js';
import { BENCH_DIR, ROOT, RESULTS_DIR } from './lib/paths.js';
import { PoolPoller, readPool } from './lib/pool-poller.js';
import { ProcessGroup, eachLine } from './lib/processes.js';
import { ServerWarnings } from './lib/server-warnings.js';
import { writeSustainedSection } from './lib/results-section.js';
import { SustainedArgsError, SUSTAINED_USAGE, parseSustainedArgs, type SustainedArgs } from './lib/sustained-args.js';
import { runClient, type Client, type RunEnv } from './lib/sustained-client.js';
import {
  RECORDED_MIN_S,
  SUSTAINED_INTRO,
  ledgerOf,
  renderRunsTable,
  renderSustainedSection,
  resummarized,
  type SustainedResult,
} from './lib/sustained-report.js';
import { summarize, type SponsorCall, type TxRecord } from './lib/sustained-stats.js';
import { devnetOf, localEnv, type Endpoints } from './lib/sustained-target.js';

const DEFAULT_BLOCK_MS = 6000;
const SYNC_TIMEOUT_MS = 180_000;
const FIRST_BLOCK_TIMEOUT_MS = 60_000;
/** The unbatched faucet pays two addresses per block. */
const FAUCET_PER_BLOCK_TODAY = 2;
const FUNDING_BASE_S = 60;
const SETTLE_EXTRA_MS = 2000;
const READY_TIMEOUT_MS = 600_000;

const log = (line: string): void => void process.stdout.write(`${line}\n`);

function readSeeds(file: string, count: number): string[] {
  const seeds = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const bad = seeds.find((s) => !/^[0-9a-fA-F]{64}$/.test(s));
  if (bad !== undefined) throw new SustainedArgsError(`--seeds: '${bad.slice(0, 16)}…' is not 64 hex digits`);
  if (seeds.length < count) throw new SustainedArgsError(`--seeds: ${seeds.length} seeds for ${count} clients`);
  return seeds.slice(0, count);
}

function resultPath(startedAt: string, commit: string, dirty: boolean): string {
  const stamp = startedAt.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  return join(RESULTS_DIR, `sustained-${stamp}-${commit}${dirty ? '-dirty' : ''}.json`);
}

/** The recorded runs (local, at least RECORDED_MIN_S) of one commit and era in bench/results/, oldest first. */
function recordedRuns(commit: string, dirty: boolean, era: Era): Array<{ file: string; result: SustainedResult }> {
  const suffix = `-${commit}${dirty ? '-dirty' : ''}.json`;
  return readdirSync(RESULTS_DIR)
    .filter((f) => f.startsWith('sustained-') && f.endsWith(suffix))
    .sort()
    .map((f) => ({ file: join(RESULTS_DIR, f), result: resummarized(JSON.parse(readFileSync(join(RESULTS_DIR, f), 'utf8')) as SustainedResult) }))
    .filter((r) => r.result.run.target === 'local' && r.result.run.durationS >= RECORDED_MIN_S && ledgerOf(r.result.run) === era);
}

async function main(): Promise<number> {
  let args: SustainedArgs;
  try {
    args = parseSustainedArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof SustainedArgsError) {
      process.stderr.write(`bench:sustained: ${err.message}\n\n${SUSTAINED_USAGE}\n`);
      return 2;
    }
    throw err;
  }
  if (args.help) {
    log(SUSTAINED_USAGE);
    return 0;
  }
  if (args.markdown) {
    process.stdout.write(renderSustainedSection(resummarized(JSON.parse(readFileSync(args.markdown, 'utf8')) as SustainedResult)));
    return 0;
  }
  const seeds = args.seedsFile ? readSeeds(args.seedsFile, args.clients) : undefined;

  const group = new ProcessGroup();
  let tmp: string | undefined;
  let watch: ChainWatch | undefined;
  const cleanup = (): void => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    tmp = undefined;
  };
  const interrupt = (signal: NodeJS.Signals): void => {
    log(`\n! ${signal}: stopping every process the bench started`);
    cleanup();
    void group.stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('exit', () => {
    group.killAllNow();
    cleanup();
  });

  const startedAt = new Date().toISOString();
  const { commit, dirty } = commitInfo();
  const machine = machineInfo();
  const notes: string[] = [];
  log(
    `nightgate sustained sponsorship · ${args.clients} clients · ${args.durationS}` +
      ` s · ${args.network}` +
      ` · commit ${commit}` +
      `${dirty ? '+' : ''}` +
      ` · ${machine.cpuModel}` +
      ` ×${machine.cores}`,
  );
  try {
    const drops = new DevnetDrops();
    const serverWarnings = new ServerWarnings();
    let keys: string[];
    let ep: Endpoints;
    if (args.url) {
      keys = Array.from({ length: args.clients }, (_, i) => args.keys[i % args.keys.length] as string);
      const found = await devnetOf(args.url, keys[0] as string, args.network).catch(() => ({}) as Partial<Endpoints>);
      const graphqlWsUrl = args.indexerWs ?? found.graphqlWsUrl;
      const submitUrl = args.submitUrl ?? found.submitUrl;
      if (!graphqlWsUrl || !submitUrl) throw new Error(`${args.url}/health lists no embedded devnet for ${args.network}: give --indexer-ws and --submit-url`);
      const faucetUrl = args.faucetUrl ?? found.faucetUrl;
      ep = {
        baseUrl: args.url,
        networkId: args.networkId ?? found.networkId ?? 'undeployed',
        graphqlWsUrl,
        submitUrl,
        ...(faucetUrl ? { faucetUrl } : {}),
        blockTimeMs: null,
        era: found.era ?? DEFAULT_ERA,
      };
      if (!seeds && !ep.faucetUrl) throw new Error('no faucet: give --faucet-url, or --seeds with pre-funded NIGHT seeds');
      log(`target: ${args.url} (deployment); indexer ${graphqlWsUrl}; submit ${submitUrl}`);
    } else {
      keys = Array.from({ length: args.clients }, () => mintKey());
      tmp = mkdtempSync(join(tmpdir(), 'nightgate-sustained-'));
      const configFile = join(tmp, 'config.json');
      writeFileSync(configFile, JSON.stringify({ auth: { keys: keys.map((k, i) => ({ id: `bench-client-${i}`, sha256: sha256Hex(k) })) } }), { mode: 0o600 });
      log('▶ starting nightgate (src/cli serve) …');
      const t0 = performance.now();
      const server = await startNightgate(group, 'nightgate', await localEnv(args, configFile), { probe: false });
      for (const stream of [server.child.stdout, server.child.stderr]) {
        if (stream)
          eachLine(stream, (line) => {
            drops.line(line);
            serverWarnings.line(line);
          });
      }
      const baseUrl = `http://127.0.0.1:${server.port}`;
      const found = await devnetOf(baseUrl, keys[0] as string, args.network);
      if (!found.graphqlWsUrl || !found.submitUrl || !found.faucetUrl) throw new Error(`nightgate's /health lists no embedded devnet for ${args.network}`);
      ep = {
        baseUrl,
        networkId: found.networkId ?? 'undeployed',
        graphqlWsUrl: found.graphqlWsUrl,
        submitUrl: found.submitUrl,
        faucetUrl: found.faucetUrl,
        blockTimeMs: args.blockTimeMs ?? DEFAULT_BLOCK_MS,
        era: found.era ?? DEFAULT_ERA,
      };
      log(
        `✓ nightgate pid ${server.pid} on port ${server.port} in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${args.clients} API keys in ${configFile}`,
      );
    }

    const L = await ledger(ep.era);
    log(`▶ waiting for the ${args.network} DUST wallet (ledger ${ep.era}) to sync and for a block …`);
    watch = new ChainWatch(ep.graphqlWsUrl, L.nativeToken().raw);
    watch.start();
    const synced = await pollUntil(
      async () => ((await readPool(ep.baseUrl, keys[0] as string, args.network))?.fields['sync.phase'] === 'synced' ? true : undefined),
      { timeoutMs: SYNC_TIMEOUT_MS, intervalMs: 1000 },
    );
    if (!synced) notes.push(`the DUST wallet did not report sync.phase "synced" within ${SYNC_TIMEOUT_MS / 1000} s; the run went on`);
    if (!(await watch.firstBlock(FIRST_BLOCK_TIMEOUT_MS)))
      throw new Error(`no block over ${ep.graphqlWsUrl} within ${FIRST_BLOCK_TIMEOUT_MS / 1000} s${watch.lastError ? `: ${watch.lastError}` : ''}`);
    log(`✓ synced: ${synced ? 'yes' : 'no'}; height ${watch.height}`);

    const wallets: NightWallet[] = seeds
      ? seeds.map((s) => walletFromSeed(L, s, ep.networkId))
      : Array.from({ length: args.clients }, () => freshWallet(L, ep.networkId));
    const fundT0 = Date.now();
    let funded: Funded;
    if (seeds) {
      log(`▶ reading the NIGHT of ${seeds.length} pre-funded seeds …`);
      funded = await prefunded(ep.graphqlWsUrl, L.nativeToken().raw, wallets);
    } else {
      const blockS = (ep.blockTimeMs ?? DEFAULT_BLOCK_MS) / 1000;
      const timeoutS = args.fundingTimeoutS ?? FUNDING_BASE_S + Math.ceil(args.clients / FAUCET_PER_BLOCK_TODAY) * blockS;
      log(`▶ funding ${args.clients} addresses from the faucet (${args.amountStar} STAR each) …`);
      funded = await fundFromFaucet(ep.faucetUrl as string, watch, wallets, args.amountStar, timeoutS * 1000, log);
    }
    const fundingS = (Date.now() - fundT0) / 1000;
    for (const f of funded.failures.slice(0, 5)) notes.push(`funding: ${f}`);
    if (funded.failures.length > 5) notes.push(`funding: ${funded.failures.length - 5} more failures`);
    const clients: Client[] = [];
    wallets.forEach((wallet, index) => {
      const utxo = funded.utxos.get(index);
      if (utxo) clients.push({ index, apiKey: keys[index] as string, wallet, utxo });
    });
    log(`✓ ${clients.length}/${args.clients} clients funded in ${fundingS.toFixed(1)} s`);
    if (clients.length === 0) throw new Error(`no client was funded: ${funded.failures[0] ?? 'unknown reason'}`);
    if (clients.length < args.clients) notes.push(`${args.clients - clients.length} clients were not funded in time and did not run`);
    if (!args.url) {
      // What /readyz waits for (the other networks' closed indexers aside): the pool no longer filling.
      log('▶ waiting for the DUST pool to grow to its target before traffic (dust.growAtStart) …');
      const readyT0 = Date.now();
      const ready = await pollUntil(
        async () => ((await readPool(ep.baseUrl, keys[0] as string, args.network))?.fields['pool.filling'] === 'false' ? true : undefined),
        { timeoutMs: READY_TIMEOUT_MS, intervalMs: 2000 },
      );
      const grown = await readPool(ep.baseUrl, keys[0] as string, args.network);
      const at = `${grown?.fields['pool.live'] ?? '?'} of ${grown?.fields['pool.target'] ?? '?'} DUST UTXOs`;
      if (!ready) notes.push(`the pool was still filling after ${READY_TIMEOUT_MS / 1000} s (${at}); the run went on`);
      else notes.push(`the pool grew to ${at} before the measured window (dust.growAtStart, ${Math.round((Date.now() - readyT0) / 1000)} s after funding)`);
      log(`✓ ready: ${ready ? 'yes' : 'no'}; ${at}`);
    }

    const calls: SponsorCall[] = [];
    const txs: TxRecord[] = [];
    const startMs = Date.now();
    const env: RunEnv = {
      L,
      baseUrl: ep.baseUrl,
      network: args.network,
      networkId: ep.networkId,
      submitUrl: ep.submitUrl,
      watch,
      ...(args.url ? {} : { drops }),
      sink: freshWallet(L, ep.networkId).address,
      inclusionGraceMs: ep.blockTimeMs ?? DEFAULT_BLOCK_MS,
      endAt: startMs + args.durationS * 1000,
      drainUntil: startMs + (args.durationS + args.drainS) * 1000,
      calls,
      txs,
      stopped: [],
    };
    const pool = new PoolPoller(ep.baseUrl, keys[0] as string, args.network, args.poolIntervalS * 1000);
    pool.start();
    log(`▶ measuring for ${args.durationS} s (then at most ${args.drainS} s of drain) …`);
    const progress = setInterval(() => {
      const included = txs.filter((t) => t.outcome === 'included').length;
      const refused = calls.filter((c) => c.status !== 200).length;
      log(
        `  ${Math.round((Date.now() - startMs) / 1000)} s: ${txs.length}` +
          ` sponsored, ${included}` +
          ` included, ${refused}` +
          ` refused answers, height ${watch?.height ?? '?'}`,
      );
    }, 10_000);
    await Promise.all(clients.map((c) => runClient(env, c)));
    clearInterval(progress);
    pool.stop();
    // One block more, so the server's own sync has seen the last inclusions before the pool's final reading.
    await sleep((ep.blockTimeMs ?? DEFAULT_BLOCK_MS) + SETTLE_EXTRA_MS);
    const finalPool = await readPool(ep.baseUrl, keys[0] as string, args.network);
    const endMs = env.endAt;
    for (const s of env.stopped.slice(0, 5)) notes.push(`client ${s.client} stopped: ${s.reason}`);
    if (!args.url)
      notes.push(
        `local run: the server started with its defaults (pool, per-key caps, fee margin${args.maxFee === undefined ? ', fee cap' : ''}` +
          `) and one API key per client from a config file; only the benched network ran an embedded devnet unless --all-devnets`,
      );
    if (args.maxFee !== undefined)
      notes.push(
        `--max-fee: NIGHTGATE_DUST_MAX_FEE=${args.maxFee} SPECK and a budget that does not bind, ` +
          `instead of the default 5 DUST cap and 500 DUST an hour per key`,
      );

    const blocks = watch.blocks.filter((b) => b.timestamp >= startMs && b.timestamp < env.drainUntil);
    const result: SustainedResult = {
      kind: 'sustained-sponsorship',
      run: {
        startedAt,
        measuredFrom: new Date(startMs).toISOString(),
        commit,
        dirty,
        machine,
        command: `npm run bench:sustained -- ${process.argv
          .slice(2)
          .map((a) => (args.keys.includes(a) ? '<key>' : a))
          .join(' ')}`.trim(),
        target: args.url ? 'remote' : 'local',
        network: args.network,
        ledger: ep.era,
        clients: args.clients,
        funded: clients.length,
        fundingS,
        durationS: args.durationS,
        drainS: args.drainS,
        blockTimeMs: ep.blockTimeMs,
        notes,
      },
      summary: summarize({ startMs, endMs, calls, txs, blocks }),
      pool: pool.samples,
      ...(finalPool ? { finalPool } : {}),
      calls,
      txs,
      blocks,
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = resultPath(startedAt, commit, dirty);
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    const section = renderSustainedSection(result);
    writeFileSync(file.replace(/\.json$/, '.md'), section);
    if (serverWarnings.count > 0) {
      writeFileSync(file.replace(/\.json$/, '-server.log'), serverWarnings.text());
      log(
        `server warnings and errors: ${serverWarnings.count} (${relative(ROOT, file.replace(/\.json$/, '-server.log'))}` +
          `); most frequent: ${serverWarnings.top(3)}`,
      );
    }
    log(`\n${section}`);
    // bench/RESULTS.md records a local run (its settings are the bench's) long enough for the pool to settle.
    const recorded = !args.url && args.durationS >= RECORDED_MIN_S;
    if (recorded) {
      const runs = recordedRuns(commit, dirty, ep.era);
      const table = `${renderRunsTable(runs.map((r) => r.result))}\n\nRaw figures: ${runs.map((r) => `\`${relative(BENCH_DIR, r.file)}\``).join(', ')}.`;
      writeSustainedSection(join(BENCH_DIR, 'RESULTS.md'), { era: ep.era, section: `${section.trim()}\n\n${table}`, intro: SUSTAINED_INTRO });
    }
    log(
      `results: ${relative(ROOT, file)} (and .md beside it: the RESULTS.md subsection of ledger ${ep.era}${recorded ? ', now also in bench/RESULTS.md' : ''})`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(`bench:sustained: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  } finally {
    await watch?.close().catch(() => undefined);
    await group.stopAll();
    cleanup();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
    // Lingering sockets (keep-alive, graphql-ws) must not keep a finished run alive.
    setTimeout(() => process.exit(code), 100).unref();
  },
  (err: unknown) => {
    process.stderr.write(`bench:sustained: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
