/**
 * The upstream backend at shutdown: `drain()` refuses every call still waiting for a connection,
 * and every new one, with 503 SHUTTING_DOWN and a reason — none of them reaches the proof server —
 * while the calls at the proof server complete, and so do the proofs of a task already running
 * (a sponsorship proving through its proving port). (The whole process at shutdown:
 * test/reliability/shutdown-under-load.test.ts.)
 */
import t from 'tap';
import { pino } from 'pino';
import { provingPort } from '../../src/infra/prover/proving-port.js';
import type { ProvingReply } from '../../src/infra/prover/proving-port.js';
import { UpstreamBackend } from '../../src/features/proving/upstream-backend.js';
import { hasTag } from '../../src/features/proving/wire/wire.js';
import { checkBody, proveBody } from '../fixtures/prover/samples.js';
import { ProofServerStub } from '../reliability/helpers/proof-server-stub.js';

const refused = (what: string) => ({ code: 'SHUTTING_DOWN', status: 503, message: `The server is shutting down; ${what} was not started` });

t.test('drain: waiting calls refused at once, new ones too; calls at the proof server and steps of started tasks complete', async (t) => {
  const stub = await ProofServerStub.start();
  t.teardown(() => stub.stop());
  stub.mode = 'hold';
  const backend = new UpstreamBackend({ url: stub.url, timeoutMs: 30_000, logger: pino({ level: 'silent' }), connections: 2, maxQueue: 8 });
  t.teardown(() => backend.close());
  const signal = new AbortController().signal;

  const twoHeld = stub.times('held', 2);
  const atProver = [1n, 2n].map((b) => backend.prove(proveBody(undefined, b), signal));
  await twoHeld;
  const waitingProofs = [3n, 4n].map((b) => backend.prove(proveBody(undefined, b), signal));
  const waitingCheck = backend.check(checkBody(), signal);
  const step = backend.prove(proveBody(undefined, 5n), signal, { taskStarted: true });
  t.match(backend.health(), { pending: 6 }, 'two at the proof server, four waiting for a connection');

  backend.drain();
  await Promise.all(waitingProofs.map((p) => t.rejects(p, refused('the proof'), 'a waiting proof is refused with the reason')));
  await t.rejects(waitingCheck, refused('the check'));
  await t.rejects(backend.prove(proveBody(undefined, 6n), signal), refused('the proof'), 'a new call is refused at once');
  await t.rejects(backend.version(signal), refused('the /version call to the proof server'), 'relayed calls too');
  t.match(backend.health(), { pending: 3 }, 'left: the two at the proof server and the step of a started task');

  // A running balance task proves through its port after the drain began: let through.
  const { port, close } = provingPort(backend, signal);
  t.teardown(close);
  const portReply = new Promise<ProvingReply>((resolve) => port.once('message', resolve));
  port.postMessage({ id: 1, op: 'prove', body: proveBody(undefined, 7n) });

  stub.mode = 'ok';
  stub.release();
  const proofs = await Promise.all([...atProver, step]);
  t.ok(
    proofs.every((p) => hasTag(p, 'proof')),
    "the calls at the proof server and the started task's step got their proofs",
  );
  const reply = await portReply;
  t.ok(reply.ok && hasTag(reply.bytes, 'proof'), 'and so did the proof sent through the proving port after the drain');
  t.equal(stub.count('/prove'), 4, 'the refused calls never reached the proof server');
  t.equal(stub.count('/check') + stub.count('/version'), 0);
  t.match(backend.health(), { status: 'ok', pending: 0 }, 'refusals are not upstream failures');
});
