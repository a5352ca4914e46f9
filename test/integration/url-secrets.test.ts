/**
 * Credentials in upstream URLs (`https://user:PASS@indexer/…?apikey=TOKEN`) never leave nightgate:
 * not in the start-up and follower log lines, not in /health (even with a key), not in the
 * answers of failing requests — and a public answer does not even name the internal indexer.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { mountStats } from '../../src/features/stats/index.js';
import { mountProver } from '../../src/features/proving/index.js';
import type { NetworkStats } from '../../src/features/stats/network-stats.js';

const INDEXER = 'http://user:PASSWORD@127.0.0.1:9/api/v4/graphql?apikey=TOKEN';
const PROVER = 'http://prover:PROVERPW@127.0.0.1:9/?k=PTOKEN';
const SECRETS = /PASSWORD|TOKEN|PROVERPW|PTOKEN|apikey|user:|prover:/;

t.test('no credential of an indexer or prover URL is printed or returned', async (t) => {
  const net = { indexer: INDEXER, prover: 'upstream' as const, proverUrl: PROVER };
  const s = await startApp(
    { networks: { mainnet: net, preprod: net, preview: net }, stats: { reconnectMinMs: 10, reconnectMaxMs: 40, pollIntervalMs: 20 }, dust: { enabled: false } },
    { modules: [mountStats, mountProver] },
  );
  t.teardown(() => s.close());
  await s.app.context.component<NetworkStats>('stats:mainnet')!.follower.waitUntil((f) => f.lastError !== undefined);

  const lookup = await request(`${s.url}/api/v1/mainnet/block?height=1`);
  const lookupText = await lookup.body.text();
  t.equal(lookup.statusCode, 500);
  t.notMatch(lookupText, SECRETS);
  t.notMatch(lookupText, '127.0.0.1:9', 'a public answer does not name the indexer');

  const prove = await request(`${s.url}/version?network=mainnet`, { headers: { 'x-api-key': TEST_KEY } });
  const proveText = await prove.body.text();
  t.equal(prove.statusCode, 502);
  t.notMatch(proveText, SECRETS);

  const health = await request(`${s.url}/health`, { headers: { 'x-api-key': TEST_KEY } });
  const healthText = await health.body.text();
  t.match(healthText, /"url":"http:\/\/redacted@127\.0\.0\.1:9\/\?redacted"/, 'the prover URL, redacted');
  t.notMatch(healthText, SECRETS);

  const logs = s.logs.text();
  t.match(logs, /following the chain/);
  t.match(logs, /http:\/\/redacted@127\.0\.0\.1:9\/api\/v4\/graphql\?redacted/, 'the indexer as configured, redacted');
  t.match(logs, /ws:\/\/redacted@127\.0\.0\.1:9\/api\/v4\/graphql\/ws\?redacted/, 'its WebSocket URL, redacted and well formed');
  t.notMatch(logs, SECRETS);
});
