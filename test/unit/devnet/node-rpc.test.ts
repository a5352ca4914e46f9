// The devnet's node RPC: author_submitExtrinsic over HTTP and WebSocket, as a Midnight node takes
// transactions, on both ledger eras; a node's refusals (1001, 1010, 1013); and the `public`
// profile, which wants the project id everywhere but /health and takes transactions only there.
import t from 'tap';
import { WebSocket } from 'undici';
import type { GatewayError } from '../../../src/core/errors.js';
import { encodeSubmitExtrinsic, MIDNIGHT_EXTRINSIC } from '../../../src/infra/ledger/index.js';
import { Submitter } from '../../../src/infra/node/submitter.js';
import { startNetwork } from '../../fixtures/devnet/harness.js';
import { signedTransfer } from '../../fixtures/devnet/signed-transfer.js';
import { ERAS, startEra } from './eras.js';

const submitter = (url: string, headers?: Record<string, string>) =>
  new Submitter({ network: 'preview', nodeRpc: url, framing: MIDNIGHT_EXTRINSIC, timeoutMs: 5_000, ...(headers ? { headers } : {}) });

for (const era of ERAS) {
  t.test(`ledger ${era}: a transfer submitted as an extrinsic lands in the next block`, async (t) => {
    const h = await startEra(era);
    t.teardown(() => h.close());
    const { tx, bytes } = await signedTransfer(h);
    const s = submitter(h.info.nodeRpcUrl);
    t.teardown(() => s.close());
    const sent = await s.submit(bytes);
    t.equal(sent.via, 'node');
    t.match(sent.extrinsicHash, /^0x[0-9a-f]{64}$/, "the node's hash of the extrinsic");
    t.same(await s.submit(bytes), { via: 'node', alreadyKnown: true }, 'the same again: 1013, accepted');
    const block = await h.network.produceBlock();
    const { data } = await h.gql('query($hash: HexEncoded!) { transactions(offset: { hash: $hash }) { raw block { height } } }', {
      hash: tx.transactionHash(),
    });
    t.equal(data.transactions[0].block.height, block.height);
    t.equal(data.transactions[0].raw, Buffer.from(bytes).toString('hex'), 'the transaction as sent, out of its extrinsic');
  });
}

t.test('over WebSocket; refusals as a node words them', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  const { bytes } = await signedTransfer(h);
  const ws = submitter(h.info.nodeRpcWsUrl);
  t.teardown(() => ws.close());
  t.equal((await ws.submit(bytes)).via, 'node');
  const garbage = (await ws.submit(new Uint8Array([1, 2, 3])).catch((e: unknown) => e)) as GatewayError;
  t.equal(garbage.code, 'NODE_REJECTED');
  t.match(garbage.message, /^The node refused the transaction: 1002: Verification Error/);
  const res = await fetch(h.info.nodeRpcUrl, {
    method: 'POST',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'author_submitExtrinsic',
      params: [`0x${Buffer.from(encodeSubmitExtrinsic(bytes)).toString('hex').slice(0, 40)}`],
    }),
  });
  t.same(await res.json(), {
    jsonrpc: '2.0',
    id: 7,
    error: {
      code: 1001,
      message: 'Extrinsic has invalid format',
      data: 'the extrinsic says it has ' + String(encodeSubmitExtrinsic(bytes).length - 2) + ' bytes, 18 follow its length',
    },
  });
  const unknown = await fetch(h.info.nodeRpcUrl, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'author_rotateKeys', params: [] }) });
  t.same(await unknown.json(), { jsonrpc: '2.0', id: 8, error: { code: -32601, message: 'Method not found' } });
});

t.test('the public profile: the project id on every request, transactions through the node RPC only', async (t) => {
  const h = await startNetwork({ profile: 'public', projectId: 'rehearsal-preview' });
  t.teardown(() => h.close());
  t.equal(h.info.profile, 'public');
  const gql = (headers: Record<string, string>) =>
    fetch(h.info.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: '{ block { height } }' }),
    });
  t.equal((await gql({})).status, 401);
  t.equal((await gql({ project_id: 'wrong' })).status, 401);
  t.equal((await gql({ project_id: 'rehearsal-preview' })).status, 200);
  t.equal((await fetch(h.info.graphqlUrl.replace('/api/v4/graphql', '/health'))).status, 200, '/health is open');
  const bare = await fetch(h.info.nodeRpcUrl, { method: 'POST', body: '{}' });
  t.equal(bare.status, 401, 'the node RPC too');
  const submit = await fetch(h.info.submitUrl, { method: 'POST', headers: { project_id: 'rehearsal-preview' }, body: new Uint8Array([1]) });
  t.equal(submit.status, 404);
  t.match(((await submit.json()) as { error: string }).error, /takes transactions through the node RPC/);
  t.equal((await fetch(h.info.faucetUrl, { method: 'POST', headers: { project_id: 'rehearsal-preview' }, body: '{}' })).status, 404, 'no faucet');
  const denied = submitter(h.info.nodeRpcUrl);
  t.teardown(() => denied.close());
  await t.rejects(denied.submit(new Uint8Array([1])), { code: 'NODE_UNAUTHORIZED' });
  const allowed = submitter(h.info.nodeRpcUrl, { project_id: 'rehearsal-preview' });
  t.teardown(() => allowed.close());
  await t.rejects(allowed.submit(new Uint8Array([1])), { code: 'NODE_REJECTED' }, 'let in, and the garbage refused by the ledger');
  // GraphQL over WebSocket: refused without the id in the upgrade or the connection_init payload.
  const closed = await wsAck(h.info.graphqlWsUrl, {});
  t.equal(closed, 'closed 4403');
  t.equal(await wsAck(h.info.graphqlWsUrl, { project_id: 'rehearsal-preview' }), 'ack', 'in the connection_init payload');
  t.equal(await wsAck(h.info.graphqlWsUrl, {}, { project_id: 'rehearsal-preview' }), 'ack', 'in the upgrade header');
});

function wsAck(url: string, payload: Record<string, string>, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { protocols: 'graphql-transport-ws', headers });
    ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload })));
    ws.addEventListener('message', (ev) => {
      if (JSON.parse(String(ev.data)).type === 'connection_ack') {
        resolve('ack');
        ws.close();
      }
    });
    ws.addEventListener('close', (ev) => resolve(`closed ${ev.code}`));
  });
}
