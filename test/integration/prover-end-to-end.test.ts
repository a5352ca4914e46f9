// The official client, unmodified (@midnight-ntwrk/midnight-js-http-client-proof-provider), proving
// ledger-v8 transactions through nightgate: on the dev backend, and on the upstream backend in
// front of the stand-in proof server.
import t from 'tap';
import { request } from 'undici';
import { httpClientProofProvider, httpClientProvingProvider } from '@midnight-ntwrk/midnight-js-http-client-proof-provider';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { mountProver } from '../../src/prover/index.js';
import { startStandIn } from '../fixtures/prover/stand-in.js';
import { upstreamConfig } from '../fixtures/prover/apps.js';
import { L, noZkConfig, preimageAt, preimagesOf, proveBody, shieldedTx } from '../fixtures/prover/samples.js';

const HEADERS = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };

t.test('dev backend', async (t) => {
  const s = await startApp({ prover: { threads: 1 } }, { modules: [mountProver] });
  t.teardown(() => s.close());

  t.test('the official client proves a ledger-v8 transaction; it binds and round-trips', async (t) => {
    const unproven = shieldedTx();
    const provider = httpClientProofProvider(s.url, noZkConfig(), { headers: { 'x-api-key': TEST_KEY } });
    const proven = await provider.proveTx(unproven);
    const wire = proven.bind().serialize();
    const back = L.Transaction.deserialize<L.SignatureEnabled, L.Proof, L.Binding>('signature', 'proof', 'binding', wire);
    t.match(back.transactionHash(), /^[0-9a-f]{64}$/, 'a finalized transaction with a hash');
    // The proofs are exactly the ledger's own mock shapes for those circuits.
    const mock = unproven.mockProve().guaranteedOffer!;
    t.same(back.guaranteedOffer!.inputs[0]!.proof.serialize(), mock.inputs[0]!.proof.serialize(), 'spend proof = mockProve shape');
    t.same(back.guaranteedOffer!.outputs[0]!.proof.serialize(), mock.outputs[0]!.proof.serialize(), 'output proof = mockProve shape');
    const params = L.LedgerState.blank('undeployed').parameters;
    t.equal(proven.fees(params), unproven.mockProve().fees(params), 'fees as for a really proven transaction');
  });

  t.test('answers and errors are labelled X-Prover: dev; health says mock proofs are served', async (t) => {
    const res = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(), headers: HEADERS });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['x-prover'], 'dev');
    t.equal(res.headers['x-midnight-network'], 'preview');
    t.equal(Buffer.from(await res.body.arrayBuffer()).subarray(0, 25).toString('latin1'), 'midnight:proof-versioned:');
    const bad = await request(`${s.url}/prove?network=preprod`, { method: 'POST', body: Buffer.from('garbage'), headers: HEADERS });
    t.equal(bad.statusCode, 400);
    t.equal(bad.headers['x-prover'], 'dev', 'errors are labelled too');
    await bad.body.dump();
    const contract = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(preimageAt('counter/increment')), headers: HEADERS });
    t.equal(contract.statusCode, 400);
    t.match(await contract.body.json(), { code: 'DEV_PROVER_UNSUPPORTED_CIRCUIT', error: 'Bad Request', message: /counter\/increment needs a real prover/ });
    const health = s.app.health() as { components: Record<string, Record<string, unknown>> };
    t.equal(health.components['worker-pool']!['devProver'], true);
    t.equal(health.components['prover']!['devProver'], true);
    t.match(health.components['prover']!['networks'], { preview: { backend: 'dev', mockProofs: true } });
  });
});

t.test('upstream backend: the official client gets the proof server\'s bytes unchanged', async (t) => {
  const standIn = await startStandIn();
  t.teardown(() => standIn.close());
  const s = await startApp(upstreamConfig(standIn.url), { modules: [mountProver] });
  t.teardown(() => s.close());

  const tx = shieldedTx(5n);
  const direct = httpClientProvingProvider(standIn.url, noZkConfig());
  const via = httpClientProvingProvider(s.url, noZkConfig(), { headers: { 'x-api-key': TEST_KEY } });
  for (const { keyLocation, preimage, binding } of await preimagesOf(tx)) {
    const a = await direct.prove(preimage, keyLocation, binding);
    const b = await via.prove(preimage, keyLocation, binding);
    t.same(Buffer.from(b), Buffer.from(a), `${keyLocation}: identical bytes`);
  }
  const proven = await httpClientProofProvider(s.url, noZkConfig(), { headers: { 'x-api-key': TEST_KEY } }).proveTx(tx);
  const back = L.Transaction.deserialize<L.SignatureEnabled, L.Proof, L.Binding>('signature', 'proof', 'binding', proven.bind().serialize());
  t.equal(Buffer.from(back.guaranteedOffer!.outputs[0]!.proof.serialize()).subarray(0, 25).toString('latin1'), 'midnight:proof-versioned:', 'the transaction carries the stand-in\'s proofs');
  // Two direct calls, two through nightgate; proveTx then asks for the same two proofs: cache hits.
  t.equal((await standIn.calls())['/prove'], 4, 'the repeats came from nightgate\'s cache');
});
