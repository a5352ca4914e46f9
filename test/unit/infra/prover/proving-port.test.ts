import t from 'tap';
import { pino } from 'pino';
import { request } from 'undici';
import { provingPort } from '../../../../src/infra/prover/proving-port.js';
import { UpstreamBackend } from '../../../../src/features/proving/upstream-backend.js';
import { remoteProvingProvider } from '../../../../src/infra/prover/worker/remote-prover.js';
import { startStandIn } from '../../../fixtures/prover/stand-in.js';
import { ERAS, ledgerOf, preimagesOf, shieldedTx } from '../../../fixtures/prover/samples.js';

// MessagePorts work within one thread too: the worker half runs here, as a sponsorship task would run it.
for (const era of ERAS) {
  const L = ledgerOf(era);
  t.test(`ledger ${era}: a transaction proven in a worker through the main thread's upstream backend gets the proof server's proofs`, async (t) => {
    const standIn = await startStandIn();
    t.teardown(() => standIn.close());
    const backend = new UpstreamBackend({ url: standIn.url, timeoutMs: 10_000, logger: pino({ level: 'silent' }) });
    t.teardown(() => backend.close());
    const { port, close } = provingPort(backend, new AbortController().signal);
    t.teardown(close);

    const tx = shieldedTx(7n, era);
    const expected: Buffer[] = [];
    for (const { preimage, binding } of await preimagesOf(tx, era)) {
      const res = await request(`${standIn.url}/prove`, { method: 'POST', body: L.createProvingPayload(preimage, binding, undefined) });
      expected.push(Buffer.from(await res.body.arrayBuffer()));
    }
    const proven = await tx.prove(remoteProvingProvider(port, era), L.CostModel.initialCostModel());
    const offer = proven.guaranteedOffer!;
    t.same([Buffer.from(offer.inputs[0]!.proof.serialize()), Buffer.from(offer.outputs[0]!.proof.serialize())], expected);
    t.ok(proven.bind().serialize().length > 0, 'binds');

    await standIn.setMode('busy');
    await t.rejects(
      shieldedTx(8n, era).prove(remoteProvingProvider(port, era), L.CostModel.initialCostModel()),
      /The proof server is busy/,
      'backend errors reach the worker with their message',
    );
  });
}

t.test('closing the port fails calls still waiting', async (t) => {
  const never = { prove: () => new Promise<Uint8Array>(() => undefined) } as unknown as UpstreamBackend;
  const { port, close } = provingPort(never, new AbortController().signal);
  const pending = shieldedTx(9n).prove(remoteProvingProvider(port, 9), ledgerOf(9).CostModel.initialCostModel());
  setImmediate(close);
  await t.rejects(pending, /the proving port closed before the prover answered/);
});
