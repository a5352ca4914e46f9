import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { DEFAULT_TIMEOUT_S, parseSubmitArgs, parseSubmitInput, SubmitTxError, submitTransaction } from '../../../src/cli/submit-tx.js';
import { loadConfig } from '../../../src/core/config/index.js';
import { decodeSubmitExtrinsic, ledger } from '../../../src/infra/ledger/index.js';

const TX = Buffer.from('midnight:transaction[v9](signature[v1],proof,binding):\x00\x01\x02', 'latin1');
const TX_HASH = 'ab'.repeat(32);
const answer = (extra: Record<string, unknown> = {}): Buffer =>
  Buffer.from(JSON.stringify({ tx: TX.toString('hex'), txHash: TX_HASH, network: 'preview', fee: '1', ...extra }, null, 2) + '\n');

t.test('arguments: --network is required and known; --url, --key and --timeout have their defaults', async (t) => {
  t.same(parseSubmitArgs(['--network', 'preview']), { network: 'preview', url: 'http://127.0.0.1:8080', key: undefined, timeoutMs: DEFAULT_TIMEOUT_S * 1000 });
  t.same(parseSubmitArgs(['--url', 'localhost:8080', '--network', 'preprod', '--key', 'ngk_x', '--timeout', '2.5']), {
    network: 'preprod',
    url: 'localhost:8080',
    key: 'ngk_x',
    timeoutMs: 2500,
  });
  const problems: Array<[string[], string]> = [
    [[], '--network is required'],
    [['--key', 'ngk_x'], '--network is required'],
    [['--network', 'devnet'], '--network must be one of mainnet, preprod, preview'],
    [['--network'], '--network needs a value'],
    [['--network', '--key', 'ngk_x'], '--network needs a value'],
    [['--network', 'preview', '--key', ''], '--key needs a value'],
    [['--network', 'preview', '--network', 'preprod'], '--network given twice'],
    [['--network', 'preview', 'sponsored.json'], 'unknown argument "sponsored.json"'],
    [['--network', 'preview', '--wait', '5'], 'unknown argument "--wait"'],
    ...['0', '-1', 'abc', '1e3', '5s'].map((v): [string[], string] => [
      ['--network', 'preview', '--timeout', v],
      '--timeout must be a positive number of seconds',
    ]),
  ];
  for (const [args, problem] of problems) t.same(parseSubmitArgs(args), { problem }, args.join(' ') || '(none)');
});

t.test('stdin: the JSON answer of a sponsorship route', async (t) => {
  const input = parseSubmitInput(answer());
  t.same(Buffer.from(input.tx), TX, 'tx decoded from hex');
  t.equal(input.txHash, TX_HASH);
  t.equal(parseSubmitInput(answer({ txHash: TX_HASH.toUpperCase() })).txHash, TX_HASH, 'the hash in lower case, as the routes name it');
  t.equal(parseSubmitInput(answer({ txHash: undefined })).txHash, undefined, 'no txHash: the devnet names it');
});

t.test("stdin: a transaction's bytes", async (t) => {
  const input = parseSubmitInput(TX);
  t.same(Buffer.from(input.tx), TX);
  t.equal(input.txHash, undefined);
});

