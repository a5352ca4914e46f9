/**
 * The node RPC fills in only what the indexer lacks: the epoch when it gives no currentEpochInfo,
 * the D-parameter (read at the window's tip) while no block carries system parameters. A failing
 * node keeps the last known values and says why on the route that has nothing to serve.
 */
import t, { type Test } from 'tap';
import { createServer } from 'node:http';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { GraphqlHttpClient } from '../../../../src/infra/indexer/graphql-http.js';
import { BlockWindow } from '../../../../src/features/stats/block-window.js';
import { ChainFollower } from '../../../../src/features/stats/follower.js';
import { Governance } from '../../../../src/features/stats/governance.js';
import { NodeRpcClient } from '../../../../src/features/stats/node-rpc.js';
import { DerivedViews } from '../../../../src/features/stats/views.js';
import { GatewayError } from '../../../../src/core/errors.js';
import type { RingBlock } from '../../../../src/features/stats/upstream-types.js';
import { captureLogs } from '../../../helpers/app.js';
import { FakeNode } from '../../../fixtures/stats/fake-node.js';

const T0 = 1_700_000_000_000;
const blk = (height: number, extra: Partial<RingBlock> = {}): RingBlock => ({
  height,
  hash: `${height}`.padStart(64, '0'),
  timestamp: T0 + height * 6000,
  protocolVersion: 2,
  author: null,
  transactions: [],
  ...extra,
});

interface IndexerAnswers {
  currentEpochInfo: { epochNo: number; durationSeconds: number; elapsedSeconds: number } | null;
  dParameterHistory: Array<{ blockHeight: number; numPermissionedCandidates: number; numRegisteredCandidates: number }> | null;
}

