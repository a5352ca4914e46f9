/**
 * The in-process backends, `wasm` and `dev`: requests run as tasks on the shared worker pool
 * (features/proving/worker/tasks/prove.ts, check.ts, k.ts). The request body is moved to the worker, not copied, when
 * the request owns its buffer.
 *
 * `dev` serves mock-shaped proofs (src/infra/prover/worker/dev-proofs.ts) and is only ever configured for a
 * network served by the embedded devnet (src/core/config/index.ts refuses anything else).
 *
 * Both prove V2 preimages only, on either ledger era: the ledger packages read no other version,
 * and zkir-v2 reads ZKIR v2 circuits only. A V3 preimage (Compact 0.37) needs a proof server 9.
 */
import type { ComponentHealth } from '../../infra/app-context.js';
import type { Clock } from '../../core/clock.js';
import { PACKAGE } from '../../core/version.js';
import { TEXT_TYPE, readyBody, type CallOptions, type ProverBackend, type ProvingQueue, type Relayed } from '../../infra/prover/backend.js';
import { GatewayError } from '../../core/errors.js';
import { DEFAULT_ERA } from '../../infra/ledger/index.js';
import { transferListFor, type TaskArgs, type TaskResult } from '../../infra/pool/tasks.js';
import type { InProcessBackend } from './tasks.js';
import type { WorkerPool } from '../../infra/pool/worker-pool.js';

interface PoolBackendOptions {
  name: InProcessBackend;
  pool: WorkerPool;
  clock: Clock;
  /** MIDNIGHT_PP-layout directory (wasm). */
  keyDir: string;
  /** Longest one task may run (`prover.timeoutMs`). */
  timeoutMs: number;
  /** What the key directory holds, for health (wasm). */
  keyReport?: Record<string, unknown>;
}

/** What the in-process backends prove, whichever the network's ledger era. */
const IN_PROCESS_VERSIONS: readonly string[] = Object.freeze(['V2']);

/** How a refusal at shutdown names each task's work. */
const WORK = { prove: 'the proof', check: 'the check', k: 'the k computation' } as const;

export class PoolBackend implements ProverBackend {
  readonly name: InProcessBackend;
  readonly inProcessVersions = IN_PROCESS_VERSIONS;
  readonly #pool: WorkerPool;
  readonly #clock: Clock;
  readonly #keyDir: string;
  readonly #keyReport: Record<string, unknown> | undefined;
  readonly #timeoutMs: number;

  constructor(opts: PoolBackendOptions) {
    this.name = opts.name;
    this.#pool = opts.pool;
    this.#clock = opts.clock;
    this.#keyDir = opts.keyDir;
    this.#keyReport = opts.keyReport;
    this.#timeoutMs = opts.timeoutMs;
  }

  /**
   * Run a task. wasm proofs are bounded by `prover.timeoutMs`: past it the thread is ended (and
   * replaced) and the answer is 504. dev answers in about a millisecond, so it carries no
   * per-task timer (a 10-minute timer per request would pile up at high request rates).
   */
  async #run<K extends 'prove' | 'check' | 'k'>(task: K, args: TaskArgs<K>, data: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<TaskResult<K>> {
    const { onStart, key } = opts ?? {};
    const deadline = this.name === 'wasm' ? AbortSignal.timeout(this.#timeoutMs) : undefined;
    try {
      return await this.#pool.run(
        task,
        { args, data },
        {
          signal: deadline ? AbortSignal.any([signal, deadline]) : signal,
          transferList: transferListFor(data),
          work: WORK[task],
          ...(onStart ? { onStart } : {}),
          ...(key !== undefined ? { key } : {}),
        },
      );
    } catch (err) {
      if (deadline?.aborted && !signal.aborted) throw new GatewayError('PROVER_TIMEOUT', `The ${this.name} prover did not finish within ${this.#timeoutMs} ms`);
      throw err;
    }
  }

  prove(body: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<Uint8Array> {
    return this.#run('prove', this.#args(opts), body, signal, opts);
  }

  check(body: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<Uint8Array> {
    return this.#run('check', this.#args(opts), body, signal, opts);
  }

  #args(opts: CallOptions | undefined): TaskArgs<'prove'> {
    return { backend: this.name, keyDir: this.#keyDir, era: opts?.era ?? DEFAULT_ERA };
  }

  async k(ir: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<string> {
    return String(await this.#run('k', {}, ir, signal, opts));
  }

  async version(): Promise<Relayed> {
    return {
      status: 200,
      contentType: TEXT_TYPE,
      body: `nightgate/${PACKAGE.version} (${this.name} prover${this.name === 'dev' ? ', mock proofs' : ', zkir-v2'})`,
    };
  }

  async ready(): Promise<Relayed> {
    const h = this.#pool.health();
    const busy = h.maxQueue > 0 ? h.queueSize >= h.maxQueue : h.queueSize > 0;
    return readyBody(busy, h.running, h.queueSize, h.maxQueue, this.#clock.now(), { prover: this.name });
  }

  /** What this backend proves (a proof server's answer of the same shape), on either era. */
  async proofVersions(): Promise<Relayed> {
    return { status: 200, contentType: TEXT_TYPE, body: JSON.stringify(this.inProcessVersions) };
  }

  /** The pool's queue, shared with the other tasks (balance tasks included). */
  queue(): ProvingQueue {
    const h = this.#pool.health();
    return { waiting: h.queueSize, capacity: h.maxQueue };
  }

  health(): ComponentHealth {
    const pool = this.#pool.health();
    return {
      status: pool.status,
      ...(this.name === 'dev'
        ? { mockProofs: true, note: 'dev backend: proofs are mock-shaped and never verify' }
        : { keyDir: this.#keyDir, keys: this.#keyReport }),
    };
  }

  async close(): Promise<void> {
    // The pool is the app's component and closes itself.
  }
}
