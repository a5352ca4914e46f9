// Submission to a node: the extrinsic's framing, JSON-RPC over HTTP and WebSocket with the
// provider's credentials, and each refusal a node answers mapped to its catalogue code.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { WebSocketServer } from 'ws';
import { GatewayError } from '../../../../src/core/errors.js';
import { compactDecode, compactEncode, decodeSubmitExtrinsic, encodeSubmitExtrinsic, MIDNIGHT_EXTRINSIC } from '../../../../src/infra/ledger/index.js';
import { Submitter } from '../../../../src/infra/node/submitter.js';

t.test('SCALE compact integers at each width boundary', async (t) => {
  const cases: Array<[bigint, string]> = [
    [0n, '00'],
    [1n, '04'],
    [63n, 'fc'],
    [64n, '0101'],
    [16383n, 'fdff'],
    [16384n, '02000100'],
    [(1n << 30n) - 1n, 'feffffff'],
    [1n << 30n, '0300000040'],
    [(1n << 32n) - 1n, '03ffffffff'],
    [1n << 32n, '070000000001'],
  ];
  for (const [n, hex] of cases) {
    t.equal(Buffer.from(compactEncode(n)).toString('hex'), hex, `${n}`);
    t.same(compactDecode(Buffer.from(hex, 'hex')), { value: n, length: hex.length / 2 });
  }
  t.throws(() => compactDecode(Buffer.from('01', 'hex')), /truncated/);
});

