/**
 * A prover backend answers the proof server's requests (midnight-ledger `proof-server`), body in,
 * body out, in the proof server's wire format. Each one stands behind the same contract as the
 * ledger's `ProvingProvider` (`check`, `prove`): for a request built by `createProvingPayload` /
 * `createCheckPayload` it returns exactly what a proof server returns for it, which the official
 * clients hand back to `tx.prove(provider)` unchanged.
 *
 *   upstream  a real proof server over HTTP (upstream-backend.ts)
 *   native    nightgate's own supervised midnight-proof-server, then upstream (native-backend.ts)
 *   wasm/dev  zkir-v2 / mock-shaped proofs in the worker pool (pool-backend.ts; the workers hold
 *             them as ledger `ProvingProvider`s: src/infra/prover/worker/providers.ts)
 *
 * A body of a version nightgate does not read (a V3 preimage, a ZKIR v3 circuit) goes to the proof
 * server backends unchanged; the in-process ones refuse it (`inProcessVersions`).
 */
import type { ComponentHealth } from '../app-context.js';
import type { ProverBackendName } from '../../core/config/index.js';
import type { Era } from '../ledger/index.js';

/** A small GET answer relayed as is (status, body, type) — /version, /ready, /proof-versions. */
export interface Relayed {
  status: number;
  body: Uint8Array | string;
  contentType: string;
  headers?: Record<string, string>;
}

/** How a proving call relates to shutdown. */
export interface CallOptions {
  /**
   * The call is a step of a task already running (a sponsorship's balance task proving through
   * its proving port): `drain()` neither refuses it nor drops it from a queue, so the started
   * request can complete.
   */
  taskStarted?: boolean;
  /** Called once when the work starts (a worker thread or proof-server connection is its): the wait ends there (/metrics). */
  onStart?: () => void;
  /**
   * The ledger era of the request's network. The in-process backends parse and mock-prove with
   * that era's ledger; a proof server serves its own era whatever this says.
   */
  era?: Era;
  /** The API key the call works for: the in-process backends' worker pool shares its threads fairly between keys. */
  key?: string;
}

export interface ProvingQueue {
  waiting: number;
  capacity: number;
}

export interface ProverBackend {
  readonly name: ProverBackendName;
  /**
   * The proof versions an in-process backend proves (`["V2"]`): its `/proof-versions` answer, and
   * what it is sent — a body of any other version is refused with 400. Absent for a proof server
   * (upstream, native), which answers `/proof-versions` itself and is sent unchanged the bodies
   * nightgate does not read.
   */
  readonly inProcessVersions?: readonly string[];
  /** A `/prove` body → `midnight:proof-versioned:` bytes. */
  prove(body: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<Uint8Array>;
  /** A `/check` body → `midnight:vec(option(u64)):` bytes. */
  check(body: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<Uint8Array>;
  /** A tagged ZKIR source → its k, as the text the proof server answers. */
  k(ir: Uint8Array, signal: AbortSignal, opts?: CallOptions): Promise<string>;
  version(signal: AbortSignal): Promise<Relayed>;
  ready(signal: AbortSignal): Promise<Relayed>;
  /** What the prover answers at `/proof-versions`: the proof versions it proves. */
  proofVersions(signal: AbortSignal): Promise<Relayed>;
  health(): ComponentHealth;
  /** Work waiting for its turn now (a worker thread or a proof-server connection), and how much may wait before 503 QUEUE_FULL. */
  queue(): ProvingQueue;
  /**
   * Readiness: why this backend cannot prove now (a short phrase, no URL), or undefined when it
   * can. The proof-server backends ask the proof server; in-process ones have nothing to wait for.
   */
  readiness?(): Promise<string | undefined>;
  /**
   * Shutdown began: refuse at once, with 503 SHUTTING_DOWN, every call waiting for its turn and
   * every new one (but `taskStarted`); calls in progress finish. The in-process backends have
   * nothing to do: their queue is the worker pool's, drained as its own component.
   */
  drain?(): void;
  close(): Promise<void>;
}

export const TEXT_TYPE = 'text/plain; charset=utf-8';

/** `GET /ready` in the proof server's shape (`endpoints.rs`, `ReadyResponse`). */
export function readyBody(busy: boolean, processing: number, pending: number, capacity: number, now: number, extra: Record<string, unknown>): Relayed {
  return {
    status: busy ? 503 : 200,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify({
      status: busy ? 'busy' : 'ok',
      jobsProcessing: processing,
      jobsPending: pending,
      jobCapacity: capacity,
      timestamp: new Date(now).toISOString(),
      ...extra,
    }),
  };
}
