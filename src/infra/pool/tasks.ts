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
 * Adding a task (e.g. sponsorship's `balance`), without touching this file:
 *   1. `features/sponsorship/worker/tasks/balance.ts` exports `balance = defineTask<'balance'>(async (args, data, shared, port) => …)`;
 *   2. `workers/index.ts` re-exports it;
 *   3. declare it, next to its argument types (TaskMap is an interface: module augmentation adds to it):
 *        declare module './tasks.js' {
 *          interface TaskMap { balance: { args: BalanceArgs; result: BalanceResult } }
 *        }
 *   4. call `ctx.component<WorkerPoolComponent>('worker-pool')!.run('balance', { args, data, shared, port }, { signal })`.
 * A task that proves a whole transaction gets its ledger `ProvingProvider` from
 * `provingProviderFor` (src/infra/prover/worker/providers.ts): dev and wasm run in the worker; upstream and
 * native answer through a proving port the caller opens with `provingPort(backend, signal)`.
 */
import type { MessagePort } from 'node:worker_threads';
import { Packr } from 'msgpackr';
import type { ErrorCode } from '../../core/errors.js';
import type { Era } from '../ledger/index.js';

/** Which in-process prover a proving task uses (`upstream`/`native` never reach a worker). */
export type InProcessBackend = 'dev' | 'wasm';

export interface ProveArgs {
  backend: InProcessBackend;
  /** MIDNIGHT_PP-layout key directory (wasm); empty for dev. */
  keyDir: string;
  /** The ledger era of the request's network: the ledger that parses the preimage and mock-proves (dev). */
  era: Era;
}

export interface CheckArgs {
  backend: InProcessBackend;
  keyDir: string;
  era: Era;
}

/** Task name → its arguments (msgpackr) and its result. `data` carries the request body. Augmentable. */
export interface TaskMap {
  /** A proof-server `/prove` body → `midnight:proof-versioned:` bytes. */
  prove: { args: ProveArgs; result: Uint8Array };
  /** A proof-server `/check` body → `midnight:vec(option(u64)):` bytes. */
  check: { args: CheckArgs; result: Uint8Array };
  /** A tagged ZKIR source → its k. */
  k: { args: Record<string, never>; result: number };
}

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

/**
 * A worker asking the main thread's prover backend (upstream, native) for one proof or check,
 * over a proving port. The body is a proof-server request built by the era's ledger in the worker.
 */
export interface ProvingRequest {
  id: number;
  op: 'prove' | 'check';
  body: Uint8Array;
}

/** A failure keeps its response headers (Retry-After of a busy proof server) across the thread boundary. */
export type ProvingReply = { id: number; ok: true; bytes: Uint8Array } | { id: number; ok: false; code: ErrorCode; message: string; headers?: Record<string, string> };

/** What the pool tells each thread it starts (piscina's `workerData`). */
export interface WorkerData {
  /** The ledger eras to load before the first task (src/infra/pool/worker/ledger.ts). */
  eras: Era[];
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
