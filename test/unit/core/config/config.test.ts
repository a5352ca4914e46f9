import t from 'tap';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, ConfigError, redactedConfig, settingsTable, SETTINGS } from '../../../../src/core/config/index.js';

t.test('defaults: loopback:8080, embedded networks with the dev prover', async (t) => {
  const c = loadConfig({ env: {} });
  t.equal(c.server.host, '127.0.0.1');
  t.equal(c.server.port, 8080);
  t.equal(c.networks.mainnet.indexer, 'embedded');
  t.ok(Object.isFrozen(c) && Object.isFrozen(c.server) && Object.isFrozen(c.auth.keys), 'deeply frozen');
});

t.test('environment values are parsed by type and win over the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ng-cfg-'));
  const file = join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ server: { port: 9000, host: '0.0.0.0' }, rateLimit: { limit: 5 } }));
  const c = loadConfig({
    env: {
      NIGHTGATE_CONFIG: file,
      NIGHTGATE_PORT: '9100',
      NIGHTGATE_RATE_LIMIT_ENABLED: 'false',
      NIGHTGATE_API_KEYS: 'aaaaaaaaaa, bbbbbbbbbb',
      NIGHTGATE_TRUSTED_NETWORKS: '10.0.0.0/8',
    },
  });
  t.equal(c.server.port, 9100);
  t.equal(c.server.host, '0.0.0.0', 'from the file');
  t.equal(c.rateLimit.limit, 5);
  t.equal(c.rateLimit.enabled, false);
  t.same(c.auth.apiKeys, ['aaaaaaaaaa', 'bbbbbbbbbb']);
  t.same(c.auth.trustedNetworks, ['10.0.0.0/8']);
});

t.test('a bad value names the setting and its env var; secrets are not echoed', async (t) => {
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_PORT: 'eighty' } }),
    new ConfigError('invalid setting server.port (NIGHTGATE_PORT) from env NIGHTGATE_PORT: "eighty" — Expected integer'),
    'what was typed, not what it parsed to',
  );
  t.throws(() => loadConfig({ env: { NIGHTGATE_PORT: '70000' } }), /server\.port \(NIGHTGATE_PORT\).*70000/);
  t.throws(() => loadConfig({ env: { NIGHTGATE_RATE_LIMIT_ENABLED: 'maybe' } }), /rateLimit\.enabled \(NIGHTGATE_RATE_LIMIT_ENABLED\)/);
  const err = t.throws(() => loadConfig({ env: { NIGHTGATE_API_KEYS: 'short' } })) as Error;
  t.match(err.message, /auth\.apiKeys \(NIGHTGATE_API_KEYS\).*<redacted>/);
  t.notMatch(err.message, /short/);
  t.throws(() => loadConfig({ env: { NIGHTGATE_MAINNET_INDEXER: 'ftp://x' } }), /networks\.mainnet\.indexer/);
});

t.test('the dev prover is refused for a network not served by the embedded devnet', async (t) => {
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_MAINNET_INDEXER: 'public', NIGHTGATE_MAINNET_PROVER: 'dev' } }),
    /dev backend is only allowed on a network served by the embedded devnet/,
  );
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_MAINNET_INDEXER: 'public', NIGHTGATE_MAINNET_PROJECT_ID: 'mainnetX' } }),
    /upstream backend needs a proof server URL/,
  );
  const c = loadConfig({
    env: { NIGHTGATE_MAINNET_INDEXER: 'public', NIGHTGATE_MAINNET_PROJECT_ID: 'mainnetX', NIGHTGATE_PROVER_URL: 'http://127.0.0.1:6300' },
  });
  t.equal(c.networks.mainnet.indexer, 'public');
});

t.test('config file: unreadable, invalid JSON and unknown keys are errors', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ng-cfg-'));
  t.throws(() => loadConfig({ env: { NIGHTGATE_CONFIG: join(dir, 'missing.json') } }), /NIGHTGATE_CONFIG: cannot read/);
  writeFileSync(join(dir, 'bad.json'), '{nope');
  t.throws(() => loadConfig({ env: { NIGHTGATE_CONFIG: join(dir, 'bad.json') } }), /not valid JSON/);
  writeFileSync(join(dir, 'typo.json'), JSON.stringify({ server: { prot: 1 } }));
  t.throws(() => loadConfig({ env: { NIGHTGATE_CONFIG: join(dir, 'typo.json') } }), /unknown setting "server\.prot"/);
  writeFileSync(
    join(dir, 'dup.json'),
    JSON.stringify({
      auth: {
        keys: [
          { id: 'a', sha256: 'a'.repeat(64) },
          { id: 'a', sha256: 'b'.repeat(64) },
        ],
      },
    }),
  );
  t.throws(() => loadConfig({ env: { NIGHTGATE_CONFIG: join(dir, 'dup.json') } }), /duplicate key id "a"/);
  // A wrong value in the file is an error though the environment overrides it.
  writeFileSync(join(dir, 'port.json'), JSON.stringify({ server: { port: 'eighty' } }));
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_CONFIG: join(dir, 'port.json'), NIGHTGATE_PORT: '9000' } }),
    new ConfigError('invalid setting server.port (NIGHTGATE_PORT) from config file (server.port): "eighty" — Expected integer'),
  );
});

