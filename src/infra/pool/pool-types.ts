/** The worker pool's option and health types, and the timers its abort grace period runs on unless a test gives its own. */
import type { Logger } from 'pino';
import type { ComponentHealth } from '../app-context.js';
import type { Era } from '../ledger/index.js';
import type { TaskModules } from './tasks.js';

export interface WorkerPoolHealth extends ComponentHealth {
  threads: number;
  maxThreads: number;
  /** Threads busy with a task now. */
  running: number;
  queueSize: number;
  maxQueue: number;
  /** Tasks one key may have waiting (beyond: 503 KEY_QUEUE_FULL). */
  maxQueuePerKey: number;
  /** Keys with tasks waiting now. */
  waitingKeys: number;
  /** Share of the threads' time spent on tasks since start, 0–1. */
  utilization: number;
  completed: number;
  failed: number;
  crashed: number;
  /**
   * Running tasks whose caller left: `finished` within the grace period (thread kept, result
   * discarded), or `cutShort` (the thread ended at the grace period, or the task left piscina's queue).
   */
  abandoned: { finished: number; cutShort: number };
  /**
   * Worker threads ended while the pool served (a task cut short at its grace period, a crash),
   * each replaced; threads ended by shutdown are not counted. With `abandoned.cutShort` it tells a
   * thread ended from a task that left piscina's queue before it started.
   */
  threadsEnded: number;
  /** Per era, the ledger load time of the most recent and the slowest thread start, ms; null before a thread loaded. */
  ledgerLoadMs: Partial<Record<Era, LoadTimes>> | null;
  /** Set when mock proofs are served: the dev backend is in use. */
  devProver: boolean;
}

export interface WorkerPoolOptions {
  threads: number;
  maxQueue: number;
  /** Tasks one key may have waiting; default all of `maxQueue` but an eighth (slots.ts). */
  maxQueuePerKey?: number;
  logger: Logger;
  /** What each thread loads when it starts (the app's workers/index.ts: the ledgers it serves). */
  entry: URL;
  /** Each task's worker module, as the features name them; tests may point one at a fixture. */
  tasks: TaskModules;
  /** The ledger eras each thread loads when it starts (default: ledger 9). */
  eras?: readonly Era[];
  /** Shown in health: some network is served by the dev backend. */
  devProver?: boolean;
  /**
   * Start every thread now (default). Without an in-process backend nothing may need a worker,
   * so threads (≈ 85 MB each) start with the first task instead.
   */
  eager?: boolean;
  /** How long a running task whose caller left may still take before its thread is ended (default 0: at once). */
  abortGraceMs?: number;
  /** Timer functions for the grace period (tests fire it by hand). */
  timers?: GraceTimers;
}

export interface GraceTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface LoadTimes {
  last: number;
  max: number;
}

export const realTimers: GraceTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};
