/**
 * The worker pool: piscina behind a small typed facade, the app component `worker-pool`, whose
 * threads every feature shares for CPU work off the uWS thread. It knows no task: the app hands it
 * a thread entry (which loads each era's ledger once) and each task's module.
 *
 *  - bounded queue: at most `threads` tasks go to piscina, the rest wait in our queue (slots.ts)
 *    of `maxQueue`; a full queue → 503 QUEUE_FULL with Retry-After;
 *  - fair across keys: each key (`key`, the API key a task works for) waits in a queue of its own,
 *    and a freed thread goes to the waiting key with the least thread time so far (a task is
 *    charged its kind's recent mean time when it starts, corrected when it ends). A key may have
 *    `maxQueuePerKey` tasks waiting (default: the queue but an eighth); beyond, 503 KEY_QUEUE_FULL
 *    with Retry-After. Tasks that name no key share one;
 *  - no task waits on I/O: work that waits for the network (a sponsorship's input check, its key
 *    owner's webhook) runs on the main thread between tasks, never inside one;
 *  - abort: the caller's signal removes a queued task at once. A running one gets `abortGraceMs`
 *    to finish (its result discarded, CLIENT_ABORTED); past that its thread is ended and replaced,
 *    which costs the ledger loads and leaves native memory behind (≈ 90 MiB more in a soak with
 *    aborting clients and no grace), while most tasks end within milliseconds. The task's slot
 *    (and what it holds, e.g. a DUST reservation) is freed when the task has ended;
 *  - crash: a thread that dies mid-task rejects that task with 500 WORKER_CRASHED and is replaced;
 *  - shutdown: `drain()` refuses every queued and new task with 503 SHUTTING_DOWN; running ones finish.
 */
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import type { Component } from '../app-context.js';
import { GatewayError, isGatewayError } from '../../core/errors.js';
import { DEFAULT_ERA, type Era } from '../ledger/index.js';
import { realTimers, type GraceTimers, type LoadTimes, type WorkerPoolHealth, type WorkerPoolOptions } from './pool-types.js';
import { Slots } from './slots.js';
import {
  WORKER_LOADED,
  moduleFile,
  unpack,
  pack,
  type TaskInput,
  type TaskName,
  type TaskOutcome,
  type TaskPayload,
  type TaskResult,
  type WorkerData,
  type WorkerLoadedMessage,
} from './tasks.js';

export const WORKER_POOL = 'worker-pool';

export interface RunOptions {
  /** Abort when the caller no longer wants the result (e.g. `ctx.signal`). */
  signal?: AbortSignal;
  /** The work, as a refusal at shutdown names it to the client ("the proof"); default "the <task> task". */
  work?: string;
  /** ArrayBuffers to move to the worker instead of copying (see `transferListFor`); the payload's port is added. */
  transferList?: ArrayBuffer[];
  /** Called once when the task gets its thread (the queue wait ends; /metrics). */
  onStart?: () => void;
  /** The API key the task works for: the pool is shared fairly between keys (slots.ts). Absent: the key shared by every task that names none. */
  key?: string;
}

export interface WorkerPoolComponent extends Component {
  run<K extends TaskName>(task: K, payload: TaskPayload<K>, opts?: RunOptions): Promise<TaskResult<K>>;
  health(): WorkerPoolHealth;
  drain(): void;
}

/** Weight of the newest task in the recent mean task time. */
const RECENT_WEIGHT = 0.2;

// piscina's own messages (piscina/dist/errors.js, index.js): it has no error codes.
const CRASH_PATTERN = /^worker exited with code|^Terminating worker thread/;