/** The governance part of an indexer: Governance and EpochUtilization, answered from `answers`. */
async function indexer(t: Test, answers: IndexerAnswers): Promise<GraphqlHttpClient> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { operationName } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { operationName: string };
      const data = operationName === 'Governance' ? answers : { epochUtilization: null };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const http = new GraphqlHttpClient(`http://127.0.0.1:${(server.address() as { port: number }).port}/api/v4/graphql`, {
    timeoutMs: 2_000,
    maxResponseBytes: 65_536,
  });
  t.teardown(async () => {
    await http.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return http;
}

async function rig(t: Test, answers: IndexerAnswers, blocks: RingBlock[]) {
  const node = await FakeNode.start();
  const rpc = new NodeRpcClient(node.url, { timeoutMs: 300 });
  t.teardown(async () => {
    await rpc.close();
    await node.close();
  });
  const http = await indexer(t, answers);
  const window = new BlockWindow(10);
  for (const b of blocks) window.put(b);
  const clock = new ManualClock(T0 + 60_000);
  const logs = captureLogs('debug');
  const governance = new Governance(http, clock, logs.logger, { rpc, window });
  const follower = new ChainFollower({
    http,
    wsUrl: undefined,
    window,
    clock,
    log: logs.logger,
    pollIntervalMs: 1_000,
    reconnectMinMs: 10,
    reconnectMaxMs: 10,
    ackTimeoutMs: 1_000,
  });
  const views = new DerivedViews({
    network: { id: 'mainnet', name: 'Midnight Mainnet', source: 'test' },
    window,
    follower,
    governance,
    chainEpochSeconds: undefined,
  });
  governance.on('updated', () => views.invalidate());
  const refresh = async (): Promise<void> => {
    clock.advance(60_000);
    governance.maybeRefresh();
    await governance.settled();
  };
  const json = (route: 'epoch' | 'd-parameter'): unknown => JSON.parse(Buffer.from(views.get(route, clock.now()).body).toString('utf8'));
  return { node, governance, views, window, clock, logs, refresh, json };
}

const NO_INDEXER_DATA: IndexerAnswers = { currentEpochInfo: null, dParameterHistory: null };

t.test('without currentEpochInfo or system parameters, both come from the node', async (t) => {
  const { node, governance, refresh, json, clock } = await rig(t, NO_INDEXER_DATA, [blk(1), blk(2)]);
  node.status = { epoch: 100, slot: 0, nextEpochTimestamp: 101 * 7_200_000 };
  await refresh();
  t.strictSame(governance.epoch, { number: 100, durationSeconds: 7200, startMs: 100 * 7_200_000 });
  clock.set(100 * 7_200_000 + 1_800_000);
  t.strictSame(json('epoch'), { number: 100, durationSeconds: 7200, elapsedSeconds: 1800, remainingSeconds: 5400, progress: 0.25 });
  t.strictSame(node.calls.find((c) => c.method === 'systemParameters_getDParameter')?.params, [`0x${'2'.padStart(64, '0')}`], 'read at the tip');
  t.strictSame(json('d-parameter'), { numPermissionedCandidates: 7, numRegisteredCandidates: 3, blockHeight: 2, effectiveSinceHeight: null });
});

t.test('the history still says since when the node-read D-parameter holds', async (t) => {
  const history = [
    { blockHeight: 0, numPermissionedCandidates: 10, numRegisteredCandidates: 0 },
    { blockHeight: 2, numPermissionedCandidates: 7, numRegisteredCandidates: 3 },
  ];
  const { refresh, json } = await rig(t, { currentEpochInfo: null, dParameterHistory: history }, [blk(3), blk(4)]);
  await refresh();
  t.strictSame(json('d-parameter'), { numPermissionedCandidates: 7, numRegisteredCandidates: 3, blockHeight: 4, effectiveSinceHeight: 2 });
});

t.test('what the indexer has, the node is not asked for', async (t) => {
  const withParams = blk(2, { systemParameters: { dParameter: { numPermissionedCandidates: 10, numRegisteredCandidates: 0 } } });
  const { node, governance, refresh, json } = await rig(
    t,
    { currentEpochInfo: { epochNo: 5, durationSeconds: 600, elapsedSeconds: 60 }, dParameterHistory: null },
    [blk(1), withParams],
  );
  await refresh();
  t.equal(node.calls.length, 0, 'no call at all');
  t.equal(governance.epoch?.number, 5, 'the epoch from the indexer');
  t.strictSame(
    json('d-parameter'),
    { numPermissionedCandidates: 10, numRegisteredCandidates: 0, blockHeight: 2, effectiveSinceHeight: null },
    'the D-parameter from the block',
  );
});

t.test('a failing node keeps the last known values; with none, the 404 says why', async (t) => {
  const { node, governance, views, refresh, json, logs, clock } = await rig(t, NO_INDEXER_DATA, [blk(1), blk(2)]);
  node.mode = 'down';
  await refresh();
  t.match(governance.nodeEpochError, { code: 'EPOCH_UNAVAILABLE' });
  const epoch = t.throws(() => views.get('epoch', clock.now())) as GatewayError;
  t.equal(epoch.code, 'EPOCH_UNAVAILABLE');
  t.match(
    epoch.message,
    new RegExp(
      '^No epoch information for mainnet: the indexer has no currentEpochInfo and the epoch length is not ' +
        'known; nor did the node RPC give it \\(The node could not be reached for sidechain_getStatus: ',
    ),
  );
  const dp = t.throws(() => views.get('d-parameter', clock.now())) as GatewayError;
  t.equal(dp.code, 'D_PARAMETER_UNAVAILABLE');
  t.match(
    dp.message,
    /^No block with system parameters has been received yet; nor did the node RPC give it \(The node could not be reached for systemParameters_getDParameter: /,
  );
  t.ok(
    logs.lines.some((l) => l['level'] === 40 && /node RPC gave no epoch/.test(String(l['msg']))),
    'logged at warn',
  );
  t.notMatch(JSON.stringify(logs.lines), /SECRET/, 'the URL stays out of the logs');

  node.mode = 'ok';
  await refresh();
  t.equal(governance.nodeEpochError, undefined, 'an answer clears the error');
  const known = json('d-parameter');
  node.mode = 'slow';
  await refresh();
  t.strictSame(json('d-parameter'), known, 'the last reading is kept');
  t.match(governance.nodeDParameterError, { code: 'D_PARAMETER_UNAVAILABLE', message: /within 300 ms/ });
  t.match(governance.nodeEpochError, { code: 'EPOCH_UNAVAILABLE' });
  t.strictSame(governance.epoch, { number: 944_444, durationSeconds: 1800, startMs: 944_444 * 1_800_000 }, 'and the last anchor');
});

t.test('without a node, the routes answer as before', async (t) => {
  const http = await indexer(t, NO_INDEXER_DATA);
  const window = new BlockWindow(10);
  window.put(blk(1));
  window.put(blk(2));
  const clock = new ManualClock(T0 + 60_000);
  const { logger } = captureLogs();
  const governance = new Governance(http, clock, logger);
  const follower = new ChainFollower({
    http,
    wsUrl: undefined,
    window,
    clock,
    log: logger,
    pollIntervalMs: 1_000,
    reconnectMinMs: 10,
    reconnectMaxMs: 10,
    ackTimeoutMs: 1_000,
  });
  const views = new DerivedViews({
    network: { id: 'mainnet', name: 'Midnight Mainnet', source: 'test' },
    window,
    follower,
    governance,
    chainEpochSeconds: undefined,
  });
  governance.maybeRefresh();
  await governance.settled();
  t.throws(
    () => views.get('epoch', clock.now()),
    new GatewayError('EPOCH_UNAVAILABLE', 'No epoch information for mainnet: the indexer has no currentEpochInfo and the epoch length is not known'),
  );
  t.throws(() => views.get('d-parameter', clock.now()), new GatewayError('D_PARAMETER_UNAVAILABLE'));
});
