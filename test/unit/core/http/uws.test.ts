import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { HEADER_SECTION_BYTES, loadFrom, loadUws, packageDir, remedy } from '../../../../src/core/http/uws.js';

t.test('the loaded uWebSockets.js is a native build, never the JS fallback', async (t) => {
  const l = loadUws();
  t.match(l.file, /uws_[a-z]+_[a-z0-9]+_\d+\.node$/);
  t.match(Function.prototype.toString.call(l.uws.App), /\[native code\]/);
  t.equal(loadUws(), l, 'loaded once');
  t.match(l.version, /^\d+\.\d+\.\d+/, `${l.source} ${l.version}`);
});

t.test('the build CI expects is the one loaded (NIGHTGATE_EXPECT_UWS, set by the trixie lane)', async (t) => {
  const expected = process.env['NIGHTGATE_EXPECT_UWS'];
  const l = loadUws();
  if (!expected) {
    t.comment(`loaded ${l.source}@${l.version} on Node ${process.version}; no expectation set`);
    t.ok(['@btc-vision/uwebsockets.js', '@trufflesuite/uws-js-unofficial'].includes(l.source));
    return;
  }
  t.equal(`${l.source}@${l.version}`, expected, `Node ${process.version}`);
});

t.test('the header-section bound the 20.57 build reads at load is set before it loads', async (t) => {
  // Set by loadFrom unless the environment had it; the 20.30 build ignores it.
  t.ok(Number(process.env['UWS_HTTP_MAX_HEADERS_SIZE']) >= 16_384, String(process.env['UWS_HTTP_MAX_HEADERS_SIZE']));
  t.equal(HEADER_SECTION_BYTES, 131_072);
});

t.test('both packages are found, though one hides its package.json behind `exports`', async (t) => {
  const btc = packageDir('@btc-vision/uwebsockets.js');
  t.ok(btc && existsSync(join(btc, 'package.json')), String(btc));
  t.ok(packageDir('@trufflesuite/uws-js-unofficial'));
  t.equal(packageDir('@btc-vision/uwebsockets.js', ['/nonexistent/node_modules']), undefined);
});

t.test('every package is tried; what each said is in the error, with the supported combinations', async (t) => {
  const abi = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  const empty = mkdtempSync(join(tmpdir(), 'nightgate-uws-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  t.throws(() => loadFrom(() => undefined), {
    name: 'UwsLoadError',
    message: new RegExp(
      `^no native uWebSockets\\.js build loads on Node ${process.version.replace(/\./g, '\\.')} \\(ABI ${process.versions.modules}, .*\\)\\. Tried:\\n` +
        '  @btc-vision/uwebsockets\\.js: not installed \\(run `npm ci`\\)\\n' +
        '  @trufflesuite/uws-js-unofficial: not installed \\(run `npm ci`\\)\\n' +
        'Supported: Node 22 or 24 on Linux with glibc ≥ 2\\.38 .*; Node 20 with glibc ≥ 2\\.36 .*\\. Run `npm ci` in the ' +
        'nightgate folder\\. nightgate never runs on a JavaScript fallback\\.$',
    ),
  });
  t.throws(() => loadFrom(() => empty), {
    message: new RegExp(`@btc-vision/uwebsockets\\.js: has no ${abi.replace(/\./g, '\\.')} \\(no build for this Node ABI and platform\\)`),
  });
  writeFileSync(join(empty, abi), 'not a shared object');
  t.throws(() => loadFrom(() => empty), { message: new RegExp(`@btc-vision/uwebsockets\\.js: ${join(empty, abi).replace(/\./g, '\\.')}: .+`) });
});

t.test('the error says what to change on this system, for each unsupported combination', async (t) => {
  const glibc238 = "@btc-vision/uwebsockets.js: /x/uws_linux_x64_127.node: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found";
  const noAbi = '@trufflesuite/uws-js-unofficial: has no uws_linux_x64_127.node (no build for this Node ABI and platform)';
  // Node 22 on Debian 12: measured on this repository's CI machine (Node 22.23.3 from the npm registry).
  t.equal(
    remedy([glibc238, noAbi], 22, '2.36'),
    "This system's glibc 2.36 is older than the 2.38 Node 22 needs: run Node 20 here, or Node 22 on a system with glibc ≥ 2.38. ",
  );
  t.equal(
    remedy([glibc238, noAbi], 24, '2.31'),
    "This system's glibc 2.31 is older than the 2.38 Node 24 needs: run Node 20 here, or Node 24 on a system with glibc ≥ 2.38. ",
  );
  t.equal(remedy(['a', 'b'], 20, '2.31'), "This system's glibc 2.31 is older than every build needs (2.36). ");
  t.equal(remedy(['a', 'b'], 26, '2.41'), 'Node 26 is not supported: use Node 22 or 24 on this system. ');
  t.equal(remedy(['a', 'b'], 23, '2.36'), 'Node 23 is not supported: use Node 20 on this system. ');
  t.equal(remedy(['a', 'b'], 22, 'unknown (not glibc?)'), 'Run it on Linux with glibc (this system reports none). ');
  t.equal(remedy(['@btc-vision/uwebsockets.js: not installed (run `npm ci`)', noAbi], 22, '2.41'), 'Run `npm ci` in the nightgate folder. ');
  t.equal(remedy(['a', 'b'], 22, '2.41'), '', 'a supported combination that still fails: the per-package lines say why');
});

t.test('app.close() ends kept-alive connections at once, not only the listening socket (both builds)', async (t) => {
  const { uws } = loadUws();
  const app = uws.App();
  app.get('/*', (res) => void res.end('ok'));
  const listen = await new Promise<unknown>((resolve) => app.listen('127.0.0.1', 0, resolve));
  t.ok(listen, 'listening');
  const sock = connect(uws.us_socket_local_port(listen as never), '127.0.0.1');
  const answered = new Promise<void>((resolve) => sock.once('data', () => resolve()));
  const closed = new Promise<string>((resolve) => sock.once('close', () => resolve('closed by the server')));
  sock.on('error', () => undefined);
  sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  await answered;
  // Both builds have it; the typings (from the 20.30 package) do not declare it.
  (app as typeof app & { close(): void }).close();
  // uWS's idle timeout would end it after about 10 s; the bound is only for a failure.
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still open after 5 s'), 5_000)));
  t.equal(await Promise.race([closed, bound]), 'closed by the server');
  clearTimeout(timer);
  sock.destroy();
});