t.test('stdin: anything else is refused with what it is', async (t) => {
  const refused = (input: Buffer | string, message: RegExp, name: string): void => {
    t.throws(() => parseSubmitInput(Buffer.from(input)), { constructor: SubmitTxError, message }, name);
  };
  refused('', /^stdin is empty: redirect the answer of \/prove-and-balance to it/, 'empty');
  refused('curl: (7) Failed to connect', /^stdin is neither JSON nor transaction bytes/, 'not JSON');
  refused('[1]', /^stdin is JSON but not an object/, 'an array');
  refused(
    JSON.stringify({ error: 'Unauthorized', message: 'Missing or invalid API key', code: 'UNAUTHORIZED' }),
    /^stdin is an error answer, not a transaction: UNAUTHORIZED: Missing or invalid API key$/,
    'an error answer',
  );
  refused(JSON.stringify({ txHash: TX_HASH }), /^stdin has no "tx" in hex/, 'no tx');
  refused(answer({ tx: 'xyz' }), /^stdin has no "tx" in hex/, 'tx not hex');
  refused(answer({ tx: 'abc' }), /^stdin has no "tx" in hex/, 'tx of odd length');
  refused(answer({ txHash: 'ab' }), /^stdin's "txHash" is not 64 hex digits$/, 'a short txHash');
  refused(
    answer({ tx: Buffer.from('midnight:proof-versioned:\x00').toString('hex') }),
    /^stdin's "tx" is midnight:proof-versioned, not a transaction/,
    'a proof in tx',
  );
  refused(
    'midnight:(proof-preimage-versioned,option(proving-data)):\x00',
    /^stdin is midnight:\(proof-preimage-versioned,option\(proving-data\)\), not a transaction/,
    'a proving payload',
  );
});

interface Stub {
  url: string;
  health: Record<string, unknown> | number;
  submitted: Array<{ type: string | undefined; body: Buffer }>;
  healthKeys: Array<string | undefined>;
  polled: string[];
  /** The node's JSON-RPC answer to author_submitExtrinsic (`result` or `error`). */
  submitAnswer: Record<string, unknown>;
  /** How many polls answer 404 before the 200 (Infinity: never on chain). */
  pending: number;
}

/** nightgate and its devnet in one: /health naming `/submit` on the same server, the transaction route. */
async function stub(t: Test): Promise<Stub> {
  const s: Stub = {
    url: '',
    health: {},
    submitted: [],
    healthKeys: [],
    polled: [],
    submitAnswer: { result: `0x${'cd'.repeat(32)}` },
    pending: 2,
  };
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    if (url.pathname === '/health') {
      s.healthKeys.push(req.headers['x-api-key'] as string | undefined);
      if (typeof s.health === 'number') return send(res, s.health, { error: 'Unauthorized', code: 'UNAUTHORIZED' });
      return send(res, 200, s.health);
    }
    if (url.pathname === '/rpc') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string; params: string[] };
        s.submitted.push({ type: call.method, body: Buffer.from(decodeSubmitExtrinsic(Buffer.from(call.params[0]!.slice(2), 'hex')).tx) });
        send(res, 200, { jsonrpc: '2.0', id: call.id, ...s.submitAnswer });
      });
      return;
    }
    if (url.pathname === '/api/v1/preview/transaction') {
      const hash = url.searchParams.get('hash') ?? '';
      s.polled.push(hash);
      if (s.polled.length <= s.pending)
        return send(res, 404, { error: 'Not Found', message: `No transaction with hash ${hash}`, code: 'TRANSACTION_NOT_FOUND' });
      return send(res, 200, { hash, block: { height: 7, hash: 'ef'.repeat(32) } });
    }
    send(res, 404, { code: 'NOT_FOUND' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  s.url = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  s.health = {
    status: 'ok',
    components: {
      devnet: {
        status: 'ok',
        networks: {
          preview: {
            name: 'preview',
            networkId: 'undeployed',
            graphqlUrl: `http://${s.url}/api/v4/graphql`,
            graphqlWsUrl: `ws://${s.url}/api/v4/graphql/ws`,
            nodeRpcUrl: `http://${s.url}/rpc`,
            profile: 'default',
          },
        },
      },
    },
  };
  return s;
}

const run = (s: Stub, extra: Partial<Parameters<typeof submitTransaction>[0]> = {}): Promise<unknown> =>
  submitTransaction({
    network: 'preview',
    url: s.url,
    key: 'ngk_x',
    timeoutMs: 5_000,
    tx: TX,
    txHash: TX_HASH,
    pollMs: 5,
    config: loadConfig({ env: {} }),
    ...extra,
  });

t.test('submits to the node RPC of the devnet /health names, then polls the transaction route until it answers 200', async (t) => {
  const s = await stub(t);
  const lines: string[] = [];
  const detail = await run(s, { log: (l) => lines.push(l) });
  t.same(detail, { hash: TX_HASH, block: { height: 7, hash: 'ef'.repeat(32) } }, "the route's answer");
  t.same(s.healthKeys, ['ngk_x'], '/health asked with the key (X-API-Key)');
  t.equal(s.submitted.length, 1);
  t.equal(s.submitted[0]!.type, 'author_submitExtrinsic');
  t.same(s.submitted[0]!.body, TX, 'the bytes as read, in their extrinsic');
  t.same(s.polled, [TX_HASH, TX_HASH, TX_HASH], "by the answer's txHash: two 404s, then the 200");
  t.same(lines, [`submitted ${TX_HASH} to preview through its node (the embedded devnet); waiting for it on chain`]);
});

t.test("raw bytes: polled by the transaction's own hash", async (t) => {
  const s = await stub(t);
  s.pending = 0;
  const L = ledger(9);
  const tx = L.Transaction.fromParts('undeployed', undefined, undefined, L.Intent.new(new Date(Date.now() + 60_000)))
    .mockProve()
    .bind();
  await run(s, { txHash: undefined, tx: tx.serialize() });
  t.same(s.polled, [tx.transactionHash()]);
});

t.test('an embedded network the server runs no devnet for is refused before anything is sent', async (t) => {
  const s = await stub(t);
  s.health = { status: 'ok', components: { devnet: { status: 'ok', networks: {} } } };
  await t.rejects(run(s), {
    constructor: SubmitTxError,
    message: /^preview is not served by an embedded devnet at http:\/\/127\.0\.0\.1:\d+, though this configuration says it is \(networks\.preview\.indexer\)/,
  });
  s.health = { status: 'ok', components: { stats: { status: 'ok' } } };
  await t.rejects(run(s), { message: /^preview is not served by an embedded devnet/ }, 'no devnet component at all');
  t.equal(s.submitted.length, 0);
});

t.test('a public network: its configured node RPC, with its project id, and no /health', async (t) => {
  const s = await stub(t);
  s.pending = 0;
  const seen: Array<string | undefined> = [];
  const node = createServer((req, res) => {
    seen.push(req.headers['project_id'] as string | undefined);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: 1010, message: 'Invalid Transaction', data: 'Custom error: 196' } }));
    });
  });
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  t.teardown(() => node.close());
  const config = loadConfig({
    env: {
      NIGHTGATE_PREVIEW_INDEXER: 'http://127.0.0.1:9/api/v4/graphql',
      NIGHTGATE_PREVIEW_NODE_RPC: `http://127.0.0.1:${(node.address() as AddressInfo).port}`,
      NIGHTGATE_PREVIEW_PROJECT_ID: 'previewPID',
      NIGHTGATE_PROVER_URL: 'http://127.0.0.1:9',
    },
  });
  await t.rejects(run(s, { config }), {
    message: new RegExp(
      '^the preview node refused the transaction: NODE_REJECTED: The node refused the transaction: 1010: ' +
        'Invalid Transaction \\(Custom error: 196\\) — DustDoubleSpend$',
    ),
  });
  t.same(seen, ['previewPID']);
  t.same(s.healthKeys, [], "the server's /health is not needed");
  t.same(s.polled, [], 'nothing polled after a refusal');
});

