/**
 * One declaration of the settings: the `Config` type and the SETTINGS table both derive from
 * ConfigSchema, so they cannot disagree. The type assertions below fail `tsc` (the test build)
 * when the type stops being derived; the runtime ones tie the table to a loaded configuration.
 */
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import {
  ConfigSchema,
  SETTINGS,
  loadConfig,
  type ApiKeyRecord,
  type Config,
  type NetworkName,
  type ProverBackendName,
} from '../../../../src/core/config/index.js';

/** true when A and B are the same type (not merely assignable). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

t.test("the Config type is the schema's, as narrow as the schemas", async (t) => {
  const groups: Equal<keyof Config, 'server' | 'log' | 'metrics' | 'auth' | 'rateLimit' | 'devnet' | 'stats' | 'prover' | 'dust' | 'state' | 'networks'> = true;
  const networks: Equal<keyof Config['networks'], NetworkName> = true;
  const level: Equal<Config['log']['level'], 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'> = true;
  const requests: Equal<Config['log']['requests'], 'all' | 'aggregate' | 'errors' | 'none'> = true;
  const ledger: Equal<Config['networks']['preview']['devnet']['ledger'], 8 | 9> = true;
  const prover: Equal<Config['networks']['mainnet']['prover'], '' | ProverBackendName> = true;
  const nodeRpc: Equal<Config['networks']['preprod']['nodeRpc'], string> = true;
  const keys: Equal<Config['auth']['keys'], ApiKeyRecord[]> = true;
  const defaultNetwork: Equal<Config['prover']['defaultNetwork'], NetworkName> = true;
  t.ok(groups && networks && level && requests && ledger && prover && nodeRpc && keys && defaultNetwork);
  // @ts-expect-error a level pino does not have
  const notALevel: Config['log']['level'] = 'verbose';
  // @ts-expect-error not a ledger era
  const notAnEra: Config['networks']['mainnet']['devnet']['ledger'] = 7;
  t.ok(notALevel && notAnEra);
});

t.test('the table lists exactly the leaves of a loaded configuration, in order', async (t) => {
  const c = loadConfig({ env: {} });
  const leaves: string[] = [];
  const walk = (o: unknown, prefix: string): void => {
    for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v, path);
      else leaves.push(path);
    }
  };
  walk(c, '');
  t.strictSame(
    SETTINGS.map((s) => s.path),
    leaves,
  );
  t.ok(Value.Check(ConfigSchema, c), 'the loaded configuration is an instance of the schema');
});

t.test('every row: a default of its schema, a doc, an env var of its own', async (t) => {
  const envs = SETTINGS.flatMap((s) => (s.env ? [s.env] : []));
  t.equal(new Set(envs).size, envs.length, 'env vars unique');
  for (const s of SETTINGS) {
    t.ok(Value.Check(s.schema, s.default), `${s.path}: default passes its schema`);
    t.ok(s.doc.length > 0, `${s.path}: documented`);
  }
  t.strictSame(
    SETTINGS.filter((s) => s.secret).map((s) => s.path),
    [
      'auth.apiKeys',
      'dust.walletMnemonic',
      'dust.walletSeed',
      'dust.walletSeeds',
      'networks.mainnet.projectId',
      'networks.preprod.projectId',
      'networks.preview.projectId',
    ],
  );
  t.strictSame(
    SETTINGS.filter((s) => !s.env).map((s) => s.path),
    ['auth.keys'],
    'file only',
  );
});

t.test('nodeRpc: empty, public, or an http(s) or ws(s) URL', async (t) => {
  t.equal(loadConfig({ env: {} }).networks.mainnet.nodeRpc, '');
  t.equal(loadConfig({ env: { NIGHTGATE_MAINNET_NODE_RPC: 'http://127.0.0.1:9944' } }).networks.mainnet.nodeRpc, 'http://127.0.0.1:9944');
  t.equal(loadConfig({ env: { NIGHTGATE_MAINNET_NODE_RPC: 'ws://127.0.0.1:9944' } }).networks.mainnet.nodeRpc, 'ws://127.0.0.1:9944');
  t.equal(loadConfig({ env: { NIGHTGATE_PREVIEW_NODE_RPC: 'public' } }).networks.preview.nodeRpc, 'public');
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_MAINNET_NODE_RPC: 'tcp://127.0.0.1:9944' } }),
    /^invalid setting networks\.mainnet\.nodeRpc \(NIGHTGATE_MAINNET_NODE_RPC\): "tcp:\/\/127\.0\.0\.1:9944" — expected public or an http\(s\) or ws\(s\) URL/,
  );
  t.throws(() => loadConfig({ env: { NIGHTGATE_PREPROD_NODE_RPC: 'http://' } }), /networks\.preprod\.nodeRpc/);
  const err = t.throws(() => loadConfig({ env: { NIGHTGATE_PREVIEW_NODE_RPC: 'ftp://u:SECRET@node.example/' } })) as Error;
  t.match(err.message, /"ftp:\/\/redacted@node\.example\/"/);
  t.notMatch(err.message, /SECRET/, 'credentials redacted');
});
