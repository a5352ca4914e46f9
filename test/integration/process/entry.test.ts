import t from 'tap';
import { request } from 'undici';
import { runCli, NO_DEVNET_ENV } from '../../helpers/spawn.js';
import { sha256Hex } from '../../../src/core/guards/auth.js';

t.test('the process serves, and SIGTERM twice shuts it down once with exit 0', async (t) => {
  const p = runCli(['serve'], { ...NO_DEVNET_ENV, NIGHTGATE_PORT: '0', NIGHTGATE_API_KEYS: 'process-test-key-123', NIGHTGATE_BALANCING_ENABLED: 'false' });
  t.teardown(() => {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });
  const line = await p.waitFor(/nightgate listening on/);
  const port = Number(/"port":(\d+)/.exec(line)![1]);
  const h = await request(`http://127.0.0.1:${port}/health`);
  t.equal(h.statusCode, 200);
  await h.body.dump();
  p.child.kill('SIGTERM');
  p.child.kill('SIGTERM');
  const { code } = await p.exited;
  t.equal(code, 0);
  const text = p.out.join('\n');
  t.match(text, /shutdown complete/);
  t.equal(text.match(/graceful shutdown/g)?.length, 1, 'shutdown ran once');
  t.notMatch(text, /process-test-key-123/, 'the key never reaches the logs');
});

t.test('a bad setting exits 1 naming the setting', async (t) => {
  const p = runCli(['serve'], { NIGHTGATE_PORT: 'not-a-port' });
  const { code } = await p.exited;
  t.equal(code, 1);
  t.match(p.out.join('\n'), /invalid setting server\.port \(NIGHTGATE_PORT\)/);
});

t.test('`nightgate keys create` prints a key once and the config record that authenticates it', async (t) => {
  const p = runCli(['keys', 'create', '--id', 'wallet-backend', '--name', 'Wallet backend'], {});
  const { code } = await p.exited;
  t.equal(code, 0);
  const text = p.out.join('\n');
  const key = /^\s+(ngk_[A-Za-z0-9_-]{43})$/m.exec(text)?.[1];
  t.ok(key, 'a prefixed key');
  const record = JSON.parse(/^\s+(\{.*\})$/m.exec(text)![1]!) as { id: string; sha256: string; name: string };
  t.same(record, { id: 'wallet-backend', sha256: sha256Hex(key!), name: 'Wallet backend' });
});