t.test('redaction and the settings table', async (t) => {
  const c = loadConfig({
    env: {
      NIGHTGATE_API_KEYS: 'abcdefghij',
      NIGHTGATE_DUST_WALLET_DERIVATION: 'legacy',
      NIGHTGATE_DUST_WALLET_SEEDS: 'ab'.repeat(32),
      NIGHTGATE_PREVIEW_PROJECT_ID: 'previewSECRETid',
    },
  });
  const r = JSON.stringify(redactedConfig(c));
  t.notMatch(r, /abcdefghij/);
  t.notMatch(r, /abab/);
  t.notMatch(r, /SECRET/);
  const m = JSON.stringify(redactedConfig(loadConfig({ env: { NIGHTGATE_DUST_WALLET_MNEMONIC: `${'abandon '.repeat(23)}art` } })));
  t.notMatch(m, /abandon/, 'the mnemonic is redacted');
  t.match(r, /<1 redacted>/);
  const table = settingsTable();
  for (const s of SETTINGS) t.ok(table.includes(`\`${s.path}\``), s.path);
});

t.test('the devnet keeps 1000 blocks in memory unless told otherwise', async (t) => {
  t.equal(loadConfig({ env: {} }).devnet.retainBlocks, 1000);
  t.equal(loadConfig({ env: { NIGHTGATE_DEVNET_RETAIN_BLOCKS: '50' } }).devnet.retainBlocks, 50);
  t.throws(() => loadConfig({ env: { NIGHTGATE_DEVNET_RETAIN_BLOCKS: '0' } }), ConfigError);
});

t.test('three embedded networks need blocks of 3 s or more; fewer may go faster', async (t) => {
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_DEVNET_BLOCK_TIME_MS: '1000' } }),
    /devnet\.blockTimeMs \(NIGHTGATE_DEVNET_BLOCK_TIME_MS\): 1000 ms is too short for three embedded networks/,
  );
  t.equal(loadConfig({ env: { NIGHTGATE_DEVNET_BLOCK_TIME_MS: '3000' } }).devnet.blockTimeMs, 3000);
  const one = loadConfig({
    env: {
      NIGHTGATE_DEVNET_BLOCK_TIME_MS: '250',
      NIGHTGATE_MAINNET_INDEXER: 'http://127.0.0.1:9/graphql',
      NIGHTGATE_PREPROD_INDEXER: 'http://127.0.0.1:9/graphql',
      NIGHTGATE_PROVER_URL: 'http://127.0.0.1:9',
    },
  });
  t.equal(one.devnet.blockTimeMs, 250, 'one embedded network at 250 ms');
});

t.test('a fee intent life that does not fit within the reservation is refused', async (t) => {
  t.throws(() => loadConfig({ env: { NIGHTGATE_DUST_FEE_TTL_MS: '250000' } }), /dust\.feeTtlMs \(NIGHTGATE_DUST_FEE_TTL_MS\)/);
  t.equal(loadConfig({ env: { NIGHTGATE_DUST_FEE_TTL_MS: '240000' } }).dust.feeTtlMs, 240_000);
  t.equal(loadConfig({}).dust.feeTtlMs, 0, 'default: 10 blocks of the network');
});

t.test("public mainnet and preprod need the provider's project id; one line names the setting", async (t) => {
  const prover = { NIGHTGATE_PROVER_URL: 'http://127.0.0.1:6300' };
  for (const n of ['mainnet', 'preprod'] as const) {
    const N = n.toUpperCase();
    const err = t.throws(() => loadConfig({ env: { ...prover, [`NIGHTGATE_${N}_INDEXER`]: 'public' } })) as Error;
    t.equal(err.message, `missing setting networks.${n}.projectId (NIGHTGATE_${N}_PROJECT_ID): Blockfrost serves ${n} only with a project id`);
    t.notMatch(err.message, /\n/);
    const rpcOnly = t.throws(() => loadConfig({ env: { ...prover, [`NIGHTGATE_${N}_NODE_RPC`]: 'public' } })) as Error;
    t.match(rpcOnly.message, new RegExp(`networks\\.${n}\\.projectId`), 'the public node RPC needs it too');
    t.equal(
      loadConfig({ env: { ...prover, [`NIGHTGATE_${N}_INDEXER`]: 'public', [`NIGHTGATE_${N}_PROJECT_ID`]: `${n}abc` } }).networks[n].projectId,
      `${n}abc`,
    );
  }
  t.equal(loadConfig({ env: { ...prover, NIGHTGATE_PREVIEW_INDEXER: 'public' } }).networks.preview.projectId, '', 'Midnight serves preview without one');
  t.throws(() => loadConfig({ env: { NIGHTGATE_PREVIEW_PROJECT_ID: 'has space' } }), /networks\.preview\.projectId/);
});

