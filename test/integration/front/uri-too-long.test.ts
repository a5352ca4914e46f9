/**
 * The request line counts towards `server.maxHeaderBytes`: a 100 KB URL is answered 414 with
 * `Connection: close` (it used to be served), and a line plus headers over the bound is a 431.
 */
import t from 'tap';
import { rawRequest } from '../../helpers/raw-http.js';
import { startApp } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';

t.test('a request line longer than server.maxHeaderBytes: 414, answered, connection closed', async (t) => {
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module] });
  t.teardown(() => s.close());
  for (const [name, target] of [
    ['100 KB query', `/t/public?q=${'a'.repeat(100_000)}`],
    ['100 KB path', `/t/${'a'.repeat(100_000)}`],
  ] as const) {
    const r = await rawRequest(s.port, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
    t.match(r.data, /^HTTP\/1\.1 414 [^]*\r\nConnection: close\r\n[^]*"code":"URI_TOO_LONG"/i, name);
    t.ok(r.closed, `${name}: closed`);
  }
  const line = `/t/public?q=${'a'.repeat(10_000)}`;
  const both = await rawRequest(s.port, `GET ${line} HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(8_000)}\r\n\r\n`);
  t.match(both.data, /^HTTP\/1\.1 431 [^]*"code":"HEADERS_TOO_LARGE"/, 'line and headers together over the bound: 431');
  const fine = await rawRequest(s.port, `GET /t/public?q=${'a'.repeat(8_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  t.match(fine.data, /^HTTP\/1\.1 200 /, 'a long line within the bound is served');
  t.equal(s.app.server.inFlight, 0);
});
