/**
 * The summary route on Node's own `http` module, written the plain way: match the URL, read the
 * summary from an in-memory object, JSON.stringify it per request, write the same headers.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, fixtureFromArgv } from './baseline-process.js';

const fixture = fixtureFromArgv();
const summaries: Record<string, unknown> = { [fixture.network]: fixture.body };
const ROUTE = /^\/api\/v1\/([^/?]+)\/summary(?:\?|$)/;

const server = createServer((req, res) => {
  const match = ROUTE.exec(req.url ?? '');
  const summary = match && req.method === 'GET' ? summaries[match[1] as string] : undefined;
  if (summary === undefined) {
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    res.end('{"error":"Not Found"}');
    return;
  }
  const body = JSON.stringify(summary);
  res.writeHead(200, { ...fixture.headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  announce('node-http', (server.address() as AddressInfo).port, () => server.close());
});
