/**
 * The ceiling: the same native uWS build nightgate loads (src/core/http/uws.ts), one handler answering
 * the summary route with a buffer serialized once at start-up, with the same headers. No routing
 * work beyond uWS's own, no JSON per request, no pipeline.
 *
 * With `--read-address` (the `raw-uws-address` baseline of the wrk rounds) the handler also makes
 * the one native call nightgate makes on every request for its per-IP rate limit and its
 * closed-socket check (src/core/http/refusal.ts), `res.getRemoteAddress()`. This uWS build answers it
 * with a `getpeername` system call and a new ArrayBuffer each time (bench/profiling.md); the
 * baseline shows what that call alone costs at the rate the wrk rounds drive.
 */
import { loadUws } from '../../src/core/http/uws.js';
import { SUMMARY_ROUTE, announce, fixtureFromArgv } from './baseline-process.js';

const fixture = fixtureFromArgv();
const readAddress = process.argv.includes('--read-address');
const name = readAddress ? 'raw-uws-address' : 'raw-uws';
const { uws } = loadUws();
const body = Buffer.from(JSON.stringify(fixture.body));
const headers = Object.entries(fixture.headers);

const app = uws.App().get(SUMMARY_ROUTE, (res) => {
  // Read as nightgate reads it: an empty address means the socket is already closed.
  if (readAddress && res.getRemoteAddress().byteLength === 0) return void res.close();
  res.writeStatus('200 OK');
  for (const [name, value] of headers) res.writeHeader(name, value);
  res.end(body);
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write(`${name}: cannot listen\n`);
    process.exit(1);
  }
  announce(name, uws.us_socket_local_port(socket as never), () => uws.us_listen_socket_close(socket));
});
