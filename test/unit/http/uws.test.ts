import t from 'tap';
import { loadUws, isNativeUws } from '../../../src/http/uws.js';

t.test('the loaded uWebSockets.js is a native build, never the JS fallback', async (t) => {
  const l = loadUws();
  t.ok(isNativeUws(l), `native: ${l.file}`);
  t.match(l.file, /uws_[a-z]+_[a-z0-9]+_\d+\.node$/);
  t.match(Function.prototype.toString.call(l.uws.App), /\[native code\]/);
  t.equal(loadUws(), l, 'loaded once');
});
