/**
 * The one port a sponsorship task gets. Before anything is reserved the worker asks the main
 * thread two questions over it: are the transaction's unshielded inputs unspent and their signers'
 * (input-check.ts), and does the key's policy pay for what the transaction does (policy/gate.ts).
 * Anything else on the port is a proof call, passed to the proving port when the network proves
 * on the main thread (upstream, native) and its answers passed back.
 *
 * An answer is `{ask, ok}` or `{ask, ok: false, code, message, headers?, rule?}`: a refusal crosses
 * as the error the main thread threw. Answers carry no `id`, so the proving provider on the same
 * port ignores them.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { GatewayError, toGatewayError, type ErrorCode } from '../../core/errors.js';
import type { ProvingPort } from '../../infra/prover/proving-port.js';
import { transferListFor, type ProvingReply } from '../../infra/pool/tasks.js';
import type { UnshieldedInput } from './input-check.js';
import type { TxEffects } from './policy/effects.js';

/** The questions, by name, with what each carries. */
export interface TaskQuestions {
  inputs: UnshieldedInput[];
  policy: TxEffects;
}

type Question = keyof TaskQuestions;
export type TaskAnswerers = { [Q in Question]?: (payload: TaskQuestions[Q]) => Promise<void> };

interface Ask {
  ask: number;
  question: Question;
  payload: unknown;
}

type Answer = { ask: number; ok: true } | { ask: number; ok: false; code: ErrorCode; message: string; headers?: Record<string, string>; rule?: string };

const isAsk = (msg: unknown): msg is Ask => typeof msg === 'object' && msg !== null && 'ask' in msg && 'question' in msg;

/** What a question the task got no answer to fails with: the check could not be made, nothing is reserved. */
const UNANSWERED: Record<Question, () => GatewayError> = {
  inputs: () => new GatewayError('INPUTS_UNCHECKED', 'the task ended before its inputs were checked', { headers: { 'Retry-After': '5' } }),
  policy: () => new GatewayError('INTERNAL', "the task ended before the key's policy was checked"),
};

export interface TaskPort {
  port: MessagePort;
  close(): void;
}

/** Main thread: the task's port, its questions answered by `answerers`, proof calls passed to `proving`. */
export function sponsorTaskPort(answerers: TaskAnswerers, proving: ProvingPort | undefined): TaskPort {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (msg: unknown) => {
    if (isAsk(msg)) {
      const reply = (r: Answer): void => port1.postMessage(r);
      const answer = answerers[msg.question] as ((payload: unknown) => Promise<void>) | undefined;
      (answer ? answer(msg.payload) : Promise.reject(UNANSWERED[msg.question]())).then(
        () => reply({ ask: msg.ask, ok: true }),
        (err: unknown) => {
          const e = toGatewayError(err);
          reply({ ask: msg.ask, ok: false, code: e.code, message: e.message, ...(e.headers ? { headers: { ...e.headers } } : {}), ...(e.rule === undefined ? {} : { rule: e.rule }) });
        },
      );
      return;
    }
    const body = (msg as { body?: Uint8Array }).body;
    proving?.port.postMessage(msg, transferListFor(body));
  });
  proving?.port.on('message', (r: ProvingReply) => port1.postMessage(r, r.ok ? transferListFor(r.bytes) : []));
  return {
    port: port2,
    close: () => {
      port1.close();
      proving?.close();
      proving?.port.close();
    },
  };
}

export type RemoteAsk = <Q extends Question>(question: Q, payload: TaskQuestions[Q]) => Promise<void>;

/** Worker side: asks the main thread over the task's port; resolves when it agrees, rejects with its refusal. */
export function remoteAsk(port: MessagePort): RemoteAsk {
  let next = 0;
  const pending = new Map<number, { question: Question; resolve(): void; reject(e: Error): void }>();
  port.on('message', (r: Answer) => {
    if (typeof r !== 'object' || r === null || !('ask' in r)) return;
    const p = pending.get(r.ask);
    pending.delete(r.ask);
    if (!p) return;
    if (r.ok) p.resolve();
    else p.reject(new GatewayError(r.code, r.message, { ...(r.headers ? { headers: r.headers } : {}), ...(r.rule === undefined ? {} : { rule: r.rule }) }));
  });
  port.on('close', () => {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(UNANSWERED[p.question]());
    }
  });
  return (question, payload) =>
    new Promise<void>((resolve, reject) => {
      const id = ++next;
      pending.set(id, { question, resolve, reject });
      port.postMessage({ ask: id, question, payload } satisfies Ask);
    });
}
