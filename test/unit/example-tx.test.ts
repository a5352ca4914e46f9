import t from 'tap';
import { baseUrl, ExampleTxError, exampleTransaction, isExampleKind } from '../../src/example-tx.js';

t.test('the base URL is read as curl reads it', async (t) => {
  t.equal(baseUrl('localhost:8080'), 'http://localhost:8080');
  t.equal(baseUrl('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080');
  t.equal(baseUrl('HTTPS://gw.example'), 'HTTPS://gw.example');
});

t.test('the kinds', async (t) => {
  for (const k of ['unproven', 'proven', 'finalized', 'prove-payload']) t.ok(isExampleKind(k), k);
  t.notOk(isExampleKind('bound'));
  t.notOk(isExampleKind(undefined));
});

t.test('a proving request needs no server: the zswap-output preimage as a /prove body', async (t) => {
  const body = await exampleTransaction({ url: 'http://127.0.0.1:9', network: 'preview', kind: 'prove-payload' });
  const tag = 'midnight:(proof-preimage-versioned,option(proving-data),option(fr-bls)):';
  t.equal(Buffer.from(body.subarray(0, tag.length)).toString('latin1'), tag);
});

t.test('a transfer without a reachable server says where it looked', async (t) => {
  const err = await exampleTransaction({ url: '127.0.0.1:9', network: 'preview', kind: 'unproven' }).then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof ExampleTxError, 'an ExampleTxError: the CLI prints its message alone and exits 1');
  t.match((err as Error).message, /^cannot read the test account from http:\/\/127\.0\.0\.1:9 \(.+\): is nightgate running there\? \(--url\)$/);
});