t.test("the devnet's public profile wants a project id for each embedded network", async (t) => {
  const err = t.throws(() =>
    loadConfig({ env: { NIGHTGATE_DEVNET_PROFILE: 'public', NIGHTGATE_MAINNET_PROJECT_ID: 'a', NIGHTGATE_PREPROD_PROJECT_ID: 'b' } }),
  ) as Error;
  t.match(err.message, /^missing setting networks\.preview\.projectId \(NIGHTGATE_PREVIEW_PROJECT_ID\): with devnet\.profile public/);
  t.equal(
    loadConfig({
      env: { NIGHTGATE_DEVNET_PROFILE: 'public', NIGHTGATE_MAINNET_PROJECT_ID: 'a', NIGHTGATE_PREPROD_PROJECT_ID: 'b', NIGHTGATE_PREVIEW_PROJECT_ID: 'c' },
    }).devnet.profile,
    'public',
  );
});

t.test("Midnight's retired hosts are refused by name", async (t) => {
  const prover = { NIGHTGATE_PROVER_URL: 'http://127.0.0.1:6300' };
  const err = t.throws(() => loadConfig({ env: { ...prover, NIGHTGATE_MAINNET_INDEXER: 'https://indexer.mainnet.midnight.network/api/v4/graphql' } })) as Error;
  t.match(
    err.message,
    new RegExp(
      '^invalid setting networks\\.mainnet\\.indexer \\(NIGHTGATE_MAINNET_INDEXER\\): ' +
        'indexer\\.mainnet\\.midnight\\.network is decommissioned; use `public` \\(Blockfrost\\)',
    ),
  );
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_PREPROD_NODE_RPC: 'wss://rpc.preprod.midnight.network' } }),
    /networks\.preprod\.nodeRpc \(NIGHTGATE_PREPROD_NODE_RPC\): rpc\.preprod\.midnight\.network is decommissioned/,
  );
  t.throws(
    () =>
      loadConfig({
        env: {
          ...prover,
          NIGHTGATE_PREPROD_INDEXER: 'https://my.example/graphql',
          NIGHTGATE_PREPROD_INDEXER_WS: 'wss://indexer.preprod.midnight.network/api/v4/graphql/ws',
        },
      }),
    /networks\.preprod\.indexerWs/,
  );
});

t.test('server wallets: one source; hex seeds only under the legacy derivation', async (t) => {
  const words = `${'abandon '.repeat(23)}art`;
  t.equal(loadConfig({ env: { NIGHTGATE_DUST_WALLET_MNEMONIC: words } }).dust.walletDerivation, 'hd');
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_DUST_WALLET_MNEMONIC: words, NIGHTGATE_DUST_WALLET_SEED: 'ab'.repeat(64) } }),
    /^invalid settings dust\.walletMnemonic and dust\.walletSeed: set one source/,
  );
  const legacy = t.throws(() => loadConfig({ env: { NIGHTGATE_DUST_WALLET_SEEDS: 'ab'.repeat(32) } })) as Error;
  t.match(legacy.message, /dust\.walletSeeds .*set dust\.walletDerivation legacy/);
  t.notMatch(legacy.message, /abab/);
  t.equal(loadConfig({ env: { NIGHTGATE_DUST_WALLET_DERIVATION: 'legacy', NIGHTGATE_DUST_WALLET_SEEDS: 'ab'.repeat(32) } }).dust.walletSeeds.length, 1);
  t.throws(
    () => loadConfig({ env: { NIGHTGATE_DUST_WALLET_DERIVATION: 'legacy', NIGHTGATE_DUST_WALLET_MNEMONIC: words } }),
    /dust\.walletMnemonic: dust\.walletDerivation is legacy/,
  );
  const seed = t.throws(() => loadConfig({ env: { NIGHTGATE_DUST_WALLET_SEED: 'zz'.repeat(64) } })) as Error;
  t.notMatch(seed.message, /zzzz/, 'a bad seed is not echoed');
});

t.test('a config file holding secrets is refused when every user may read it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ng-cfg-'));
  const path = join(dir, 'c.json');
  writeFileSync(path, JSON.stringify({ auth: { apiKeys: ['0123456789abcdef'] } }), { mode: 0o644 });
  chmodSync(path, 0o644);
  const err = t.throws(() => loadConfig({ env: { NIGHTGATE_CONFIG: path } })) as Error;
  t.match(err.message, /^NIGHTGATE_CONFIG: .*c\.json holds secrets and is open to every user \(mode 644\); chmod o-rwx it \(auth\.apiKeys\)$/);
  t.notMatch(err.message, /0123456789abcdef/);
  chmodSync(path, 0o640);
  t.same(loadConfig({ env: { NIGHTGATE_CONFIG: path } }).auth.apiKeys, ['0123456789abcdef']);
  const plain = join(dir, 'plain.json');
  writeFileSync(plain, JSON.stringify({ server: { port: 8081 } }));
  chmodSync(plain, 0o644);
  t.equal(loadConfig({ env: { NIGHTGATE_CONFIG: plain } }).server.port, 8081, 'a file without secrets may be read by all');
});
