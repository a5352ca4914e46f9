/** GraphQL over HTTP: every failure mapped to its catalogue code; the response size cap. */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { GraphqlHttpClient } from '../../../../src/infra/indexer/graphql-http.js';
import { BASELINE_FEATURES, documentsFor } from '../../../../src/features/stats/queries.js';

/** The tip query as the statistics send it to an indexer of unknown features. */
const TIP = documentsFor(BASELINE_FEATURES).tip;

async function upstream(t: Test, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const srv = createServer(handler);
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  t.teardown(() => {
    srv.closeAllConnections();
    srv.close();
  });
  return `http://127.0.0.1:${(srv.address() as { port: number }).port}/api/v4/graphql`;
}

const client = (t: Test, url: string, opts: { timeoutMs?: number; maxResponseBytes?: number } = {}): GraphqlHttpClient => {
  const c = new GraphqlHttpClient(url, { timeoutMs: opts.timeoutMs ?? 2000, maxResponseBytes: opts.maxResponseBytes ?? 1024 });
  t.teardown(() => c.close());
  return c;
};

t.test('posts the document with its operation name; data back', async (t) => {
  let seen: unknown;
  const url = await upstream(t, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      seen = { method: req.method, path: req.url, type: req.headers['content-type'], body: JSON.parse(body) };
      res.end(JSON.stringify({ data: { block: null } }));
    });
  });
  const c = client(t, url);
  t.strictSame(await c.request(TIP, { a: 1 }), { data: { block: null }, errors: [] });
  t.strictSame(seen, {
    method: 'POST',
    path: '/api/v4/graphql',
    type: 'application/json',
    body: { operationName: 'Tip', query: TIP.text, variables: { a: 1 } },
  });
  t.equal(c.requests, 1);
});

t.test('GraphQL errors: refused unless partial data is accepted', async (t) => {
  const url = await upstream(t, (_req, res) => res.end(JSON.stringify({ data: { block: null, x: 1 }, errors: [{ message: 'no SPO indexer' }] })));
  const c = client(t, url);
  await t.rejects(c.request(TIP), { code: 'INDEXER_BAD_RESPONSE', message: 'The indexer answered Tip with an error: no SPO indexer' });
  t.strictSame(await c.request(TIP, {}, { partial: true }), { data: { block: null, x: 1 }, errors: ['no SPO indexer'] });
  t.equal(c.failures, 1);
});

t.test('HTTP errors, junk and oversize bodies are INDEXER_BAD_RESPONSE', async (t) => {
  const bodies: Record<string, [number, string]> = {
    '/status': [502, '{"errors":[{"message":"upstream"}]}'],
    '/junk': [200, '<html>'],
    '/big': [200, JSON.stringify({ data: { pad: 'x'.repeat(2000) } })],
    '/null': [200, 'null'],
  };
  const url = await upstream(t, (req, res) => {
    const [status, body] = bodies[req.url!]!;
    res.writeHead(status, req.url === '/big' ? { 'transfer-encoding': 'chunked' } : {});
    res.end(body);
  });
  const base = new URL(url).origin;
  await t.rejects(client(t, `${base}/status`).request(TIP), { code: 'INDEXER_BAD_RESPONSE', message: 'The indexer answered Tip with an error: upstream' });
  await t.rejects(client(t, `${base}/junk`).request(TIP), {
    code: 'INDEXER_BAD_RESPONSE',
    message: 'The indexer answered Tip with HTTP 200 and a body that is not JSON',
  });
  await t.rejects(client(t, `${base}/big`).request(TIP), { code: 'INDEXER_BAD_RESPONSE', message: "The indexer's response exceeds the 1024-byte limit" });
  await t.rejects(client(t, `${base}/null`).request(TIP), {
    code: 'INDEXER_BAD_RESPONSE',
    message: 'The indexer answered Tip with HTTP 200 and no GraphQL result',
  });
});

t.test("no answer in time is INDEXER_TIMEOUT; nobody listening is INDEXER_UNAVAILABLE; a caller abort is the caller's", async (t) => {
  const url = await upstream(t, () => undefined);
  await t.rejects(client(t, url, { timeoutMs: 100 }).request(TIP), { code: 'INDEXER_TIMEOUT', message: 'The indexer did not answer Tip within 100 ms' });
  const ac = new AbortController();
  const pending = client(t, url).request(TIP, {}, { signal: ac.signal });
  ac.abort(new Error('client left'));
  await t.rejects(pending, { message: 'client left' });
  const closed = await upstream(t, (req) => req.socket.destroy());
  await t.rejects(client(t, closed).request(TIP), { code: 'INDEXER_UNAVAILABLE' });
  await t.rejects(client(t, 'http://127.0.0.1:9/graphql').request(TIP), {
    code: 'INDEXER_UNAVAILABLE',
    message: 'The indexer could not be reached: ECONNREFUSED',
  });
});
