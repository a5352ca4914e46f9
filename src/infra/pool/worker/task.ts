/**
 * The worker half of the task envelope (src/infra/pool/tasks.ts): unpack the arguments, run the task,
 * pack its outcome. Expected failures are thrown as `GatewayError` (the one catalogue) and cross
 * back with their code and message; anything else is reported as INTERNAL with its message, so
 * the main thread can log it without sending it to the client.
 */
import type { MessagePort } from 'node:worker_threads';
import { GatewayError, isGatewayError } from '../../../core/errors.js';
import { pack, unpack, type TaskArgs, type TaskInput, type TaskName, type TaskOutcome, type TaskResult } from '../tasks.js';

type TaskFunction = (input: TaskInput) => Promise<Uint8Array>;

export function defineTask<K extends TaskName>(
  run: (args: TaskArgs<K>, data: Uint8Array | undefined, shared: SharedArrayBuffer[] | undefined, port: MessagePort | undefined) => Promise<TaskResult<K>>,
): TaskFunction {
  return async (input) => {
    let outcome: TaskOutcome<TaskResult<K>>;
    try {
      outcome = { ok: true, value: await run(unpack<TaskArgs<K>>(input.args), input.data, input.shared, input.port) };
    } catch (err) {
      outcome = isGatewayError(err)
        ? {
            ok: false,
            code: err.code,
            message: err.message,
            ...(err.headers ? { headers: { ...err.headers } } : {}),
            ...(err.rule === undefined ? {} : { rule: err.rule }),
          }
        : { ok: false, code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
    }
    return pack(outcome);
  };
}

/** The request body a task cannot do without. */
export function requireData(data: Uint8Array | undefined): Uint8Array {
  if (!data) throw new GatewayError('INVALID_BODY', 'the task needs a request body');
  return data;
}
