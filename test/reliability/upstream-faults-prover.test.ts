/**
 * One proof server going through every fault in turn — down, back, slow, busy (429 and 503),
 * failing, answering junk, rejecting, resetting the connection — with one nightgate in front:
 * each fault gets its documented status, /health says degraded while it lasts, and the next
 * good answer recovers everything without a restart. (Each status alone, against the stand-in
 * process: test/integration/prover-upstream.test.ts.)
 */
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { mountProver } from '../../src/features/proving/index.js';
import { checkBody, proveBody } from '../fixtures/prover/samples.js';
import { upstreamConfig } from '../fixtures/prover/apps.js';
import { call, OCTET_KEYED, type Answer } from './helpers/apps.js';
import { ProofServerStub, STUB_FAULTS } from './helpers/proof-server-stub.js';

const TIMEOUT_MS = 400;

t.test('every proof-server fault, then recovery without a restart', async (t) => {
  const stub = await ProofServerStub.start();
  t.teardown(() => stub.stop());
  const s = await startApp(upstreamConfig(stub.url, { timeoutMs: TIMEOUT_MS }), { modules: [mountProver] });
  t.teardown(() => s.close());
  let n = 0;
  // A new body each time: the result cache would answer a repeat without asking upstream.
  const prove = (): Promise<Answer> => call(`${s.url}/prove`, { method: 'POST', headers: OCTET_KEYED, body: proveBody(undefined, BigInt(++n)) });
  const status = (): string =>
    (s.app.health() as { components: { prover: { networks: { preview: { status: string } } } } }).components.prover.networks.preview.status;
  const healthy = async (what: string): Promise<void> => {
    const r = await prove();
    t.equal(r.status, 200, `${what}: proofs again`);
    t.equal(status(), 'ok', `${what}: /health ok again`);
    const v = await call(`${s.url}/verify`, { method: 'POST', headers: OCTET_KEYED, body: checkBody() });
    t.equal(v.status, 200, `${what}: /verify too`);
  };
  await healthy('at start');

  await stub.stop();
  const down = await prove();
  t.equal(down.status, 502);
  t.equal(down.json?.['code'], 'PROVER_UNREACHABLE');
  t.match(down.json?.['message'], /could not be reached \(ECONNREFUSED\)/);
  const relay = await call(`${s.url}/version`, { headers: OCTET_KEYED });
  t.equal(relay.status, 502, '/version relays the outage as 502');
  t.equal(status(), 'degraded');
  await stub.restart();
  await healthy('proof server back on the same port');

  stub.latencyMs = 3 * TIMEOUT_MS;
  const slow = await prove();
  t.equal(slow.status, 504);
  t.equal(slow.json?.['code'], 'PROVER_TIMEOUT');
  t.equal(status(), 'degraded');
  stub.latencyMs = 0;
  await healthy('proof server fast again');

  for (const [mode, code, name, retryAfter] of STUB_FAULTS) {
    stub.mode = mode;
    const r = await prove();
    t.equal(r.status, code, `${mode} → ${code}`);
    t.equal(r.json?.['code'], name, `${mode} → ${name}`);
    t.ok(typeof r.json?.['message'] === 'string' && (r.json['message'] as string).length > 10, `${mode}: a reason is given`);
    t.equal(r.headers['retry-after'], retryAfter, `${mode}: Retry-After ${retryAfter ?? 'absent'}`);
    t.equal(r.headers['x-prover'], 'upstream', `${mode}: labelled with the backend`);
    stub.mode = 'ok';
    await healthy(`after ${mode}`);
  }
  t.equal(s.app.server.inFlight, 0, 'nothing left in flight');
});
