/**
 * Two servers on one port: nightgate listens exclusively (no SO_REUSEPORT, which would let the
 * kernel split connections between two instances serving different chains), and when the port is
 * taken it exits at once with 1 and one line saying so — before starting the embedded devnets,
 * with no stack trace. The test waits only for the child's own exit.
 */
import { createServer, type Server } from 'node:net';
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { request } from 'undici';
import { runCli, NO_DEVNET_ENV } from '../../helpers/spawn.js';

function holdPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.destroy());
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

t.test('a port held by another program: exit 1 with a clear message, before any devnet starts', async (t) => {
  const { server, port } = await holdPort();
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const t0 = performance.now();
  // The embedded default: three devnets would start (seconds of ledger loading) if the port were not checked first.
  const p = runCli(['serve'], { NIGHTGATE_PORT: String(port), NIGHTGATE_DEVNET_BLOCK_TIME_MS: '60000' });
  t.teardown(() => {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });
  const { code } = await p.exited;
  const seconds = (performance.now() - t0) / 1000;
  const text = p.out.join('\n');
  t.equal(code, 1);
  t.match(text, new RegExp(`nightgate: failed to start: cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`));
  t.notMatch(text, /^\s+at /m, 'no stack trace');
  t.notMatch(text, /devnet network up|listening on/, 'nothing started');
  t.ok(seconds < 20, `exited on its own in ${seconds.toFixed(1)} s`);
});

t.test('a second nightgate on the port of a running one exits; the first keeps serving', async (t) => {
  const env = { ...NO_DEVNET_ENV, NIGHTGATE_API_KEYS: 'port-test-key-123', NIGHTGATE_BALANCING_ENABLED: 'false' };
  const first = runCli(['serve'], { ...env, NIGHTGATE_PORT: '0' });
  t.teardown(() => {
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
  });
  const line = await first.waitFor(/nightgate listening on/);
  const port = Number(/"port":(\d+)/.exec(line)![1]);
  const second = runCli(['serve'], { ...env, NIGHTGATE_PORT: String(port) });
  t.teardown(() => {
    if (second.child.exitCode === null) second.child.kill('SIGKILL');
  });
  const { code } = await second.exited;
  t.equal(code, 1, 'the second instance does not share the port');
  t.match(second.out.join('\n'), /the port is already in use/);
  t.notMatch(second.out.join('\n'), /listening on/);
  const h = await request(`http://127.0.0.1:${port}/livez`);
  t.equal(h.statusCode, 200, 'the first one still answers');
  await h.body.dump();
  first.child.kill('SIGTERM');
  t.equal((await first.exited).code, 0);
});