export class WorkerPool implements WorkerPoolComponent {
  readonly name = WORKER_POOL;
  readonly #pool: Piscina<TaskInput, Uint8Array>;
  readonly #log: Logger;
  readonly #devProver: boolean;
  /** A slot per thread: a task holds one from being handed to piscina until it settles. */
  readonly #slots: Slots;
  readonly #graceMs: number;
  readonly #timers: GraceTimers;
  #failed = 0;
  #crashed = 0;
  /** Ends the thread of each running task whose caller left and whose grace period runs. */
  readonly #inGrace = new Set<() => void>();
  /** Running tasks whose caller left: finished within the grace period, or cut short. */
  #abandonedFinished = 0;
  #abandonedCutShort = 0;
  #threadsEnded = 0;
  #closing = false;
  readonly #loads: Partial<Record<Era, LoadTimes>> = {};
  /**
   * Task time, kept here: piscina's `histogram.runTime` builds a full percentile summary on every
   * read (≈ 30 ms of main-thread time after a few thousand tasks), which made each /health call a
   * loop stall. A task holds a thread from `pool.run` until it settles (the slots hand piscina no
   * more tasks than threads), so this is the thread's busy time.
   */
  readonly #startedAt = performance.now();
  #busyMs = 0;
  /** Exponentially weighted mean task time (ms), for Retry-After; undefined before the first task. */
  #recentMs: number | undefined;
  /** The same per task kind: what a task is charged to its key when it starts (slots.ts). */
  readonly #recentByTask = new Map<string, number>();

