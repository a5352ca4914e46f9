/**
 * The main-thread half of a proving port: lets a worker task that proves a whole transaction
 * (sponsorship: `tx.prove(provider, costModel)` on the merged transaction) reach the backends that
 * live on the main thread — `upstream` and `native` own undici pools and a child process, which a
 * worker must not duplicate. The worker half is src/infra/prover/worker/remote-prover.ts.
 *
 *   const { port, close } = provingPort(prover.backend(network), ctx.signal);
 *   try { await pool.run('balance', { args, data, port }, { signal: ctx.signal }); } finally { close(); }
 *
 * Each request is one proof-server call, answered as the backend answers it; errors cross back
 * with their catalogue code. Calls stop with `signal` (the client leaving), and that answer is
 * sent too: the task is waiting for it, and only a task that ends within `prover.abortGraceMs`
 * keeps its thread (worker-pool.ts). They come from a task that is running, so a shutdown lets
 * them through (`taskStarted`): the task can finish.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { toGatewayError, type ErrorCode } from '../../core/errors.js';
import type { CallOptions, ProverBackend } from './backend.js';

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
export type ProvingReply =
  | { id: number; ok: true; bytes: Uint8Array }
  | { id: number; ok: false; code: ErrorCode; message: string; headers?: Record<string, string> };

export interface ProvingPort {
  /** Hand to the task (`TaskPayload.port`); it is moved to the worker. */
  port: MessagePort;
  /** Stop serving: pending worker calls fail, the worker's provider sees the port close. */
  close(): void;
}

const STARTED: CallOptions = { taskStarted: true };

export function provingPort(backend: ProverBackend, signal: AbortSignal): ProvingPort {
  const { port1, port2 } = new MessageChannel();
  // Posting to a port the task side has closed does nothing.
  const reply = (r: ProvingReply): void => port1.postMessage(r);
  port1.on('message', (req: ProvingRequest) => {
    const call = req.op === 'prove' ? backend.prove(req.body, signal, STARTED) : backend.check(req.body, signal, STARTED);
    call.then(
      (bytes) => reply({ id: req.id, ok: true, bytes }),
      (err: unknown) => {
        const e = toGatewayError(err);
        reply({ id: req.id, ok: false, code: e.code, message: e.message, ...(e.headers ? { headers: { ...e.headers } } : {}) });
      },
    );
  });
  return { port: port2, close: () => port1.close() };
}
