/**
 * The ceiling for a server that must know its client: the raw uWS handler (raw-uws.ts) plus the one
 * native call nightgate makes on every request for its per-IP rate limit and its closed-socket
 * check (src/http/refusal.ts), `res.getRemoteAddress()`. In this uWS build that call returns a new
 * ArrayBuffer each time (≈ 0.85 µs in a handler, bench/profiling.md); this baseline shows what it
 * alone costs at the rate the wrk rounds drive.
 */
import { loadUws } from '../../src/http/uws.js';
import { SUMMARY_ROUTE, announce, fixtureFromArgv } from './baseline-process.js';

const fixture = fixtureFromArgv();
const { uws } = loadUws();
const body = Buffer.from(JSON.stringify(fixture.body));
const headers = Object.entries(fixture.headers);
let closedSockets = 0;

const app = uws.App().get(SUMMARY_ROUTE, (res) => {
  // Read as nightgate reads it: an empty address means the socket is already closed.
  if (res.getRemoteAddress().byteLength === 0) {
    closedSockets++;
    return void res.close();
  }
  res.writeStatus('200 OK');
  for (const [name, value] of headers) res.writeHeader(name, value);
  res.end(body);
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write('raw-uws-address: cannot listen\n');
    process.exit(1);
  }
  announce('raw-uws-address', uws.us_socket_local_port(socket as never), () => {
    if (closedSockets > 0) process.stderr.write(`raw-uws-address: ${closedSockets} requests on closed sockets\n`);
    uws.us_listen_socket_close(socket);
  });
});
