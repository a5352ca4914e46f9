// The devnet worker: ONE thread hosts every embedded network, so each ledger era's package (≈ 85 MB)
// loads once, and only if a network runs that era; each network holds its own era's objects
// (era-world.ts), so networks of both eras share the thread. Block production — 100–400 ms of WASM per block — never runs on the caller's event loop.
// Each network keeps its own chain and loopback HTTP port; the main thread only gets their URLs.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { lowerThreadPriority } from '@nightgate/threads';
import { reasonOf } from './errors.js';
import { buildExecutableSchema } from './executable-schema.js';
import type { DevnetLogger, LogLevel } from './logger.js';
import { DevnetNetwork } from './network.js';
import type { FromWorker, ToWorker, WorkerConfig } from './worker-protocol.js';

function requireParent(): MessagePort {
  if (!parentPort) throw new Error('chain-worker must run in a worker thread');
  return parentPort;
}

const port = requireParent();

const post = (message: FromWorker): void => port.postMessage(message);
const forward = (level: LogLevel) => (obj: object, msg: string) => post({ type: 'log', level, obj, msg });
const log: DevnetLogger = { debug: forward('debug'), info: forward('info'), warn: forward('warn'), error: forward('error') };

const config = workerData as WorkerConfig;
const networks: DevnetNetwork[] = [];

async function start(): Promise<void> {
  if (config.threadNice) {
    const r = lowerThreadPriority(config.threadNice);
    if (r.applied) log.info({ nice: r.nice }, 'devnet thread priority lowered: block production yields the CPU to serving');
    else log.warn({ reason: r.reason }, 'devnet thread priority left unchanged');
  }
  const schema = buildExecutableSchema();
  for (const n of config.networks) {
    const network = new DevnetNetwork(
      {
        ...n,
        blockTimeMs: config.blockTimeMs,
        genesisAgeMs: config.genesisAgeMs,
        ...(config.retainBlocks !== undefined ? { retainBlocks: config.retainBlocks } : {}),
      },
      schema,
      undefined,
      log,
    );
    networks.push(network);
    await network.start();
  }
  for (const network of networks) network.run();
  post({ type: 'ready', networks: networks.map((n) => n.info) });
}

function onMessage(message: ToWorker): void {
  if (message.type === 'close') void close();
}

async function close(): Promise<void> {
  await Promise.all(networks.map((n) => n.close()));
  post({ type: 'closed' });
  // With nothing left to listen to, the worker's event loop drains and the thread exits.
  port.off('message', onMessage);
  port.unref();
}

port.on('message', onMessage);

start().catch(async (err: unknown) => {
  await Promise.all(networks.map((n) => n.close().catch(() => undefined)));
  post({ type: 'failed', message: reasonOf(err) });
  port.off('message', onMessage);
  port.unref();
});
