/**
 * The worker half of a proving port (src/infra/prover/proving-port.ts): a ledger `ProvingProvider` whose
 * proofs come from the main thread's `upstream` or `native` backend. Requests are the proof
 * server's own bodies, built here by the network's ledger (`createProvingPayload`,
 * `createCheckPayload`: both eras build the same bytes for the same preimage) and moved, not
 * copied. Built-in circuits only: no key material or IR is sent, the proof server resolves its
 * own (ledger 9 asks `lookupKey` for a contract circuit's keys, finds none, and refuses to prove it).
 */
import type { MessagePort } from 'node:worker_threads';
import { GatewayError } from '../../../core/errors.js';
import { provingProvider, type Era, type L as LT } from '../../ledger/index.js';
import { transferListFor } from '../../pool/tasks.js';
import type { ProvingReply, ProvingRequest } from '../proving-port.js';
import { L as ledgerOf } from '../../pool/worker/ledger.js';

export function remoteProvingProvider(port: MessagePort, era: Era): LT.ProvingProvider {
  const L = ledgerOf(era);
  let next = 0;
  const pending = new Map<number, { resolve(b: Uint8Array): void; reject(e: Error): void }>();
  // The port keeps its thread alive only while a call waits for an answer.
  const settle = (id: number): { resolve(b: Uint8Array): void; reject(e: Error): void } | undefined => {
    const p = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) port.unref();
    return p;
  };
  port.on('message', (r: ProvingReply) => {
    const p = settle(r.id);
    if (!p) return;
    if (r.ok) p.resolve(r.bytes);
    else p.reject(new GatewayError(r.code, r.message, r.headers ? { headers: r.headers } : undefined));
  });
  port.on('close', () => {
    for (const id of [...pending.keys()]) settle(id)?.reject(new GatewayError('PROVER_UNAVAILABLE', 'the proving port closed before the prover answered'));
  });
  port.unref();

  const call = (op: ProvingRequest['op'], body: Uint8Array): Promise<Uint8Array> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      if (pending.size === 0) port.ref();
      pending.set(id, { resolve, reject });
      port.postMessage({ id, op, body } satisfies ProvingRequest, transferListFor(body));
    });

  return provingProvider({
    check: async (preimage) => L.parseCheckResult(await call('check', L.createCheckPayload(preimage, undefined))),
    prove: (preimage, _keyLocation, bindingInput) => call('prove', L.createProvingPayload(preimage, bindingInput, undefined)),
  });
}