t.test('the extrinsic: compact(len) ‖ 0x04 ‖ pallet 5 ‖ call 0 ‖ compact(len(tx)) ‖ tx', async (t) => {
  const tx = Buffer.concat([Buffer.from('midnight:transaction[v9]:'), Buffer.alloc(300, 7)]);
  const x = encodeSubmitExtrinsic(tx);
  // 3 + 2 (compact 325) + 325 = 330 bytes after the outer length (compact 330 = 2 bytes).
  t.equal(
    Buffer.from(x.subarray(0, 7)).toString('hex'),
    `${Buffer.from(compactEncode(330)).toString('hex')}040500${Buffer.from(compactEncode(325)).toString('hex')}`,
  );
  t.equal(x.length, 332);
  t.same(Buffer.from(x.subarray(7)), tx, 'the transaction bytes unchanged');
  const back = decodeSubmitExtrinsic(x);
  t.same({ version: back.version, pallet: back.pallet, call: back.call }, MIDNIGHT_EXTRINSIC);
  t.same(Buffer.from(back.tx), tx);
  const v5 = encodeSubmitExtrinsic(tx, { pallet: 7, call: 1, version: 5 });
  t.equal(Buffer.from(v5.subarray(2, 5)).toString('hex'), '050701');
  t.throws(() => decodeSubmitExtrinsic(x.subarray(0, 100)), /says it has 330 bytes/);
  const signed = Uint8Array.from(x);
  signed[2] = 0x84;
  t.throws(() => decodeSubmitExtrinsic(signed), /not a bare extrinsic of format 4 or 5 \(format byte 0x84/);
});

/**
 * A real extrinsic of a public chain: Midnight Preprod's genesis block #0, extrinsic 13 of 29, as
 * its chain spec carries it (`properties.genesis_extrinsics`, res/preprod/chain-spec-raw.json of
 * midnight-node's node-0.22.3 release; a Preprod node's `system_properties` answers the same
 * string). The node builds it with `UncheckedExtrinsic::new_bare(Midnight::send_mn_transaction)`.
 */
const PREPROD_GENESIS_EXTRINSIC_13 =
  '750305050061036d69646e696768743a7472616e73616374696f6e5b76395d287369676e61747572655b76315d2c70726f6f662c706564657273656e' +
  '2d7363686e6f72725b76315d293a04004502011c70726570726f640b00203d88792d35e3bad57cb169ad35a2d7e3072638ba36217a1738cbf8a2aa8f' +
  'f19f1f8d7748a70316cff92b35b129a9844aa82ec19e5ff6d2643be7a7aba56ab8116ffe73a25f71112e655b765ecc18264b6618d056061ac37698c0' +
  '1683310b7d27442bf5e3cdbb2c8f52945428c2a37e046e24b90771da253b1cb3f5f56f8daab587d4788100';

t.test('the framing matches an extrinsic of Midnight Preprod', async (t) => {
  const real = Buffer.from(PREPROD_GENESIS_EXTRINSIC_13, 'hex');
  t.equal(real.length, 223);
  const { version, pallet, call, tx } = decodeSubmitExtrinsic(real);
  t.same({ version, pallet, call }, { version: 5, pallet: 5, call: 0 }, 'a bare extrinsic (format 5) calling Midnight (pallet 5) send_mn_transaction (call 0)');
  t.equal(tx.length, 216);
  t.match(
    Buffer.from(tx).toString('latin1'),
    /^midnight:transaction\[v9\]\(signature\[v1\],proof,pedersen-schnorr\[v1\]\):/,
    'the transaction as the ledger serializes it, unchanged',
  );
  t.same(Buffer.from(encodeSubmitExtrinsic(tx, { version: 5, pallet: 5, call: 0 })), real, 'encoding its transaction gives the same bytes');
  const v4 = encodeSubmitExtrinsic(tx);
  t.same(
    Buffer.from(v4),
    Buffer.concat([real.subarray(0, 2), Buffer.from([4]), real.subarray(3)]),
    'the default (format 4, as the wallet SDK submits) differs in that one byte',
  );
});

interface Recorded {
  headers: IncomingMessage['headers'];
  body: { method: string; params: string[] };
}

async function stubNode(answer: (body: Recorded['body']) => object, status = 200) {
  const seen: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    seen.push({ headers: req.headers, body });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...answer(body) }));
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws, req) => {
    ws.on('message', (data) => {
      const body = JSON.parse(String(data));
      seen.push({ headers: req.headers, body });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...answer(body) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    http: `http://127.0.0.1:${port}/`,
    ws: `ws://127.0.0.1:${port}/`,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const TX = Buffer.from('midnight:transaction[v9](signature,proof,binding):abc');

for (const transport of ['http', 'ws'] as const) {
  t.test(`author_submitExtrinsic over ${transport}, with the project id`, async (t) => {
    const node = await stubNode(() => ({ result: `0x${'ab'.repeat(32)}` }));
    t.teardown(node.close);
    const s = new Submitter({
      network: 'preprod',
      nodeRpc: node[transport],
      headers: { project_id: 'preprodXYZ' },
      framing: MIDNIGHT_EXTRINSIC,
      timeoutMs: 2_000,
    });
    t.teardown(() => s.close());
    t.same(await s.submit(TX), { via: 'node', alreadyKnown: false, extrinsicHash: `0x${'ab'.repeat(32)}` });
    t.equal(node.seen.length, 1);
    const { headers, body } = node.seen[0]!;
    t.equal(headers['project_id'], 'preprodXYZ');
    t.equal(body.method, 'author_submitExtrinsic');
    t.equal(body.params.length, 1);
    t.equal(body.params[0], `0x${Buffer.from(encodeSubmitExtrinsic(TX)).toString('hex')}`);
    await s.submit(TX);
    t.equal(node.seen.length, 2, 'the second call on the same connection');
  });
}

t.test("a node's refusals, each with its code", async (t) => {
  const cases: Array<[object, string, RegExp]> = [
    [
      { code: 1010, message: 'Invalid Transaction', data: 'Custom error: 196' },
      'NODE_REJECTED',
      /1010: Invalid Transaction \(Custom error: 196\) — DustDoubleSpend/,
    ],
    [{ code: 1010, message: 'Invalid Transaction', data: 'Custom error: 171' }, 'NODE_REJECTED', /OutOfDustValidityWindow/],
    [{ code: 1010, message: 'Invalid Transaction', data: 'Custom error: 12' }, 'NODE_REJECTED', /Custom error: 12\)$/],
    [{ code: 1001, message: 'Extrinsic has invalid format' }, 'NODE_REJECTED', /1001/],
    [{ code: 1002, message: 'Verification Error', data: 'Runtime error' }, 'NODE_REJECTED', /1002/],
    [{ code: 1014, message: 'Transaction is temporarily banned' }, 'NODE_BUSY', /temporarily banned/],
    [{ code: -32601, message: 'Method not found' }, 'NODE_BAD_RESPONSE', /-32601/],
  ];
  for (const [error, code, message] of cases) {
    const node = await stubNode(() => ({ error }));
    const s = new Submitter({ network: 'preview', nodeRpc: node.http, framing: MIDNIGHT_EXTRINSIC, timeoutMs: 2_000 });
    const err = (await s.submit(TX).catch((e: unknown) => e)) as GatewayError;
    t.type(err, GatewayError);
    t.equal(err.code, code, JSON.stringify(error));
    t.match(err.message, message);
    if (code === 'NODE_BUSY') t.equal(err.headers?.['Retry-After'], '6');
    await s.close();
    await node.close();
  }
  const known = await stubNode(() => ({ error: { code: 1013, message: 'Transaction Already Imported' } }));
  const s = new Submitter({ network: 'preview', nodeRpc: known.http, framing: MIDNIGHT_EXTRINSIC, timeoutMs: 2_000 });
  t.same(await s.submit(TX), { via: 'node', alreadyKnown: true }, '1013: the same transaction is in the pool, so it is accepted');
  await s.close();
  await known.close();
});

t.test('a provider that refuses the credentials, retires the endpoint or is over quota', async (t) => {
  for (const [status, code, message] of [
    [401, 'NODE_UNAUTHORIZED', /refused the credentials \(HTTP 401\): check networks\.preprod\.projectId \(NIGHTGATE_PREPROD_PROJECT_ID\)/],
    [410, 'NODE_DECOMMISSIONED', /decommissioned \(HTTP 410\): set networks\.preprod\.nodeRpc \(NIGHTGATE_PREPROD_NODE_RPC\)/],
    [429, 'NODE_BUSY', /quota/],
  ] as const) {
    const node = await stubNode(() => ({ error: { code: 0, message: 'no' } }), status);
    const s = new Submitter({ network: 'preprod', nodeRpc: node.http, headers: { project_id: 'SECRETid' }, framing: MIDNIGHT_EXTRINSIC, timeoutMs: 2_000 });
    const err = (await s.submit(TX).catch((e: unknown) => e)) as GatewayError;
    t.equal(err.code, code);
    t.match(err.message, message);
    t.notMatch(err.message, /SECRETid|127\.0\.0\.1/, 'neither the secret nor the URL');
    await s.close();
    await node.close();
  }
});

t.test('nowhere to submit, a node that is down, a relay', async (t) => {
  const none = new Submitter({ network: 'mainnet', nodeRpc: undefined, framing: MIDNIGHT_EXTRINSIC, timeoutMs: 500 });
  t.equal(none.unavailable, 'no node to submit to on mainnet: set networks.mainnet.nodeRpc (NIGHTGATE_MAINNET_NODE_RPC)');
  await t.rejects(none.submit(TX), { code: 'NODE_UNAVAILABLE' });
  const node = await stubNode(() => ({ result: '0x00' }));
  const down = node.http;
  await node.close();
  const s = new Submitter({ network: 'mainnet', nodeRpc: down, framing: MIDNIGHT_EXTRINSIC, timeoutMs: 500 });
  const err = (await s.submit(TX).catch((e: unknown) => e)) as GatewayError;
  t.equal(err.code, 'NODE_UNAVAILABLE');
  t.match(err.message, /could not be reached \(ECONNREFUSED\)/);
  await s.close();
  const bodies: Buffer[] = [];
  const relay = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    bodies.push(Buffer.concat(chunks));
    res.writeHead(bodies.length === 1 ? 202 : 400).end('refused');
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  t.teardown(() => relay.close());
  const r = new Submitter({
    network: 'mainnet',
    nodeRpc: 'http://127.0.0.1:9/',
    relayUrl: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/submit`,
    framing: MIDNIGHT_EXTRINSIC,
    timeoutMs: 2_000,
  });
  t.same(await r.submit(TX), { via: 'relay', alreadyKnown: false }, 'the deprecated relay takes the bare transaction');
  t.same(bodies[0], TX);
  await t.rejects(r.submit(TX), { code: 'NODE_REJECTED', message: /relay answered 400: refused/ });
});
