/**
 * Proving metrics on the upstream backend: wait and run time from the moment a
 * proof-server connection is the call's, outcomes by code, the queue's depth and capacity, and
 * nightgate_prover_up following the proof server's readiness.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { sample } from '../../helpers/metrics-text.js';
import { startStandIn } from '../../fixtures/prover/stand-in.js';
import { upstreamConfig, OCTET_HEADERS } from '../../fixtures/prover/apps.js';
import { proveBody } from '../../fixtures/prover/samples.js';
import { mountProver } from '../../../src/features/proving/index.js';

t.test('upstream: run time, outcome codes, queue gauges, prover_up', async (t) => {
  const standIn = await startStandIn();
  t.teardown(() => standIn.close());
  const s = await startApp(upstreamConfig(standIn.url, { queueSize: 7 }), { modules: [mountProver] });
  t.teardown(() => s.close());
  const prove = async (): Promise<number> => {
    const r = await request(`${s.url}/prove`, {
      method: 'POST',
      headers: { ...OCTET_HEADERS, 'x-api-key': TEST_KEY, 'x-midnight-network': 'preprod' },
      body: proveBody(),
    });
    await r.body.dump();
    return r.statusCode;
  };
  t.equal(await prove(), 200);
  let text = await (await request(`${s.url}/metrics`)).body.text();
  const labels = { kind: 'prove', backend: 'upstream', network: 'preprod' };
  t.equal(sample(text, 'nightgate_proofs_total', { ...labels, cache: 'MISS', outcome: 'ok' }), 1);
  t.equal(sample(text, 'nightgate_proving_run_seconds_count', labels), 1);
  t.equal(sample(text, 'nightgate_proving_wait_seconds_count', labels), 1);
  t.equal(sample(text, 'nightgate_proving_queue_depth', { backend: 'upstream' }), 0);
  t.equal(sample(text, 'nightgate_proving_queue_capacity', { backend: 'upstream' }), 7);
  t.equal(sample(text, 'nightgate_prover_up', { network: 'preprod', backend: 'upstream' }), 1);

  await standIn.close();
  // The readiness probe is reused for 3 s (probe-cache.ts): a fresh app reads the stopped server at once.
  const after = await startApp(upstreamConfig(standIn.url), { modules: [mountProver] });
  t.teardown(() => after.close());
  const r = await request(`${after.url}/prove`, { method: 'POST', headers: { ...OCTET_HEADERS, 'x-api-key': TEST_KEY }, body: proveBody() });
  t.equal(r.statusCode, 502);
  await r.body.dump();
  text = await (await request(`${after.url}/metrics`)).body.text();
  t.equal(sample(text, 'nightgate_prover_up', { network: 'preview', backend: 'upstream' }), 0, 'down once the proof server is gone');
  t.equal(sample(text, 'nightgate_proofs_total', { kind: 'prove', backend: 'upstream', network: 'preview', cache: 'MISS', outcome: 'PROVER_UNREACHABLE' }), 1);
  t.equal(sample(text, 'nightgate_proving_run_seconds_count', { kind: 'prove', backend: 'upstream', network: 'preview' }), 1, 'a failed call still ran');
  t.match(
    after.logs.lines.find((l) => l['audit'] === 'proof'),
    { outcome: 'PROVER_UNREACHABLE', backend: 'upstream', keyId: 'env-1' },
  );
  t.match(
    after.logs.lines.find((l) => l['msg'] === 'request' && l['status'] === 502),
    { level: 50, code: 'PROVER_UNREACHABLE' },
  );
});
