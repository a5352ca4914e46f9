/**
 * Micro-benchmark of the DUST UTXO allocator (src/features/sponsorship/allocator/allocator.ts).
 * Run alone: `npx tsx bench/allocator.ts [--quick]` prints the figures as JSON; the bench
 * harness (bench/lib/micro.ts) imports `run(options)` instead.
 *
 * Figures:
 * - one thread, 64 UTXOs: reserve/release pairs per second, the target in bench/lib/targets.ts (≥ 5 M/s), best
 *   of several batches by wall clock, and per second of process CPU time (what another process on
 *   a busy 2-core machine cannot take away), and the same at 256 and 1024 UTXOs;
 * - 2 and 4 worker threads on one table: pairs per second in total, with every reservation
 *   claimed in a shared owner array, so a double reservation is counted, never missed.
 *
 * The same file is the contention worker: started as a worker thread, it runs `contend`.
 */
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '@nightgate/threads';
import { DustAllocatorTable } from '../src/features/sponsorship/allocator/allocator.js';

export interface AllocatorBenchOptions {
  /** Shorter measuring (the harness's --quick). */
  quick?: boolean;
  /** Time the whole bench may spend measuring, roughly (default 3000 ms). */
  durationMs?: number;
}

export interface OneThreadFigures {
  pairsPerSecond: number;
  pairsPerCpuSecond: number;
  nsPerPair: number;
}

export interface ContentionFigures {
  pairsPerSecond: number;
  doubleReservations: number;
  failedReleases: number;
  nullReservations: number;
}

export interface AllocatorBenchFigures extends OneThreadFigures {
  /** UTXOs in the table of the headline figure. */
  slots: number;
  /** Sum over every contention run: the target (bench/lib/targets.ts) is zero. */
  doubleReservations: number;
  largerTables: { slots256: OneThreadFigures; slots1024: OneThreadFigures };
  contention: { threads2: ContentionFigures; threads4: ContentionFigures };
  /** 1-minute load average when the bench started: other work on the machine lowers wall-clock figures. */
  loadAverage1m: number;
}

interface ContendJob {
  readonly table: SharedArrayBuffer;
  readonly owners: SharedArrayBuffer;
  readonly start: SharedArrayBuffer;
  readonly workerId: number;
  readonly durationMs: number;
}

const HEADLINE_SLOTS = 64;
/** ≈ 0.75 DUST, a simple sponsored transaction's fee (LEDGER.md), against UTXOs of 1–11 DUST. */
const FEE = 750_000_000_000_000n;
const SPECK_PER_DUST = 1_000_000_000_000_000;
const BATCH_PAIRS = 100_000;
const DEADLINE = Date.now() + 300_000;

/** A table of `slots` UTXOs with distinct values, spread as a wallet's UTXOs would be. */
function fullTable(slots: number): DustAllocatorTable {
  const table = DustAllocatorTable.create(slots);
  for (let i = 0; i < slots; i++) {
    // Deterministic spread of 1–11 DUST (golden-ratio sequence), so every run scans the same table.
    const value = SPECK_PER_DUST + Math.floor(((i * 0.618_033_988_75) % 1) * 10 * SPECK_PER_DUST);
    table.add({ walletIndex: 0, key: i, value: BigInt(value) });
  }
  return table;
}

function oneThread(slots: number, budgetMs: number): OneThreadFigures {
  const table = fullTable(slots);
  let bestWall = 0;
  let bestCpu = 0;
  const until = Date.now() + budgetMs;
  // At least three batches: the first ones run while V8 is still optimising.
  for (let batch = 0; batch < 3 || Date.now() < until; batch++) {
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < BATCH_PAIRS; i++) {
      const reservation = table.reserve(FEE, DEADLINE);
      if (reservation === null || !table.release(reservation)) throw new Error('the benchmark table ran dry');
    }
    const wallS = Number(process.hrtime.bigint() - start) / 1e9;
    const used = process.cpuUsage(cpu);
    bestWall = Math.max(bestWall, BATCH_PAIRS / wallS);
    bestCpu = Math.max(bestCpu, BATCH_PAIRS / ((used.user + used.system) / 1e6));
  }
  return { pairsPerSecond: Math.round(bestWall), pairsPerCpuSecond: Math.round(bestCpu), nsPerPair: Math.round(1e9 / bestWall) };
}

