/**
 * The ledgers a worker thread serves, loaded when piscina starts the thread and preloads
 * workers/index.ts — before the first task arrives, so no request pays for a load (≈ 100–500 ms,
 * ≈ 85 MB per era: docs/proving.md, "The worker pool"). Which eras: the pool's `workerData.eras` (the eras of
 * the configured networks), else ledger 9, the era of every public network. An era a task asks
 * for that was not preloaded still loads, on first use (packages/ledger).
 *
 * Synchronous loads only, no top-level await: piscina loads the entry with `require()` first
 * (which on Node 20 is also how the test loader reaches worker threads), and a module with
 * top-level await cannot be required.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { DEFAULT_ERA, isEra, ledger, type Era, type Ledger } from '../../ledger/index.js';
import { WORKER_LOADED, type WorkerData, type WorkerLoadedMessage } from '../tasks.js';

/** The eras this thread was started for. */
function erasToPreload(data: unknown): Era[] {
  const asked = (data as Partial<WorkerData> | null | undefined)?.eras;
  const eras = Array.isArray(asked) ? asked.filter(isEra) : [];
  return eras.length > 0 ? [...new Set(eras)] : [DEFAULT_ERA];
}

function timedLoad(era: Era): number {
  const t0 = performance.now();
  ledger(era);
  return performance.now() - t0;
}

/** How long this thread took to load each era's ledger, ms. */
const ledgerLoadMs: Partial<Record<Era, number>> = Object.fromEntries(erasToPreload(workerData).map((era) => [era, timedLoad(era)]));
// piscina re-emits a worker's own messages as the pool's 'message' event: the pool records it.
parentPort?.postMessage({ type: WORKER_LOADED, ledgerLoadMs } satisfies WorkerLoadedMessage);

/** The era's ledger package (preloaded above, or loaded now). */
export const L = (era: Era): Ledger => ledger(era);

/** zkir-v2 (circuit IR, in-WASM proving) is only needed by /check, /k and the wasm backend: loaded on first use. */
let zkir: Promise<typeof import('@midnight-ntwrk/zkir-v2')> | undefined;
export function loadZkir(): Promise<typeof import('@midnight-ntwrk/zkir-v2')> {
  zkir ??= import('@midnight-ntwrk/zkir-v2');
  return zkir;
}
