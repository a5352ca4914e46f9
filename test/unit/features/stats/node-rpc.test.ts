/**
 * The node JSON-RPC client against a local fake node: the epoch anchor from `sidechain_getStatus`,
 * the D-parameter at a block, and every failure as the catalogue code of what it leaves unknown,
 * bounded in time, without the node's URL in the message.
 */
import t, { type Test } from 'tap';
import { createServer } from 'node:net';
import { GatewayError } from '../../../../src/core/errors.js';
import { NodeRpcClient } from '../../../../src/features/stats/node-rpc.js';
import { epochAt } from '../../../../src/features/stats/epoch.js';
import { FakeNode } from '../../../fixtures/stats/fake-node.js';

async function setup(t: Test, timeoutMs = 2_000): Promise<{ node: FakeNode; rpc: NodeRpcClient }> {
  const node = await FakeNode.start();
  const rpc = new NodeRpcClient(node.url, { timeoutMs });
  t.teardown(async () => {
    await rpc.close();
    await node.close();
  });
  return { node, rpc };
}

async function failure(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof GatewayError)) throw new Error(`expected a GatewayError, got ${String(err)}`);
  return err;
}

t.test('the epoch: number from the status, length from the next epoch start', async (t) => {
  const { node, rpc } = await setup(t);
  const anchor = await rpc.epoch();
  t.strictSame(anchor, { number: 944_444, durationSeconds: 1800, startMs: 944_444 * 1_800_000 });
  t.strictSame(epochAt(anchor, 944_444 * 1_800_000 + 450_000), {
    number: 944_444,
    durationSeconds: 1800,
    elapsedSeconds: 450,
    remainingSeconds: 1350,
    progress: 0.25,
  });
  t.match(node.calls[0], { jsonrpc: '2.0', method: 'sidechain_getStatus', params: [] });
  // A length no chain spec here fixes (as on mainnet): two hours.
  node.status = { epoch: 240_000, slot: 0, nextEpochTimestamp: 240_001 * 7_200_000 };
  t.strictSame(await rpc.epoch(), { number: 240_000, durationSeconds: 7200, startMs: 240_000 * 7_200_000 });
  t.equal(rpc.requests, 2);
  t.equal(rpc.failures, 0);
});

t.test('an epoch length that is not whole seconds is a bad answer, not a guess', async (t) => {
  const { node, rpc } = await setup(t);
  node.status = { epoch: 2, slot: 0, nextEpochTimestamp: 4_501 };
  const err = await failure(rpc.epoch());
  t.equal(err.code, 'EPOCH_UNAVAILABLE');
  t.match(err.message, /sidechain_getStatus with epoch 2 ending at 4501 ms: not a whole number of seconds/);
  t.equal(rpc.failures, 1);
});

t.test('the D-parameter at a block hash, 0x-prefixed as the node wants it', async (t) => {
  const { node, rpc } = await setup(t);
  t.strictSame(await rpc.dParameter('ab'.repeat(32)), { numPermissionedCandidates: 7, numRegisteredCandidates: 3 });
  t.strictSame(node.calls[0]!.params, [`0x${'ab'.repeat(32)}`]);
  await rpc.dParameter(`0x${'cd'.repeat(32)}`);
  t.strictSame(node.calls[1]!.params, [`0x${'cd'.repeat(32)}`], 'a prefixed hash kept as it is');
});

t.test('failures map to the code of what stays unknown, name the cause, never the URL', async (t) => {
  const { node, rpc } = await setup(t, 300);
  const cases: Array<[string, () => void, RegExp]> = [
    [
      'JSON-RPC error',
      () => node.errors.set('systemParameters_getDParameter', { code: -32603, message: 'Runtime API error: UnknownBlock' }),
      /answered systemParameters_getDParameter with error -32603: Runtime API error: UnknownBlock/,
    ],
    [
      'malformed result',
      () => {
        node.errors.clear();
        node.dParameter = { numPermissionedCandidates: -1, numRegisteredCandidates: 3 };
      },
      /answer to systemParameters_getDParameter is malformed at \/numPermissionedCandidates: /,
    ],
    ['not JSON', () => (node.mode = 'garbage'), /answered systemParameters_getDParameter with HTTP 502 and a body that is not JSON/],
    ['too large', () => (node.mode = 'huge'), /answer to systemParameters_getDParameter exceeds the 65536-byte limit/],
    ['connection dropped', () => (node.mode = 'down'), /could not be reached for systemParameters_getDParameter: /],
    ['hangs', () => (node.mode = 'slow'), /did not answer systemParameters_getDParameter within 300 ms/],
  ];
  for (const [what, arrange, message] of cases) {
    arrange();
    const started = Date.now();
    const err = await failure(rpc.dParameter('ab'.repeat(32)));
    t.equal(err.code, 'D_PARAMETER_UNAVAILABLE', what);
    t.match(err.message, message, what);
    t.notMatch(err.message, /SECRET|127\.0\.0\.1/, `${what}: no URL in the message`);
    t.ok(Date.now() - started < 2_000, `${what}: bounded`);
  }
  t.equal(rpc.failures, cases.length);
  node.mode = 'ok';
  node.status = { epoch: 1, slot: 0, nextEpochTimestamp: 3_600_000 };
  node.errors.set('sidechain_getStatus', { code: -32601, message: 'Method not found' });
  t.match(await failure(rpc.epoch()), { code: 'EPOCH_UNAVAILABLE', message: /sidechain_getStatus with error -32601: Method not found/ });
});

t.test('a node that is not listening', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const rpc = new NodeRpcClient(`http://127.0.0.1:${port}/`, { timeoutMs: 1_000 });
  t.teardown(() => rpc.close());
  t.match(await failure(rpc.epoch()), { code: 'EPOCH_UNAVAILABLE', message: 'The node could not be reached for sidechain_getStatus: ECONNREFUSED' });
});