/**
 * Worker side: reports ready, waits for the start signal, then runs reserve/release pairs until
 * the deadline, each reservation claimed in the owner array while held.
 */
function contend(job: ContendJob, ready: () => void): { pairs: number; doubles: number; failedReleases: number; nulls: number } {
  const table = DustAllocatorTable.fromShared(job.table);
  const owners = new Int32Array(job.owners);
  const start = new Int32Array(job.start);
  const me = job.workerId + 1;
  ready();
  Atomics.wait(start, 0, 0);
  const until = Date.now() + job.durationMs;
  let pairs = 0;
  let doubles = 0;
  let failedReleases = 0;
  let nulls = 0;
  for (let round = 0; (round & 1023) !== 0 || Date.now() < until; round++) {
    const reservation = table.reserve(FEE, DEADLINE);
    if (reservation === null) {
      nulls++;
      continue;
    }
    if (Atomics.compareExchange(owners, reservation.slot, 0, me) !== 0) doubles++;
    // Cleared before the release: once released, another thread may claim the slot.
    if (Atomics.compareExchange(owners, reservation.slot, me, 0) !== me) doubles++;
    if (!table.release(reservation)) failedReleases++;
    pairs++;
  }
  return { pairs, doubles, failedReleases, nulls };
}

async function contention(threads: number, durationMs: number): Promise<ContentionFigures> {
  const table = fullTable(HEADLINE_SLOTS);
  const owners = new SharedArrayBuffer(HEADLINE_SLOTS * Int32Array.BYTES_PER_ELEMENT);
  const start = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const workers: Worker[] = [];
  try {
    for (let workerId = 0; workerId < threads; workerId++) {
      const job: ContendJob = { table: table.buffer, owners, start: start.buffer as SharedArrayBuffer, workerId, durationMs };
      workers.push(startModuleWorker(new URL('./allocator', import.meta.url), import.meta.url, { workerData: job }));
    }
    await Promise.all(workers.map((worker) => once(worker, 'message')));
    const results = workers.map((worker) => once(worker, 'message') as Promise<[ReturnType<typeof contend>]>);
    // Every worker blocks on `start` until all are ready, so they contend from the first pair.
    const began = process.hrtime.bigint();
    Atomics.store(start, 0, 1);
    Atomics.notify(start, 0);
    const done = (await Promise.all(results)).map(([result]) => result);
    const seconds = Number(process.hrtime.bigint() - began) / 1e9;
    const sum = (pick: (r: ReturnType<typeof contend>) => number) => done.reduce((total, r) => total + pick(r), 0);
    return {
      pairsPerSecond: Math.round(sum((r) => r.pairs) / seconds),
      doubleReservations: sum((r) => r.doubles),
      failedReleases: sum((r) => r.failedReleases),
      nullReservations: sum((r) => r.nulls),
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

export async function run(options: AllocatorBenchOptions = {}): Promise<AllocatorBenchFigures> {
  const durationMs = options.durationMs ?? (options.quick ? 1000 : 3000);
  const loadAverage1m = loadavg()[0] ?? 0;
  const headline = oneThread(HEADLINE_SLOTS, durationMs * 0.4);
  const slots256 = oneThread(256, durationMs * 0.1);
  const slots1024 = oneThread(1024, durationMs * 0.1);
  const threads2 = await contention(2, durationMs * 0.2);
  const threads4 = await contention(4, durationMs * 0.2);
  return {
    ...headline,
    slots: HEADLINE_SLOTS,
    doubleReservations: threads2.doubleReservations + threads4.doubleReservations,
    largerTables: { slots256, slots1024 },
    contention: { threads2, threads4 },
    loadAverage1m,
  };
}

if (!isMainThread && parentPort !== null && (workerData as Partial<ContendJob> | null)?.owners instanceof SharedArrayBuffer) {
  const port = parentPort;
  port.postMessage(contend(workerData as ContendJob, () => port.postMessage('ready')));
} else if (isMainThread && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
