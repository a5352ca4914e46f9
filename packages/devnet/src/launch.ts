// Main-thread side of the devnet: validates options, starts the worker that hosts every network,
// forwards its log records to the caller's logger and waits for its URLs. Nothing here loads the
// ledger; the main thread exchanges a few small messages per block at most.
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { DEFAULT_ERA, ERAS, isEra } from '@nightgate/ledger/era';
import { isWalletKeys, legacyWalletKeys } from '@nightgate/ledger/wallet-keys';
import { startModuleWorker } from '@nightgate/threads';
import { DevnetError, DevnetErrorCode } from './errors.js';
import type { DevnetLogger } from './logger.js';
import type { DevnetOptions, EmbeddedDevnet } from './devnet-options.js';
import { SWITCH_FROM } from './network-config.js';
import type { FromWorker, ToWorker, WorkerConfig } from './worker-protocol.js';

/** Genesis is dated this far back so DUST has accrued when the chain goes live. */
const DEFAULT_GENESIS_AGE_MS = 6 * 60 * 60 * 1000;
const HEX_SEED = /^[0-9a-fA-F]{64}$/;
const CLOSE_DEADLINE_MS = 10_000;
const NETWORK_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

interface LaunchOptions {
  /** Network i listens on portBase + i; absent or 0: free ports. */
  portBase?: number;
  genesisAgeMs?: number;
}

function validate(opts: DevnetOptions): void {
  const fail = (message: string): never => {
    throw new DevnetError(DevnetErrorCode.BAD_OPTIONS, 500, message);
  };
  if (opts.networks.length === 0) fail('devnet: at least one network is required');
  if (!Number.isInteger(opts.blockTimeMs) || opts.blockTimeMs < 1) fail('devnet: blockTimeMs must be a positive integer');
  if (opts.threadNice !== undefined && (!Number.isInteger(opts.threadNice) || opts.threadNice < 0 || opts.threadNice > 19))
    fail('devnet: threadNice must be an integer from 0 to 19');
  if (opts.retainBlocks !== undefined && (!Number.isSafeInteger(opts.retainBlocks) || opts.retainBlocks < 1))
    fail('devnet: retainBlocks must be a positive integer');
  const names = new Set<string>();
  const seeds = new Set<string>();
  for (const n of opts.networks) {
    if (!NETWORK_NAME.test(n.name)) fail(`devnet: network name '${n.name}' must be lower-case letters, digits and '-'`);
    if (names.has(n.name)) fail(`devnet: network '${n.name}' is listed twice`);
    if (n.seed.length === 0) fail(`devnet: network '${n.name}' needs a genesis seed`);
    if (seeds.has(n.seed)) fail(`devnet: networks must not share a genesis seed ('${n.name}')`);
    if (n.ledger !== undefined && !isEra(n.ledger)) fail(`devnet: network '${n.name}' ledger must be ${ERAS.join(' or ')}`);
    const switchAt = n.ledger9AtHeight ?? 0;
    if (!Number.isSafeInteger(switchAt) || switchAt < 0) fail(`devnet: network '${n.name}' ledger9AtHeight must be a non-negative integer`);
    if (switchAt > 0 && n.ledger !== SWITCH_FROM)
      fail(`devnet: network '${n.name}' switches to ledger 9 at height ${switchAt} only from ledger 8 (set ledger: 8)`);
    for (const s of n.sponsorWallets)
      if (!HEX_SEED.test(s) && !isWalletKeys(s)) fail(`devnet: each sponsor wallet of '${n.name}' is its keys (128 lower-case hex) or a legacy seed (64 hex)`);
    names.add(n.name);
    seeds.add(n.seed);
  }
}

function spawnWorker(config: WorkerConfig): Worker {
  return startModuleWorker(new URL('./chain-worker', import.meta.url), import.meta.url, { workerData: config });
}

export async function launchDevnet(opts: DevnetOptions, launch: LaunchOptions = {}): Promise<EmbeddedDevnet> {
  validate(opts);
  const log: DevnetLogger | undefined = opts.logger;
  const config: WorkerConfig = {
    blockTimeMs: opts.blockTimeMs,
    genesisAgeMs: launch.genesisAgeMs ?? DEFAULT_GENESIS_AGE_MS,
    ...(opts.retainBlocks !== undefined ? { retainBlocks: opts.retainBlocks } : {}),
    ...(opts.threadNice ? { threadNice: opts.threadNice } : {}),
    networks: opts.networks.map((n, i) => ({
      name: n.name,
      networkId: opts.networkId ?? 'undeployed',
      seed: n.seed,
      sponsorWallets: n.sponsorWallets.map((s) => (isWalletKeys(s) ? s : legacyWalletKeys(s))),
      port: launch.portBase ? launch.portBase + i : 0,
      ledger: n.ledger ?? DEFAULT_ERA,
      ledger9AtHeight: n.ledger9AtHeight ?? 0,
      ...(n.projectId ? { projectId: n.projectId } : {}),
      ...(n.profile ? { profile: n.profile } : {}),
      ...(opts.stateDir ? { stateDir: join(opts.stateDir, n.name) } : {}),
    })),
  };
  const worker = spawnWorker(config);
  let closing: Promise<void> | undefined;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  const networks = await new Promise<EmbeddedDevnet['networks']>((resolve, reject) => {
    worker.on('message', (message: FromWorker) => {
      switch (message.type) {
        case 'log':
          log?.[message.level](message.obj, message.msg);
          break;
        case 'ready':
          resolve(message.networks);
          break;
        case 'failed':
          reject(new DevnetError(DevnetErrorCode.INTERNAL, 500, `devnet failed to start: ${message.message}`));
          break;
        case 'closed':
          break;
      }
    });
    worker.once('error', (err) => {
      log?.error({ err: err.message }, 'devnet worker crashed');
      reject(err);
    });
    worker.once('exit', (code) => reject(new DevnetError(DevnetErrorCode.INTERNAL, 500, `devnet worker exited with code ${code}`)));
  });

  return {
    networks,
    close(): Promise<void> {
      closing ??= (async () => {
        worker.postMessage({ type: 'close' } satisfies ToWorker);
        // The worker closes its servers and exits by itself; a handle left open must not hang shutdown.
        const deadline = setTimeout(() => void worker.terminate(), CLOSE_DEADLINE_MS);
        await exited;
        clearTimeout(deadline);
      })();
      return closing;
    },
  };
}
