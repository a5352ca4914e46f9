/**
 * The ceiling: the same native uWS build nightgate loads (src/http/uws.ts), one handler answering
 * the summary route with a buffer serialized once at start-up, with the same headers. No routing
 * work beyond uWS's own, no JSON per request, no pipeline.
 */
import { loadUws } from '../../src/http/uws.js';
import { SUMMARY_ROUTE, announce, fixtureFromArgv } from './baseline-process.js';

const fixture = fixtureFromArgv();
const { uws } = loadUws();
const body = Buffer.from(JSON.stringify(fixture.body));
const headers = Object.entries(fixture.headers);

const app = uws.App().get(SUMMARY_ROUTE, (res) => {
  res.writeStatus('200 OK');
  for (const [name, value] of headers) res.writeHeader(name, value);
  res.end(body);
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write('raw-uws: cannot listen\n');
    process.exit(1);
  }
  announce('raw-uws', uws.us_socket_local_port(socket as never), () => uws.us_listen_socket_close(socket));
});
