import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { isNativeUws, loadFrom, loadUws, packageDir } from '../../../src/http/uws.js';

t.test('the loaded uWebSockets.js is a native build, never the JS fallback', async (t) => {
  const l = loadUws();
  t.ok(isNativeUws(l), `native: ${l.file}`);
  t.match(l.file, /uws_[a-z]+_[a-z0-9]+_\d+\.node$/);
  t.match(Function.prototype.toString.call(l.uws.App), /\[native code\]/);
  t.equal(loadUws(), l, 'loaded once');
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
        'Supported: Node 22 or 24 on Linux with glibc ≥ 2\\.38 .*; Node 20 with glibc ≥ 2\\.36 .*\\. nightgate never runs on a JavaScript fallback\\.$',
    ),
  });
  t.throws(() => loadFrom(() => empty), { message: new RegExp(`@btc-vision/uwebsockets\\.js: has no ${abi.replace(/\./g, '\\.')} \\(no build for this Node ABI and platform\\)`) });
  writeFileSync(join(empty, abi), 'not a shared object');
  t.throws(() => loadFrom(() => empty), { message: new RegExp(`@btc-vision/uwebsockets\\.js: ${join(empty, abi).replace(/\./g, '\\.')}: .+`) });
});
