/**
 * SIGTERM, twice, to the real process while proofs are in flight at an upstream proof server
 * (held there until the test releases them) and more wait inside nightgate for a connection: the
 * waiting proofs are refused at once with 503 SHUTTING_DOWN and a reason, without reaching the
 * proof server; no new connection is accepted; the in-flight proofs complete; the process exits 0
 * before the deadline.
 */
import { connect } from 'node:net';
import t from 'tap';
import { request } from 'undici';
import { NO_DEVNET_ENV, runCli } from '../helpers/spawn.js';
import { UPSTREAM_CONNECTIONS } from '../../src/features/proving/upstream-backend.js';
import { proveBody } from '../fixtures/prover/samples.js';
import { ProofServerStub } from './helpers/proof-server-stub.js';

const KEY = 'shutdown-test-key-0123456789';
const QUEUED = 6;
const DEADLINE_MS = 12_000;

t.test('SIGTERM twice under load: waiting proofs refused at once with a reason, in-flight proofs complete, exit 0 in time', async (t) => {
  const stub = await ProofServerStub.start();
  t.teardown(() => stub.stop());
  // Held, not slow: the in-flight proofs are still at the proof server whatever the machine's pace.
  stub.mode = 'hold';
  const p = runCli(['serve'], {
    ...NO_DEVNET_ENV,
    NIGHTGATE_PORT: '0',
    NIGHTGATE_API_KEYS: KEY,
    NIGHTGATE_BALANCING_ENABLED: 'false',
    NIGHTGATE_PREVIEW_PROVER_URL: stub.url,
    NIGHTGATE_PROVER_QUEUE_SIZE: String(QUEUED),
    NIGHTGATE_RATE_LIMIT: '100000',
    NIGHTGATE_SHUTDOWN_TIMEOUT_MS: String(DEADLINE_MS),
    NIGHTGATE_LOG_REQUESTS: 'errors',
  });
  t.teardown(() => {
    if (p.child.exitCode === null && p.child.signalCode === null) process.kill(p.child.pid!, 'SIGKILL');
  });
  const port = Number(/"port":(\d+)/.exec(await p.waitFor(/nightgate listening on/))![1]);
  const url = `http://127.0.0.1:${port}`;
  const prove = (i: number) =>
    request(`${url}/prove`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/octet-stream' },
      body: proveBody(undefined, BigInt(i + 1)),
    }).then(
      async (r) => ({ status: r.statusCode, body: await r.body.text() }),
      (err: Error) => ({ status: 0, body: err.message }),
    );

  const atProver = stub.times('held', UPSTREAM_CONNECTIONS);
  const inFlight = Array.from({ length: UPSTREAM_CONNECTIONS }, (_, i) => prove(i));
  await atProver;
  // These wait inside nightgate for a connection to the proof server.
  const waiting = Array.from({ length: QUEUED }, (_, i) => prove(1000 + i));
  const overflow = await prove(2000);
  t.equal(overflow.status, 503, 'beyond connections + queue: refused at once');
  t.match(overflow.body, /QUEUE_FULL/);

  const signalled = performance.now();
  process.kill(p.child.pid!, 'SIGTERM');
  await p.waitFor(/graceful shutdown/);
  // Signals of one kind sent back to back coalesce: the second goes once the first was seen.
  process.kill(p.child.pid!, 'SIGTERM');
  await p.waitFor(/shutdown already in progress/);
  const refused = await new Promise<string>((resolve) => {
    const sock = connect(port, '127.0.0.1', () => {
      sock.destroy();
      resolve('connected');
    });
    sock.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
  t.equal(refused, 'ECONNREFUSED', 'no new connection is accepted');

  // Refused as shutdown began, while every proof in flight is still held at the proof server.
  const late = await Promise.all(waiting);
  t.same(
    late.map((d) => d.status),
    Array(QUEUED).fill(503),
    'waiting proofs are refused at once',
  );
  t.same(
    late.map((d) => JSON.parse(d.body) as unknown),
    Array(QUEUED).fill({ error: 'Service Unavailable', message: 'The server is shutting down; the proof was not started', code: 'SHUTTING_DOWN' }),
    'each with the reason',
  );
  t.match(
    await p.waitFor(/refused the proof-server calls not yet sent/),
    new RegExp(`"refused":${QUEUED},"atProofServer":${UPSTREAM_CONNECTIONS}`),
    'logged: how many were refused and how many were at the proof server',
  );
  t.equal(stub.held, UPSTREAM_CONNECTIONS, 'answered while the in-flight proofs were still at the proof server');

  stub.mode = 'ok';
  stub.release();
  const done = await Promise.all(inFlight);
  t.same(
    done.map((d) => d.status),
    Array(UPSTREAM_CONNECTIONS).fill(200),
    'every proof in flight completed',
  );
  t.equal(stub.count('/prove'), UPSTREAM_CONNECTIONS, 'the refused proofs never reached the proof server');

  const { code } = await p.exited;
  const took = performance.now() - signalled;
  t.equal(code, 0, 'exit 0');
  t.ok(took < DEADLINE_MS, `exited ${Math.round(took)} ms after SIGTERM, before the ${DEADLINE_MS} ms deadline`);
  const text = p.out.join('\n');
  t.equal(text.match(/graceful shutdown/g)?.length, 1, 'shutdown ran once');
  t.equal(text.match(/shutdown already in progress/g)?.length, 1, 'the second signal was logged and ignored');
  t.match(text, /shutdown complete/);
  t.notMatch(text, new RegExp(KEY), 'the key never reaches the logs');
});