  /** Task name → the file of its worker module. */
  readonly #modules: Map<string, string>;
  constructor(opts: WorkerPoolOptions) {
    this.#log = opts.logger;
    this.#modules = new Map(Object.entries(opts.tasks).map(([task, module]) => [task, moduleFile(module)]));
    this.#devProver = opts.devProver ?? false;
    this.#graceMs = opts.abortGraceMs ?? 0;
    this.#timers = opts.timers ?? realTimers;
    this.#slots = new Slots({
      size: opts.threads,
      maxQueue: opts.maxQueue,
      ...(opts.maxQueuePerKey === undefined ? {} : { maxQueuePerKey: opts.maxQueuePerKey }),
      full: () => this.#queueFull(),
      keyFull: () => this.#keyQueueFull(),
      refused: (work) => new GatewayError('SHUTTING_DOWN', `The server is shutting down; ${work} was not started`),
    });
    this.#pool = new Piscina<TaskInput, Uint8Array>({
      // Preloaded when a thread starts; a task's own module loads with the thread's first task of it.
      filename: moduleFile(opts.entry),
      minThreads: opts.eager === false ? 0 : opts.threads,
      maxThreads: opts.threads,
      workerData: { eras: [...(opts.eras ?? [DEFAULT_ERA])], modules: [...new Set(this.#modules.values())] } satisfies WorkerData,
      // Unbounded here: piscina holds at most `threads` tasks (the slots), queued only while a
      // thread starts. Its own bound could not be relied on anyway: piscina 5 parks a task that
      // carries an AbortSignal in a side queue its `maxQueue` check does not count (index.js,
      // `_returnUndistributedTask`).
      maxQueue: Infinity,
      // Never retire idle threads: each start costs the ledger loads.
      idleTimeout: Infinity,
      // Task times are kept by this class (see #busyMs).
      recordTiming: false,
      atomics: 'async', // idle threads wait without blocking their loop: they collect the last body given
      closeTimeout: 5_000,
    });
    this.#pool.on('message', (m: unknown) => {
      if (m && typeof m === 'object' && (m as WorkerLoadedMessage).type === WORKER_LOADED) this.#loaded((m as WorkerLoadedMessage).ledgerLoadMs);
    });
    this.#pool.on('workerDestroy', () => {
      if (!this.#closing) this.#threadsEnded++;
    });
    // An error with no task to blame (a thread failing between tasks); the thread is replaced.
    this.#pool.on('error', (err: Error) => this.#log.error({ err }, 'worker thread failed outside a task'));
  }

  #loaded(byEra: WorkerLoadedMessage['ledgerLoadMs']): void {
    for (const [era, ms] of Object.entries(byEra) as unknown as [Era, number][]) {
      const t = Math.round(ms);
      this.#loads[era] = { last: t, max: Math.max(this.#loads[era]?.max ?? 0, t) };
    }
    this.#log.debug({ ledgerLoadMs: byEra }, 'worker loaded its ledgers');
  }

  /** The piscina worker threads (tests watch them end and be replaced). */
  get threads(): readonly Worker[] {
    return this.#pool.threads;
  }

  /** Tasks waiting for a thread: in our queue, or handed to piscina while a thread starts. */
  #queued(): number {
    return this.#slots.waiting + this.#pool.queueSize;
  }

  /** The refusal a task (of `key`) would meet now, decided before its request's body is read; undefined while the queue has room. */
  refusalIfFull(key?: string): GatewayError | undefined {
    if (this.#queued() >= this.#slots.maxQueue) return this.#queueFull();
    return key === undefined ? undefined : (this.#slots.refusal(key) as GatewayError | undefined);
  }

  #queueFull(): GatewayError {
    return new GatewayError('QUEUE_FULL', `All ${this.#pool.maxThreads} workers are busy and ${this.#queued()} tasks are waiting`, {
      headers: { 'Retry-After': String(this.retryAfterSeconds()) },
    });
  }

  #keyQueueFull(): GatewayError {
    const perKey = this.#slots.maxQueuePerKey;
    // Its tasks drain at its share of the threads: one of the keys waiting.
    const ahead = Math.min(this.#queued(), perKey * Math.max(1, this.#slots.waitingKeys));
    return new GatewayError('KEY_QUEUE_FULL', `This key has ${perKey} tasks waiting for a worker, its share of the queue`, {
      headers: { 'Retry-After': String(this.retryAfterSeconds(ahead)) },
    });
  }

  async run<K extends TaskName>(task: K, payload: TaskPayload<K>, opts: RunOptions = {}): Promise<TaskResult<K>> {
    const module = this.#modules.get(task);
    if (module === undefined) throw new GatewayError('INTERNAL', undefined, { cause: new Error(`no worker module was given for the ${task} task`) });
    const key = opts.key ?? '';
    // What the task is charged to its key as it starts: its kind's recent mean time (1 ms before the first).
    const cost = this.#recentByTask.get(task) ?? this.#recentMs ?? 1;
    try {
      // No await when a thread is free: the task reaches piscina before `run` first yields.
      const turn = this.#slots.acquire(opts.work ?? `the ${task} task`, opts.signal, false, { key, cost });
      if (turn) await turn;
    } catch (err) {
      throw this.#translate(err, task, opts.signal);
    }
    opts.onStart?.();
    const started = performance.now();
    try {
      return await this.#start(task, module, payload, opts);
    } finally {
      const ms = performance.now() - started;
      this.#slots.release(key, ms - cost);
      const recent = this.#recentByTask.get(task);
      this.#recentByTask.set(task, recent === undefined ? ms : recent + RECENT_WEIGHT * (ms - recent));
    }
  }

  async #start<K extends TaskName>(task: K, module: string, payload: TaskPayload<K>, opts: RunOptions): Promise<TaskResult<K>> {
    let data = payload.data;
    // A view into a larger buffer that is not moved would be cloned whole: send an exact copy instead.
    const moved = data !== undefined && (opts.transferList ?? []).some((b) => b === data!.buffer);
    if (data && !moved && data.byteLength !== data.buffer.byteLength) data = data.slice();
    const signal = opts.signal;
    if (signal?.aborted) throw this.#translate(signal.reason, task, signal);
    // piscina drops a task it has not started, or ends the thread of a running one, when the
    // signal it was given fires: that one fires at the end of the grace period (at once with no
    // grace). The slots hand piscina no more tasks than threads, so few tasks are not started.
    const end = signal ? new AbortController() : undefined;
    let grace: unknown;
    const endNow = (): void => {
      this.#inGrace.delete(endNow);
      end!.abort(signal!.reason);
    };
    const onAbort = (): void => {
      if (this.#graceMs <= 0) return endNow();
      this.#inGrace.add(endNow);
      grace = this.#timers.set(endNow, this.#graceMs);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let out: Uint8Array;
    const started = performance.now();
    try {
      const transferList = [...(opts.transferList ?? []), ...(payload.port ? [payload.port] : [])];
      out = await this.#pool.run(
        { args: pack(payload.args), data, shared: payload.shared, port: payload.port },
        { filename: module, name: task, ...(end ? { signal: end.signal } : {}), ...(transferList.length > 0 ? { transferList } : {}) },
      );
    } catch (err) {
      this.#account(performance.now() - started);
      if (end?.signal.aborted) this.#abandonedCutShort++;
      throw this.#translate(err, task, signal);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#inGrace.delete(endNow);
      if (grace !== undefined) this.#timers.clear(grace);
    }
    this.#account(performance.now() - started);
    if (signal?.aborted) {
      // Finished within the grace period: the thread is kept, the result is nobody's.
      this.#abandonedFinished++;
      throw this.#translate(signal.reason, task, signal);
    }
    const outcome = unpack<TaskOutcome<TaskResult<K>>>(out);
    if (outcome.ok) return outcome.value;
    this.#failed++;
    if (outcome.code === 'INTERNAL') {
      throw new GatewayError('INTERNAL', undefined, { cause: new Error(`worker task ${task}: ${outcome.message}`) });
    }
    throw new GatewayError(outcome.code, outcome.message, {
      ...(outcome.headers ? { headers: outcome.headers } : {}),
      ...(outcome.rule === undefined ? {} : { rule: outcome.rule }),
    });
  }

  #translate(err: unknown, task: string, signal: AbortSignal | undefined): GatewayError {
    if (signal?.aborted) return isGatewayError(signal.reason) ? signal.reason : new GatewayError('CLIENT_ABORTED');
    // Ours (queue full, shutting down), never piscina's.
    if (isGatewayError(err)) return err;
    const message = err instanceof Error ? err.message : String(err);
    this.#failed++;
    if (CRASH_PATTERN.test(message)) {
      this.#crashed++;
      this.#log.error({ task, err: message }, 'worker crashed during a task; piscina replaces the thread');
      return new GatewayError('WORKER_CRASHED', `A worker crashed while running ${task}; it has been replaced, retry the request`);
    }
    return new GatewayError('INTERNAL', undefined, { cause: err });
  }

  #account(ms: number): void {
    this.#busyMs += ms;
    this.#recentMs = this.#recentMs === undefined ? ms : this.#recentMs + RECENT_WEIGHT * (ms - this.#recentMs);
  }

  /** How long the queue (or `tasks` of it) takes to drain at the recent mean task time (at least one second). */
  retryAfterSeconds(tasks = this.#queued()): number {
    const perTaskMs = this.#recentMs !== undefined && this.#recentMs > 0 ? this.#recentMs : 1_000;
    return Math.max(1, Math.ceil(((tasks + 1) * perTaskMs) / this.#pool.maxThreads / 1000));
  }

  /** Busy thread time over available thread time since start, O(1). */
  #utilization(): number {
    const available = (performance.now() - this.#startedAt) * this.#pool.maxThreads;
    if (this.#busyMs === 0 || available <= 0) return 0;
    return Math.round(Math.min(1, this.#busyMs / available) * 1000) / 1000;
  }

  health(): WorkerPoolHealth {
    const p = this.#pool;
    return {
      status: p.threads.length < p.options.minThreads ? 'degraded' : 'ok',
      threads: p.threads.length,
      maxThreads: p.maxThreads,
      running: Math.max(0, this.#slots.busy - p.queueSize),
      queueSize: this.#queued(),
      maxQueue: this.#slots.maxQueue,
      maxQueuePerKey: this.#slots.maxQueuePerKey,
      waitingKeys: this.#slots.waitingKeys,
      utilization: this.#utilization(),
      completed: p.completed,
      failed: this.#failed,
      crashed: this.#crashed,
      abandoned: { finished: this.#abandonedFinished, cutShort: this.#abandonedCutShort },
      threadsEnded: this.#threadsEnded,
      ledgerLoadMs: Object.keys(this.#loads).length === 0 ? null : { ...this.#loads },
      devProver: this.#devProver,
    };
  }

  /**
   * Shutdown began: every task still waiting for a thread is refused now with 503 SHUTTING_DOWN,
   * and so is every new one; running tasks finish. Their callers' reservations, if any, are
   * theirs to release (a balance task that never started reserved nothing).
   */
  drain(): void {
    const refused = this.#slots.drain();
    if (refused + this.#slots.busy > 0) this.#log.info({ refused, running: this.#slots.busy }, 'shutting down: refused the tasks not yet started');
  }

  async close(): Promise<void> {
    this.#closing = true;
    // Nobody waits for these any more: their threads end now, not at the end of the grace period.
    for (const endNow of [...this.#inGrace]) endNow();
    await this.#pool.close();
  }
}
