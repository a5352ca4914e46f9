import { once } from 'node:events';
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { mountProver, PROVER_COMPONENT, type ProverComponent } from '../../src/features/proving/index.js';
import type { NativeBackend } from '../../src/features/proving/native-backend.js';
import { STAND_IN } from '../fixtures/prover/stand-in.js';
import { proveBody } from '../fixtures/prover/samples.js';

const HEADERS = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };
const native = (prover: Record<string, unknown>) => ({
  prover: { nativeBinary: STAND_IN, nativePort: 0, ...prover },
  networks: { mainnet: { prover: 'native' as const }, preprod: { prover: 'native' as const }, preview: { prover: 'native' as const } },
});

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

t.test('native: spawns the proof server, waits for /ready, proves through it, restarts it when it dies, stops it on close', async (t) => {
  const s = await startApp(native({}), { modules: [mountProver] });
  t.teardown(() => s.close());
  const backend = s.app.context.component<ProverComponent>(PROVER_COMPONENT)!.backend('preview') as NativeBackend;
  const sup = backend.supervisor;
  await sup.whenReady();
  const first = sup.pid!;
  t.ok(first > 0, 'a child process');

  const body = proveBody();
  const direct = Buffer.from(await (await request(`${sup.url}/prove`, { method: 'POST', body })).body.arrayBuffer());
  let res = await request(`${s.url}/prove`, { method: 'POST', body, headers: HEADERS });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['x-prover'], 'native');
  t.same(Buffer.from(await res.body.arrayBuffer()), direct, "the child's bytes");

  const exited = once(sup, 'exit');
  const readyAgain = once(sup, 'ready');
  process.kill(first, 'SIGKILL');
  const [pid, , signal] = await exited;
  t.same([pid, signal], [first, 'SIGKILL']);
  res = await request(`${s.url}/ready`, { headers: HEADERS });
  t.equal(res.statusCode, 503, 'while it restarts');
  t.equal(res.headers['retry-after'], '5');
  t.match(await res.body.json(), { code: 'PROVER_UNAVAILABLE' });
  const [second] = await readyAgain;
  t.not(second, first, 'a new process');
  res = await request(`${s.url}/prove?network=mainnet`, { method: 'POST', body: proveBody(undefined, 9n), headers: HEADERS });
  t.equal(res.statusCode, 200, 'proving again');
  await res.body.dump();
  t.match(s.app.health(), { components: { prover: { networks: { preview: { backend: 'native', status: 'ok', process: { state: 'ready', restarts: 1 } } } } } });

  await s.close();
  t.ok(gone(second), 'stopped on close');
  t.equal(sup.state, 'stopped');
});

t.test('a proof server that ignores SIGTERM is killed after the grace period', async (t) => {
  const s = await startApp(native({ nativeArgs: ['--ignore-sigterm'], nativeStopGraceMs: 200 }), { modules: [mountProver] });
  const sup = (s.app.context.component<ProverComponent>(PROVER_COMPONENT)!.backend('preview') as NativeBackend).supervisor;
  await sup.whenReady();
  const pid = sup.pid!;
  await s.close();
  t.ok(gone(pid));
  t.same(sup.lastExit, { code: null, signal: 'SIGKILL' });
});

t.test('an unusable binary stops start-up with a message saying what to fix', async (t) => {
  await t.rejects(startApp(native({ nativeBinary: '/nonexistent/midnight-proof-server' }), { modules: [mountProver] }), {
    code: 'PROVER_BINARY_NOT_FOUND',
    message:
      'midnight-proof-server not found at /nonexistent/midnight-proof-server (prover.nativeBinary (NIGHTGATE_PROVER_BINARY)); ' +
      'install it there or point the setting at it',
  });
});
