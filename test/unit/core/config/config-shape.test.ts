/**
 * A config file whose root or a setting group is not an object (`null`, a list, a scalar) is
 * refused, at start and on SIGHUP, instead of reading as "nothing set" (no keys, every default);
 * key ids nightgate uses itself are refused; the body budget must admit the largest body.
 */
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../../src/core/config/index.js';
import { ConfigReloader } from '../../../../src/core/guards/reload.js';
import { KeyStore, sha256Hex } from '../../../../src/core/guards/auth.js';
import { keyIdProblem, reservedKeyId } from '../../../../src/core/config/key-ids.js';
import { POOL_KEY_ID } from '../../../../src/features/sponsorship/common/pool-constants.js';
import { captureLogs } from '../../../helpers/app.js';

const NOT_OBJECTS: Array<[string, string]> = [
  ['null', 'null'],
  ['[]', 'a list'],
  ['42', 'number 42'],
  ['"x"', 'string "x"'],
  ['true', 'boolean true'],
];

const dir = mkdtempSync(join(tmpdir(), 'ng-shape-'));
function file(text: string): string {
  const p = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, text);
  return p;
}

t.test('a root that is not an object is refused, naming what it is', async (t) => {
  for (const [text, kind] of NOT_OBJECTS) {
    const err = t.throws(() => loadConfig({ env: { NIGHTGATE_CONFIG: file(text) } })) as Error;
    t.type(err, ConfigError, text);
    t.equal(err.message, `the config file must be a JSON object ({…}), got ${kind}`, text);
  }
});

t.test('a setting group that is not an object is refused, at any depth', async (t) => {
  const groups: Array<[string, unknown]> = [
    ['auth', null],
    ['auth', 'x'],
    ['auth', []],
    ['auth', 1],
    ['auth', false],
    ['server', null],
    ['networks', []],
    ['networks.mainnet', 'x'],
    ['networks.mainnet.devnet', null],
  ];
  for (const [path, value] of groups) {
    const root: Record<string, unknown> = {};
    const parts = path.split('.');
    let cur = root;
    for (const p of parts.slice(0, -1)) cur = (cur[p] = {}) as Record<string, unknown>;
    cur[parts.at(-1)!] = value;
    t.throws(
      () => loadConfig({ env: { NIGHTGATE_CONFIG: file(JSON.stringify(root)) } }),
      new RegExp(`^setting group "${path.replace(/\./g, '\\.')}" in the config file must be a JSON object`),
      `${path}: ${JSON.stringify(value)}`,
    );
  }
  t.ok(loadConfig({ env: { NIGHTGATE_CONFIG: file('{"auth":{}}') } }), 'an empty group is fine');
  t.ok(loadConfig({ env: { NIGHTGATE_CONFIG: file('{}') } }), 'an empty file object is fine');
});

t.test('on SIGHUP: refused at error, the running keys kept', async (t) => {
  const raw = 'ngk_shape-0000000000000000000000000000000000';
  const good = file(JSON.stringify({ auth: { keys: [{ id: 'a', sha256: sha256Hex(raw) }] } }));
  const config = loadConfig({ env: { NIGHTGATE_CONFIG: good } });
  const keys = new KeyStore(config.auth.keys, []);
  const logs = captureLogs();
  for (const text of ['null', '[]', '42', '"x"', 'true', '{"auth":null}', '{"auth":"x"}']) {
    const bad = file(text);
    const reloader = new ConfigReloader({ config, keys, logger: logs.logger, load: () => loadConfig({ env: { NIGHTGATE_CONFIG: bad } }) });
    t.match(reloader.reload(), { ok: false, error: /must be a JSON object/ }, text);
    t.match(logs.lines.at(-1), { level: 50, code: 'CONFIG_RELOAD_REFUSED' }, `${text}: logged at error`);
    t.equal(keys.authenticate(raw)?.id, 'a', `${text}: the key still works`);
  }
  t.notOk(
    logs.lines.some((l) => /configuration reloaded/.test(String(l['msg']))),
    'never "configuration reloaded"',
  );
});

t.test('key ids nightgate uses itself are refused in the config file', async (t) => {
  for (const id of [POOL_KEY_ID, 'nightgate-anything', 'env-1', 'env-12', 'dev-generated']) {
    const p = file(JSON.stringify({ auth: { keys: [{ id, sha256: 'a'.repeat(64) }] } }));
    t.throws(() => loadConfig({ env: { NIGHTGATE_CONFIG: p } }), new RegExp(`key id "${id}" .*choose another id`), id);
  }
  for (const id of ['env', 'env-x', 'my-env-1', 'pool', 'wallet-1']) t.equal(reservedKeyId(id), undefined, `${id} is free`);
  t.equal(keyIdProblem('a b'), 'is not 1 to 64 letters, digits, ".", "_" or "-"');
  t.match(keyIdProblem(POOL_KEY_ID), /nightgate/);
});

t.test('the body budget admits the largest body a route accepts', async (t) => {
  const c = loadConfig({ env: {} });
  t.equal(c.server.bodyBytesInFlight, 256 * 2 ** 20);
  t.equal(c.server.bodyBytesPerClient, 128 * 2 ** 20);
  t.throws(() => loadConfig({ env: { NIGHTGATE_BODY_BYTES_PER_CLIENT: String(32 * 2 ** 20) } }), /server\.bodyBytesPerClient .* less than the largest body/);
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_BODY_BYTES_IN_FLIGHT: String(100 * 2 ** 20) } }),
    /server\.bodyBytesInFlight .* less than server\.bodyBytesPerClient/,
  );
});
