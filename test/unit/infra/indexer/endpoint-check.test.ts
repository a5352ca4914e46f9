// A retired indexer (410 ENDPOINT_DECOMMISSIONED) or one that refuses the project id (401) stops the
// start with one line naming the setting; the follower stops instead of retrying such an answer.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../../../src/core/config/index.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { checkIndexers } from '../../../../src/infra/indexer/endpoint-check.js';
import { GraphqlHttpClient } from '../../../../src/infra/indexer/graphql-http.js';
import { ChainFollower } from '../../../../src/features/stats/follower.js';
import { BlockWindow } from '../../../../src/features/stats/block-window.js';

async function stubIndexer(t: Test, status: number, body: string) {
  const seen: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    seen.push(req.headers['project_id'] as string | undefined);
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4/graphql`, seen };
}

const asked = () => true;
const configFor = (url: string, projectId = '') =>
  loadConfig({ env: { NIGHTGATE_PREPROD_INDEXER: url, NIGHTGATE_PREPROD_PROJECT_ID: projectId, NIGHTGATE_PROVER_URL: 'http://127.0.0.1:9' } });

t.test('410 ENDPOINT_DECOMMISSIONED: the start stops, naming the indexer setting', async (t) => {
  const idx = await stubIndexer(t, 410, '{"error":"ENDPOINT_DECOMMISSIONED"}');
  const err = (await checkIndexers(configFor(idx.url, 'preprodSECRET'), { asked }).catch((e: unknown) => e)) as Error;
  t.type(err, ConfigError);
  t.match(
    err.message,
    /^the preprod indexer at 127\.0\.0\.1:\d+: The indexer is decommissioned \(HTTP 410\); set networks\.preprod\.indexer \(NIGHTGATE_PREPROD_INDEXER\)$/,
  );
  t.notMatch(err.message, /SECRET|\n/, 'one line, no secret');
  t.same(idx.seen, ['preprodSECRET'], 'asked once, with the project id');
});

t.test('401: the start stops, naming the project id setting', async (t) => {
  const idx = await stubIndexer(t, 401, '{"error":"Invalid project token."}');
  await t.rejects(checkIndexers(configFor(idx.url, 'wrong'), { asked }), {
    message: /The indexer refused the credentials \(HTTP 401\); set networks\.preprod\.projectId \(NIGHTGATE_PREPROD_PROJECT_ID\)$/,
  });
});

t.test('anything else is left to the followers: an indexer that errs, or none at all', async (t) => {
  const idx = await stubIndexer(t, 500, '{"errors":[{"message":"boom"}]}');
  await checkIndexers(configFor(idx.url), { asked });
  await checkIndexers(configFor('http://127.0.0.1:9/api/v4/graphql'), { asked });
  const ok = await stubIndexer(t, 200, '{"data":{"block":{"height":1}}}');
  await checkIndexers(configFor(ok.url), { asked });
  t.equal(ok.seen.length, 1);
  const unasked = await stubIndexer(t, 410, '{}');
  await checkIndexers(configFor(unasked.url));
  t.same(unasked.seen, [], 'a loopback indexer is not a hosted one: not asked by default');
});

t.test('at run time the follower stops at a 410 instead of retrying it', async (t) => {
  const idx = await stubIndexer(t, 410, '{"error":"ENDPOINT_DECOMMISSIONED"}');
  const clock = new ManualClock(0);
  const http = new GraphqlHttpClient(idx.url, { timeoutMs: 2_000, maxResponseBytes: 65_536 });
  t.teardown(() => http.close());
  const follower = new ChainFollower({
    http,
    wsUrl: undefined,
    window: new BlockWindow(16),
    clock,
    log: pino({ level: 'silent' }),
    pollIntervalMs: 10,
    reconnectMinMs: 10,
    reconnectMaxMs: 100,
    ackTimeoutMs: 1_000,
    network: 'preprod',
  });
  const stopped = new Promise<void>((resolve) => follower.on('state', () => follower.state === 'stopped' && resolve()));
  follower.start();
  await stopped;
  t.equal(follower.state, 'stopped');
  t.match(follower.lastError?.message, /decommissioned \(HTTP 410\): set networks\.preprod\.indexer \(NIGHTGATE_PREPROD_INDEXER\)/);
  const asks = idx.seen.length;
  t.ok(asks >= 1 && asks <= 2, `asked ${asks} time(s), then no more`);
});
