/** The statistics routes document every status they can answer, their parameters and headers. */
import t from 'tap';
import { statsApp } from '../fixtures/stats/stats-app.js';

type Op = {
  parameters: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown> }>;
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown> }> }>;
};

const DERIVED = ['summary', 'latest-block', 'block-time', 'blocks-produced', 'uptime', 'epoch', 'd-parameter'];
const LOOKUPS = ['search', 'block', 'transaction', 'contract', 'address-activity'];

t.test('OpenAPI: statuses, parameters, headers', async (t) => {
  const { get } = await statsApp(t, { blocks: 1 });
  const doc = (await get('/api/openapi.json')).json as { paths: Record<string, { get: Op }> };
  const op = (p: string): Op => doc.paths[`/api/v1/{network}/${p}`]!.get;
  for (const p of DERIVED) t.strictSame(Object.keys(op(p).responses), ['200', '304', '404', '405', '429', '500', '503'], p);
  t.strictSame(Object.keys(op('night-supply').responses), ['200', '304', '404', '405', '429', '503']);
  for (const p of [...LOOKUPS, 'recent-transactions']) t.strictSame(Object.keys(op(p).responses), ['200', '304', '400', '404', '405', '429', '500', '503'], p);
  for (const p of [...LOOKUPS, ...DERIVED, 'recent-transactions', 'night-supply']) t.ok(op(p).responses['200']!.headers!['X-Cache'], `${p} documents X-Cache`);
  for (const p of [...DERIVED, 'recent-transactions'])
    t.match(JSON.stringify(op(p).responses['200']!.headers!['Age']), /STALE/, `${p} documents Age with STALE`);
  for (const p of [...DERIVED, ...LOOKUPS, 'night-supply', 'recent-transactions']) {
    t.ok(op(p).responses['200']!.headers!['ETag'], `${p} documents ETag`);
    t.ok(op(p).responses['200']!.content!['application/json']!.schema, `${p} documents its body`);
    t.strictSame(
      op(p).parameters[0],
      {
        name: 'network',
        in: 'path',
        required: true,
        description: 'mainnet, preprod or preview',
        schema: { type: 'string', enum: ['mainnet', 'preprod', 'preview'] },
      },
      'an enum: Swagger UI offers the three',
    );
  }
  t.strictSame(op('recent-transactions').parameters[1], {
    name: 'limit',
    in: 'query',
    required: false,
    description: '1..100, default 20; decimal digits, no sign, leading zero or space',
    schema: { minimum: 1, maximum: 100, default: 20, type: 'integer' },
  });
  t.strictSame(
    op('address-activity').parameters.map((p) => [p.name, p.required]),
    [
      ['network', true],
      ['identifier', true],
      ['limit', false],
    ],
  );
  t.strictSame(
    op('block').parameters.map((p) => [p.name, p.required]),
    [
      ['network', true],
      ['height', false],
      ['hash', false],
    ],
  );
  t.match(JSON.stringify(op('epoch').responses['404']), /EPOCH_UNAVAILABLE/);
  t.match(JSON.stringify(op('block').responses['404']), /BLOCK_NOT_FOUND/);
  for (const p of ['address-activity', 'search']) {
    t.match(JSON.stringify(op(p).responses['503']), /INDEXER_BUSY/, `${p}: 503 INDEXER_BUSY when no address stream is free`);
    t.ok(op(p).responses['503']!.headers!['Retry-After'], `${p}: its 503 documents Retry-After`);
  }
  for (const p of ['block', 'transaction', 'contract']) t.notMatch(JSON.stringify(op(p).responses['503']), /INDEXER_BUSY/, `${p} reads no address`);
  t.ok(doc.paths['/api/v1/{network}/summary'], 'summary documented');
});

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>; 'x-websocket'?: Record<string, unknown> }>
  >;
  components: { schemas: Record<string, Record<string, unknown>> };
};

t.test('OpenAPI: every body is a named schema, referenced with $ref', async (t) => {
  const { get } = await statsApp(t, { blocks: 1 });
  const doc = (await get('/api/openapi.json')).json as Doc;
  const schemas = doc.components.schemas;
  let bodies = 0;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      for (const [status, r] of Object.entries(op.responses)) {
        for (const [type, c] of Object.entries(r.content ?? {})) {
          if (!type.startsWith('application/json')) continue;
          bodies++;
          const $ref = String(c.schema?.['$ref'] ?? '');
          t.match($ref, /^#\/components\/schemas\/[A-Za-z0-9]+$/, `${method} ${path} ${status}: a $ref`);
          t.ok(schemas[$ref.split('/').pop()!], `${method} ${path} ${status}: ${$ref} is defined`);
        }
      }
    }
  }
  t.ok(bodies > 50, `${bodies} JSON bodies checked`);
  const summary = doc.paths['/api/v1/{network}/summary']!['get']!;
  t.strictSame(summary.responses['200']!.content!['application/json']!.schema, { $ref: '#/components/schemas/Summary' });
  t.strictSame(summary.responses['404']!.content!['application/json']!.schema, { $ref: '#/components/schemas/Error' }, 'errors are the one Error schema');
  t.strictSame(
    (schemas['Summary']!['properties'] as Record<string, unknown>)['latestBlock'],
    { $ref: '#/components/schemas/LatestBlock' },
    'nested parts are named too',
  );
  for (const name of [
    'Error',
    'Summary',
    'LatestBlock',
    'BlockDetail',
    'TransactionDetail',
    'ContractDetail',
    'AddressActivity',
    'SearchResult',
    'RecentTransactions',
    'Fees',
    'Health',
    'NotReady',
    'PushClientMessage',
  ])
    t.ok(schemas[name], `${name} is named`);
  t.strictSame(schemas['Error']!['required'], ['error', 'message', 'code']);
  t.notOk(JSON.stringify(doc).includes('"$id"'), 'no $id left inline');
});

t.test('OpenAPI: the push channel is described as the upgrading GET, 101 and x-websocket', async (t) => {
  const { get } = await statsApp(t, { blocks: 1 });
  const doc = (await get('/api/openapi.json')).json as Doc;
  const ws = doc.paths['/api/v1/{network}/ws']!['get']! as Doc['paths'][string][string] & {
    parameters: Array<{ name: string; in: string; required: boolean }>;
  };
  t.strictSame(Object.keys(ws.responses), ['101', '403', '404', '429', '503']);
  t.strictSame(
    ws.parameters.filter((p) => p.required).map((p) => `${p.in}:${p.name}`),
    ['path:network', 'header:Upgrade', 'header:Connection', 'header:Sec-WebSocket-Key', 'header:Sec-WebSocket-Version'],
  );
  t.match(ws['x-websocket'], { serverMessages: { $ref: '#/components/schemas/Summary' }, clientMessages: { $ref: '#/components/schemas/PushClientMessage' } });
  t.match(JSON.stringify(ws.responses['404']), /UNKNOWN_NETWORK/);
});
