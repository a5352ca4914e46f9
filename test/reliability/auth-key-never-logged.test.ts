/**
 * The raw API key never reaches a log line — at `trace` level, through every route and every
 * way a request can end (200, 401, 404, 405, 413, 415, 429, upstream failures), in either header,
 * valid, revoked or wrong; nor do the server DUST wallet seeds from the configuration.
 * (The process entry's own stdout: test/integration/process/entry.test.ts.)
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY, OTHER_KEY } from '../helpers/app.js';
import { sha256Hex } from '../../src/core/guards/auth.js';
import { mountProver } from '../../src/features/proving/index.js';
import { mountSponsorship } from '../../src/features/sponsorship/index.js';
import { mountStats } from '../../src/features/stats/index.js';
import { proveBody } from '../fixtures/prover/samples.js';
import { CLOSED } from './helpers/apps.js';
import { watchLogs } from './helpers/logs.js';
import { ProofServerStub } from './helpers/proof-server-stub.js';

const REVOKED = 'revoked-secret-key-0123456789';
const WRONG = 'wrong-secret-key-0123456789ab';
const SEED = 'c0ffee'.repeat(10) + 'c0ff';

t.test('no raw key (or wallet seed) in any log line at trace level', async (t) => {
  const stub = await ProofServerStub.start();
  t.teardown(() => stub.stop());
  const logs = watchLogs('trace');
  const s = await startApp(
    {
      auth: { keys: [{ id: 'gone', sha256: sha256Hex(REVOKED), revoked: true }] },
      networks: { mainnet: CLOSED, preprod: { ...CLOSED, proverUrl: stub.url }, preview: { ...CLOSED, proverUrl: stub.url } },
      dust: { walletDerivation: 'legacy', walletSeeds: [SEED] },
      rateLimit: { limit: 20 },
      server: { proverBodyLimit: 4096 },
      log: { level: 'trace', requests: 'all' },
    },
    { modules: [mountStats, mountProver, mountSponsorship], logger: logs.logger },
  );
  t.teardown(() => s.close());

  const variants = (key: string): Array<Record<string, string>> => [
    { 'x-api-key': key },
    { authorization: `Bearer ${key}` },
    { authorization: `bearer   ${key}  ` },
    { authorization: `Basic ${key}` },
  ];
  const send = async (method: string, path: string, headers: Record<string, string>, body?: Uint8Array | string): Promise<number> => {
    const r = await request(`${s.url}${path}`, { method: method as 'GET', headers, ...(body !== undefined ? { body } : {}) });
    await r.body.dump();
    return r.statusCode;
  };
  const statuses = new Set<number>();
  let n = 100;
  for (const key of [TEST_KEY, OTHER_KEY, REVOKED, WRONG]) {
    for (const h of variants(key)) {
      for (const mode of ['ok', 'reject', 'fail', 'junk', 'reset'] as const) {
        stub.mode = mode;
        // A new body each time: the result cache would answer a repeat without asking upstream.
        statuses.add(await send('POST', '/prove', { ...h, 'content-type': 'application/octet-stream' }, proveBody(undefined, BigInt(++n))));
      }
      statuses.add(await send('POST', '/prove?network=mainnet', { ...h, 'content-type': 'application/octet-stream' }, proveBody(undefined, BigInt(++n))));
      statuses.add(await send('POST', '/prove', { ...h, 'content-type': 'application/json' }, '{}'));
      statuses.add(await send('POST', '/verify', { ...h, 'content-type': 'application/octet-stream' }, Buffer.alloc(8192)));
      statuses.add(await send('POST', '/prove-and-balance', { ...h, 'content-type': 'application/octet-stream' }, Buffer.from('junk')));
      statuses.add(await send('GET', '/wallet-status', h));
      statuses.add(await send('GET', '/ready', h));
      statuses.add(await send('PUT', '/prove', h, 'x'));
      statuses.add(await send('GET', '/no/such/route', h));
      statuses.add(await send('GET', '/api/v1/mainnet/summary', h));
    }
  }
  t.ok(
    [200, 400, 401, 404, 405, 413, 415, 429, 500, 502, 503].every((c) => statuses.has(c)),
    `every kind of ending was exercised: ${[...statuses].sort().join(' ')}`,
  );

  const text = logs.text();
  t.ok(logs.lines.length > 100, `${logs.lines.length} lines logged`);
  for (const [name, secret] of Object.entries({ TEST_KEY, OTHER_KEY, REVOKED, WRONG, SEED })) {
    t.notOk(text.includes(secret), `${name} appears in no log line`);
  }
  t.ok(
    logs.lines.some((l) => l['msg'] === 'request' && l['keyId'] === 'env-1'),
    "the key's id is what the access log records",
  );
});

t.test('no mnemonic and no provider project id in any log line, in /health, or in the config dump', async (t) => {
  const MNEMONIC = `${'abandon '.repeat(23)}art`;
  const PROJECT_IDS = { mainnet: 'mainnetSecretPid', preprod: 'preprodSecretPid', preview: 'previewSecretPid' };
  const logs = watchLogs('trace');
  const s = await startApp(
    {
      networks: {
        mainnet: { ...CLOSED, projectId: PROJECT_IDS.mainnet, submitUrl: 'http://127.0.0.1:9/relay' },
        preprod: { ...CLOSED, projectId: PROJECT_IDS.preprod, nodeRpc: 'http://127.0.0.1:9' },
        preview: { ...CLOSED, projectId: PROJECT_IDS.preview },
      },
      dust: { walletMnemonic: MNEMONIC },
      log: { level: 'trace', requests: 'all' },
    },
    { modules: [mountStats, mountProver, mountSponsorship], logger: logs.logger },
  );
  t.teardown(() => s.close());
  const bodies: string[] = [];
  for (const path of ['/health', '/wallet-status', '/readyz', '/api/v1/preprod/summary', '/metrics']) {
    const r = await request(`${s.url}${path}`, { headers: { 'x-api-key': TEST_KEY } });
    bodies.push(await r.body.text());
  }
  const { redactedConfig } = await import('../../src/core/config/index.js');
  const dump = JSON.stringify(redactedConfig(s.app.context.config));
  const text = logs.text();
  t.ok(
    logs.lines.some((l) => /networks\.mainnet\.submitUrl .* is deprecated/.test(String(l['msg']))),
    'start-up warns about the deprecated relay',
  );
  for (const [name, secret] of Object.entries({ mnemonic: 'abandon abandon', ...PROJECT_IDS })) {
    t.notOk(text.includes(secret), `${name}: in no log line`);
    const leaked = bodies.find((b) => b.includes(secret));
    t.notOk(
      leaked,
      `${name}: in no answer (/health, /wallet-status, /readyz, summary, /metrics)` +
        `${leaked ? `: ${leaked.slice(Math.max(0, leaked.indexOf(secret) - 200), leaked.indexOf(secret) + 100)}` : ''}`,
    );
    t.notOk(dump.includes(secret), `${name}: not in the config dump`);
  }
});
