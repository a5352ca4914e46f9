/**
 * `networks.<n>.nodeRpc` end to end: mainnet behind an indexer without currentEpochInfo (no SPO
 * indexer) and with no epoch length fixed by a chain spec answers its epoch from the node's
 * `sidechain_getStatus`; the D-parameter, which the indexer has, is not asked of the node.
 */
import t, { type Test } from 'tap';
import { ManualClock } from '../helpers/manual-clock.js';
import { mountStats } from '../../src/features/stats/index.js';
import type { NetworkStats } from '../../src/features/stats/network-stats.js';
import { startApp } from '../helpers/app.js';
import { FakeIndexer } from '../fixtures/stats/fake-indexer.js';
import { FakeNode } from '../fixtures/stats/fake-node.js';
import { T0, get } from '../fixtures/stats/stats-app.js';

async function app(t: Test, node: FakeNode) {
  const fake = await FakeIndexer.start();
  for (let i = 0; i < 3; i++) fake.addBlock(T0 + i * 6000, [fake.tx()]);
  const clock = new ManualClock(fake.tip!.timestamp + 3000);
  const s = await startApp(
    {
      networks: { mainnet: { ...fake.networkConfig(), nodeRpc: node.url } },
      stats: { pollIntervalMs: 20, reconnectMinMs: 10, reconnectMaxMs: 40, upstreamTimeoutMs: 500 },
      rateLimit: { publicEnabled: false },
    },
    { modules: [mountStats], clock },
  );
  t.teardown(async () => {
    await s.close();
    await fake.close();
    await node.close();
  });
  const net = s.app.context.component<NetworkStats>('stats:mainnet')!;
  await net.follower.waitForHeight(2);
  await net.follower.waitUntil((f) => f.state === 'live');
  await net.governance.settled();
  return { net, clock, get: (path: string) => get(s.url, path) };
}

t.test('the epoch from the node when the indexer has none', async (t) => {
  const node = await FakeNode.start();
  // Epochs of two hours; now (T0 + 15 s) is 1 700 000 015 000 ms: epoch 236111 began 815 s ago.
  node.status = { epoch: 236_111, slot: 0, nextEpochTimestamp: 236_112 * 7_200_000 };
  const { net, get } = await app(t, node);
  const r = await get('/api/v1/mainnet/epoch');
  t.equal(r.status, 200);
  t.strictSame(r.json, { number: 236_111, durationSeconds: 7200, elapsedSeconds: 815, remainingSeconds: 6385, progress: 0.1132 });
  t.match((await get('/api/v1/mainnet/summary')).json, {
    epoch: { number: 236_111 },
    dParameter: { numPermissionedCandidates: 10, numRegisteredCandidates: 0 },
  });
  t.equal(node.count('systemParameters_getDParameter'), 0, 'the indexer has the D-parameter: the node is not asked');
  t.match(net.health(), { governance: { nodeRpc: { requests: 1, failures: 0 } } });
});

t.test('a node that does not answer: 404 saying why, bounded by the upstream timeout', async (t) => {
  const node = await FakeNode.start();
  node.mode = 'slow';
  const { net, get } = await app(t, node);
  const r = await get('/api/v1/mainnet/epoch');
  t.equal(r.status, 404);
  t.strictSame(r.json, {
    error: 'Not Found',
    message:
      'No epoch information for mainnet: the indexer has no currentEpochInfo and the epoch length is not known; nor did the ' +
      'node RPC give it (The node did not answer sidechain_getStatus within 500 ms)',
    code: 'EPOCH_UNAVAILABLE',
  });
  t.notMatch(r.text, /SECRET/);
  t.equal(((await get('/api/v1/mainnet/summary')).json as { epoch: unknown }).epoch, null);
  t.match(net.health(), { governance: { nodeRpc: { requests: 1, failures: 1 } } });
});
