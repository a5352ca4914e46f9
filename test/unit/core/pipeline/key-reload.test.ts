/** KeyStore.replace and ConfigReloader: what a SIGHUP changes, and what it refuses. */
import t from 'tap';
import { KeyStore, sha256Hex } from '../../../../src/core/guards/auth.js';
import { ConfigReloader } from '../../../../src/core/guards/reload.js';
import { ConfigError, loadConfig, type ApiKeyRecord } from '../../../../src/core/config/index.js';
import { Metrics } from '../../../../src/infra/metrics/metrics.js';
import { captureLogs } from '../../../helpers/app.js';

const A = 'ngk_key-a-0000000000000000000000000000000000';
const B = 'ngk_key-b-0000000000000000000000000000000000';
const rec = (id: string, raw: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({ id, sha256: sha256Hex(raw), ...extra });

t.test('replace: added, removed, revoked, restored, changed limits; env keys stay, the development key goes', async (t) => {
  const keys = new KeyStore([rec('a', A), rec('b', B, { revoked: true })], ['env-raw-key-123456']);
  keys.addRaw('ngk_dev-generated-00000000000000000000000000', 'dev-generated', 'generated');
  t.equal(keys.authenticate(A)?.id, 'a');
  t.equal(keys.authenticate(B), undefined);
  const before = keys.authenticate(A)!;
  const changes = keys.replace([rec('a', A, { rateLimit: { limit: 5, windowMs: 1000 }, dustBudget: '7' }), rec('b', B)], ['10.0.0.0/8']);
  t.same(changes, { added: [], removed: [], revoked: [], restored: ['b'], changed: ['a'] });
  t.match(keys.authenticate(A), { id: 'a', rateLimit: { limit: 5, windowMs: 1000 }, dustBudget: 7n }, 'the next request gets the new limits and budget');
  t.equal(before.rateLimit, undefined, 'a request already authenticated keeps what it got');
  t.equal(keys.authenticate(B)?.id, 'b');
  t.equal(keys.authenticate('env-raw-key-123456')?.id, 'env-1', 'NIGHTGATE_API_KEYS stay');
  t.equal(keys.authenticate('ngk_dev-generated-00000000000000000000000000'), undefined, 'configured keys replace the development key');
  t.equal(keys.trustedKey('10.1.2.3')?.id, 'trusted:10.0.0.0/8');
  t.same(keys.replace([rec('b', B, { revoked: true })], []), { added: [], removed: ['a'], revoked: ['b'], restored: [], changed: [] });
  t.equal(keys.authenticate(A), undefined);
  t.equal(keys.trustedKey('10.1.2.3'), undefined);
  t.same(keys.counts(), { active: 1, revoked: 1 });
});

t.test('ConfigReloader: applies the keys, names settings that need a restart, refuses a bad load', async (t) => {
  const config = loadConfig({ env: {}, overrides: { auth: { keys: [rec('a', A)] } } });
  const keys = new KeyStore(config.auth.keys, []);
  const logs = captureLogs();
  const metrics = new Metrics({ defaultMetrics: false });
  let next: () => ReturnType<typeof loadConfig> = () =>
    loadConfig({ env: {}, overrides: { auth: { keys: [rec('a', A, { revoked: true })] }, server: { port: 9999 } } });
  const reloader = new ConfigReloader({ config, keys, logger: logs.logger, onReload: (outcome) => metrics.configReloads.inc({ outcome }), load: () => next() });
  const ok = reloader.reload();
  t.match(ok, { ok: true, changes: { revoked: ['a'] }, restartNeeded: ['server.port'] });
  t.equal(keys.authenticate(A), undefined);
  t.equal(reloader.current.server.port, config.server.port, 'only the live settings are taken');
  t.match(logs.lines.at(-1), { level: 40, settings: ['server.port'] });
  next = () => {
    throw new ConfigError('invalid setting auth.keys: duplicate key id "a"');
  };
  const refused = reloader.reload();
  t.match(refused, { ok: false, error: /duplicate key id/ });
  t.match(logs.lines.at(-1), {
    level: 50,
    code: 'CONFIG_RELOAD_REFUSED',
    msg: /config reload refused, the running configuration is kept: invalid setting auth\.keys/,
  });
  t.same(keys.counts(), { active: 0, revoked: 1 }, 'the keys of the last applied reload stay');
  const text = await metrics.registry.metrics();
  t.match(text, /nightgate_config_reloads_total\{outcome="applied"\} 1/);
  t.match(text, /nightgate_config_reloads_total\{outcome="refused"\} 1/);
});
