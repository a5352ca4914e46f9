/**
 * The contract between the main thread and the piscina workers: which tasks exist, what each takes
 * and returns, and how a task crosses the thread boundary. Both sides import this file (it is
 * thread-agnostic: types and the msgpackr envelope only).
 *
 * A task travels as `TaskInput`: its small arguments packed with msgpackr (`args`), and its large
 * bytes (a transaction, a proving request) as `data`, which the caller may transfer instead of
 * copying. It answers with msgpackr bytes of a `TaskOutcome`: a value, or a catalogued error
 * code — so a worker's failure keeps its code and message across the boundary, which a thrown
 * Error (structured-cloned by piscina) would not.
 *
 * Adding a task, without touching this file:
 *   1. the feature's `worker/tasks/<name>.ts` exports `<name> = defineTask<'<name>'>(async (args, data, shared, port) => …)`,
 *      and its `worker/tasks/index.ts` re-exports it: piscina looks a task up by its export name;
 *   2. declare it next to its argument types (TaskMap is an interface: module augmentation adds to it):
 *        declare module '…/infra/pool/tasks.js' {
 *          interface TaskMap { balance: { args: BalanceArgs; result: BalanceResult } }
 *        }
 *   3. name its module in the feature's task table (`tasksIn`), which the feature's index.ts
 *      exports and the app hands to the pool;
 *   4. call `ctx.component<WorkerPoolComponent>('worker-pool')!.run('balance', { args, data, shared, port }, { signal })`.
 * A task that proves a whole transaction gets its ledger `ProvingProvider` from
 * `provingProviderFor` (src/infra/prover/worker/providers.ts): dev and wasm run in the worker; upstream and
 * native answer through a proving port the caller opens with `provingPort(backend, signal)`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MessagePort } from 'node:worker_threads';
import { Packr } from 'msgpackr';
import type { ErrorCode } from '../../core/errors.js';
import type { Era } from '../ledger/index.js';

/** Task name → its arguments (msgpackr) and its result. `data` carries the request body. Each feature declares its own. */
// biome-ignore lint/suspicious/noEmptyInterface: each feature adds its tasks by declaration merging, which a type alias cannot take
export interface TaskMap {}

export type TaskName = keyof TaskMap;
export type TaskArgs<K extends TaskName> = TaskMap[K]['args'];
export type TaskResult<K extends TaskName> = TaskMap[K]['result'];

/** What the caller hands to `run`: typed arguments plus optional bulk bytes, shared memory and a call-back port. */
export interface TaskPayload<K extends TaskName> {
  args: TaskArgs<K>;
  data?: Uint8Array;
  /** Shared with the worker, never copied (e.g. the DUST allocator table). */
  shared?: SharedArrayBuffer[];
  /** Moved to the worker: e.g. a proving port (proving-port.ts) for the main-thread backends. */
  port?: MessagePort;
}

/** What actually crosses to the worker. */
export interface TaskInput {
  args: Uint8Array;
  data: Uint8Array | undefined;
  shared: SharedArrayBuffer[] | undefined;
  port: MessagePort | undefined;
}

/** Each task's worker module: the file whose export of the task's name runs it. */
export type TaskModules = { readonly [K in TaskName]?: URL };

/**
 * The file a worker module URL names as it runs: the compiled `.js` from dist/, or the `.ts` source
 * beside its name when only that exists (tap runs the sources through tsx, and worker threads
 * inherit the loader).
 */
export function moduleFile(module: URL): string {
  const path = fileURLToPath(module);
  if (existsSync(path) || !path.endsWith('.js')) return path;
  const source = path.slice(0, -3) + '.ts';
  return existsSync(source) ? source : path;
}

/**
 * The task table of one worker module: `module` is its compiled path (`new URL('./x.js',
 * import.meta.url)`); the pool runs the `.ts` beside it when only that exists (tests run the sources).
 */
export function tasksIn<K extends TaskName>(module: URL, names: readonly K[]): { readonly [P in K]: URL } {
  return Object.fromEntries(names.map((n) => [n, module])) as { readonly [P in K]: URL };
}

/** What the pool tells each thread it starts (piscina's `workerData`). */
export interface WorkerData {
  /** The ledger eras to load before the first task (src/infra/pool/worker/ledger.ts). */
  eras: Era[];
  /** The task modules' files, loaded as the thread starts (src/infra/pool/worker/modules.ts). */
  modules?: string[];
}

/** Posted by each worker once its ledgers are loaded (src/infra/pool/worker/ledger.ts). */
export const WORKER_LOADED = 'nightgate:worker-loaded';
export interface WorkerLoadedMessage {
  type: typeof WORKER_LOADED;
  /** Load time of each era's ledger package on that thread, ms. */
  ledgerLoadMs: Partial<Record<Era, number>>;
}

export type TaskOutcome<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string; headers?: Record<string, string>; rule?: string };

/** `useRecords: false`: plain msgpack maps, no shared structure state between the threads. */
const packr = new Packr({ useRecords: false, moreTypes: true });

/**
 * msgpackr packs into a reused buffer and returns a view of it; copy out an exact-size array so
 * the bytes neither change under us nor drag the whole scratch buffer across threads.
 */
export function pack(value: unknown): Uint8Array {
  return new Uint8Array(packr.pack(value));
}

export function unpack<T>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}

/**
 * Transfer list for `data` when the caller owns its whole ArrayBuffer. A Buffer cut from Node's
 * shared allocation pool (small `Buffer.allocUnsafe`) must be copied, never transferred: moving
 * the pool would detach every other buffer carved from it.
 */
export function transferListFor(data: Uint8Array | undefined): ArrayBuffer[] {
  if (!data || !(data.buffer instanceof ArrayBuffer)) return [];
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? [data.buffer] : [];
}