t.test('/health without a key, or with a refused one, says to pass --key', async (t) => {
  const s = await stub(t);
  s.health = { status: 'ok', version: '1.0.0' };
  await t.rejects(run(s, { key: undefined }), { message: /lists its components only to a key: pass one with --key$/ });
  s.health = 401;
  await t.rejects(run(s), { message: /^http:\/\/127\.0\.0\.1:\d+ refused the API key \(401\): pass a valid one with --key$/ });
  t.equal(s.submitted.length, 0);
});

t.test('no server at --url', async (t) => {
  await t.rejects(submitTransaction({ network: 'preview', url: '127.0.0.1:9', key: 'k', timeoutMs: 5_000, tx: TX, txHash: TX_HASH }), {
    constructor: SubmitTxError,
    message: /^cannot read http:\/\/127\.0\.0\.1:9\/health \(.+\): is nightgate running there\? \(--url\)$/,
  });
});

t.test('a refusal of the node is printed with its code and reason; nothing is polled', async (t) => {
  const s = await stub(t);
  s.submitAnswer = { error: { code: 1010, message: 'Invalid Transaction', data: 'Custom error: 170' } };
  await t.rejects(run(s), {
    message:
      'the preview node refused the transaction: NODE_REJECTED: The node refused the transaction: 1010: Invalid Transaction ' +
      '(Custom error: 170) — InvalidDustSpendProof',
  });
  t.same(s.polled, []);
});

t.test('not on chain within --timeout', async (t) => {
  const s = await stub(t);
  s.pending = Infinity;
  await t.rejects(run(s, { timeoutMs: 500 }), {
    constructor: SubmitTxError,
    message: new RegExp(
      '^the transaction is not on chain after 0\\.5 s \\(--timeout\\); GET ' +
        'http:\\/\\/127\\.0\\.0\\.1:\\d+\\/api\\/v1\\/preview\\/transaction\\?hash=[0-9a-f]{64} last answered ' +
        '404 ',
    ),
  });
  t.ok(s.polled.length >= 2, 'polled more than once');
});
