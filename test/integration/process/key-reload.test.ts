/**
 * Live key management: `nightgate keys revoke` marks a key revoked in the config file,
 * SIGHUP applies it to the running process without a restart, a connection kept open across the
 * reload keeps working, and a file that does not load is refused with the old keys kept.
 */
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'undici';
import { runCli, NO_DEVNET_ENV } from '../../helpers/spawn.js';
import { sha256Hex } from '../../../src/core/guards/auth.js';

const ALPHA = 'ngk_alpha-key-for-the-reload-test-0000000000';
const BETA = 'ngk_beta-key-for-the-reload-test-00000000000';

t.test('keys revoke + SIGHUP: the key stops working at once, the open connection stays, a bad file is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nightgate-reload-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      auth: {
        keys: [
          { id: 'alpha', sha256: sha256Hex(ALPHA), name: 'Alpha' },
          { id: 'beta', sha256: sha256Hex(BETA), rateLimit: { limit: 1000, windowMs: 60000 } },
        ],
      },
    }),
  );

  const listed = runCli(['keys', 'list', '--config', file], {});
  t.equal((await listed.exited).code, 0);
  t.match(listed.out.join('\n'), /^alpha\s+Alpha\s+active\s+[0-9a-f]{12}…\s+default/m);
  t.match(listed.out.join('\n'), /^beta\s+active\s+[0-9a-f]{12}…\s+1000\/60000ms/m);

  const p = runCli(['serve'], {
    ...NO_DEVNET_ENV,
    NIGHTGATE_CONFIG: file,
    NIGHTGATE_PORT: '0',
    NIGHTGATE_BALANCING_ENABLED: 'false',
    NIGHTGATE_METRICS_ENABLED: 'true',
  });
  t.teardown(() => {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });
  const port = Number(/"port":(\d+)/.exec(await p.waitFor(/nightgate listening on/))![1]);

  // One connection for the whole test: a reload must not drop it.
  const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1, keepAliveTimeout: 60_000 });
  let connects = 0;
  client.on('connect', () => connects++);
  t.teardown(() => (client.closed || client.destroyed ? undefined : client.close()));
  const status = async (key: string): Promise<number> => {
    const r = await client.request({ method: 'GET', path: '/health', headers: { 'x-api-key': key } });
    await r.body.dump();
    return r.statusCode;
  };
  t.equal(await status(ALPHA), 200);
  t.equal(await status(BETA), 200);

  const revoked = runCli(['keys', 'revoke', 'alpha', '--config', file], {});
  t.equal((await revoked.exited).code, 0);
  t.match(revoked.out.join('\n'), /key "alpha" revoked/);
  t.equal(await status(ALPHA), 200, 'nothing changes before the signal');

  p.child.kill('SIGHUP');
  const applied = await p.waitFor(/configuration reloaded: API keys/);
  t.match(JSON.parse(applied), { revoked: ['alpha'], added: [], removed: [] });
  t.equal(await status(ALPHA), 401, 'revoked without a restart');
  t.equal(await status(BETA), 200);

  writeFileSync(file, '{"auth": {"keys": [ not json');
  p.child.kill('SIGHUP');
  const refused = JSON.parse(await p.waitFor(/config reload refused/)) as { level: number; code: string; msg: string };
  t.equal(refused.level, 50, 'logged at error');
  t.equal(refused.code, 'CONFIG_RELOAD_REFUSED');
  t.match(refused.msg, /not valid JSON.*the running configuration is kept|the running configuration is kept.*not valid JSON/);
  t.equal(await status(BETA), 200, 'the old keys are kept');
  t.equal(await status(ALPHA), 401);
  t.equal(connects, 1, 'every request went over the one connection');

  const metrics = await client.request({ method: 'GET', path: '/metrics' });
  const text = await metrics.body.text();
  t.match(text, /nightgate_config_reloads_total\{outcome="applied"\} 1/);
  t.match(text, /nightgate_config_reloads_total\{outcome="refused"\} 1/);
  t.match(text, /nightgate_api_keys\{state="revoked"\} 1/);

  await client.close();
  p.child.kill('SIGTERM');
  t.equal((await p.exited).code, 0);
  const out = p.out.join('\n');
  t.notMatch(out, ALPHA, 'keys never reach the logs');
  t.notMatch(out, BETA);
});

t.test('keys revoke: unknown id and missing file are clear errors', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nightgate-revoke-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ auth: { keys: [{ id: 'alpha', sha256: sha256Hex(ALPHA) }] } }));
  const unknown = runCli(['keys', 'revoke', 'gamma', '--config', file], {});
  t.equal((await unknown.exited).code, 1);
  t.match(unknown.out.join('\n'), /no key with id "gamma" .*\(ids: alpha\)/);
  const missing = runCli(['keys', 'list'], {});
  t.equal((await missing.exited).code, 1);
  t.match(missing.out.join('\n'), /no config file: pass --config PATH or set NIGHTGATE_CONFIG/);
});
