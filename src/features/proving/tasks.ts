/**
 * Proving's worker tasks: what each takes and answers (declared on the pool's `TaskMap`), and the
 * module that runs them (worker/tasks/), which the app hands to the pool.
 */
import type { Era } from '../../infra/ledger/index.js';
import { tasksIn } from '../../infra/pool/tasks.js';

/** Which in-process prover a proving task uses (`upstream`/`native` never reach a worker). */
export type InProcessBackend = 'dev' | 'wasm';

interface ProveArgs {
  backend: InProcessBackend;
  /** MIDNIGHT_PP-layout key directory (wasm); empty for dev. */
  keyDir: string;
  /** The ledger era of the request's network: the ledger that parses the preimage and mock-proves (dev). */
  era: Era;
}

interface CheckArgs {
  backend: InProcessBackend;
  keyDir: string;
  era: Era;
}

declare module '../../infra/pool/tasks.js' {
  interface TaskMap {
    /** A proof-server `/prove` body → `midnight:proof-versioned:` bytes. */
    prove: { args: ProveArgs; result: Uint8Array };
    /** A proof-server `/check` body → `midnight:vec(option(u64)):` bytes. */
    check: { args: CheckArgs; result: Uint8Array };
    /** A tagged ZKIR source → its k. */
    k: { args: Record<string, never>; result: number };
  }
}

export const PROVING_TASKS = tasksIn(new URL('./worker/tasks/index.js', import.meta.url), ['prove', 'check', 'k']);
