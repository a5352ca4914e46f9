/**
 * ledger-v8, loaded once per worker thread (≈ 100 ms, ≈ 85 MB: DESIGN.md "Proving"). Every task
 * module imports it from here, so it loads exactly once, when piscina starts the thread and
 * preloads workers/index.ts — before the first task arrives.
 *
 * Static imports only, no top-level await: piscina loads the entry with `require()` first (which
 * on Node 20 is also how the test loader reaches worker threads), and a module with top-level
 * await cannot be required.
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { loadStartedAt } from './load-mark.js';
import * as L from '@midnight-ntwrk/ledger-v8';
import { WORKER_LOADED, type WorkerLoadedMessage } from '../../src/prover/tasks.js';

export { L };

/** How long this thread took to load the ledger (ESM evaluates load-mark.js right before it). */
export const ledgerLoadMs = performance.now() - loadStartedAt;
// piscina re-emits a worker's own messages as the pool's 'message' event: the pool records it.
parentPort?.postMessage({ type: WORKER_LOADED, ledgerLoadMs } satisfies WorkerLoadedMessage);

/** zkir-v2 (circuit IR, in-WASM proving) is only needed by /check, /k and the wasm backend: loaded on first use. */
let zkir: Promise<typeof import('@midnight-ntwrk/zkir-v2')> | undefined;
export function loadZkir(): Promise<typeof import('@midnight-ntwrk/zkir-v2')> {
  zkir ??= import('@midnight-ntwrk/zkir-v2');
  return zkir;
}
