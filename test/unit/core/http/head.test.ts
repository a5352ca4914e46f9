import t from 'tap';
import { fieldLine, fieldValue, headerLines } from '../../../../src/core/http/head.js';

t.test('fieldValue: CR, LF and NUL become spaces; anything else is kept', async (t) => {
  t.equal(fieldValue('public, max-age=6'), 'public, max-age=6');
  t.equal(fieldValue('"abc"'), '"abc"', 'the same string, quotes and all');
  t.equal(fieldValue('a\r\nX-Injected: 1'), 'a  X-Injected: 1');
  t.equal(fieldValue('a\nb\rc\0d'), 'a b c d');
});

t.test('fieldLine: one CRLF-led line; a name that is not a token is dropped', async (t) => {
  t.equal(fieldLine('ETag', '"v1"'), '\r\nETag: "v1"');
  t.equal(fieldLine('X-Echo', 'x\r\nSet-Cookie: a=b'), '\r\nX-Echo: x  Set-Cookie: a=b');
  t.equal(fieldLine('Bad Name', 'v'), '');
  t.equal(fieldLine('X\r\nY', 'v'), '');
  t.equal(fieldLine('', 'v'), '');
});

t.test('headerLines: every field of the record, in order', async (t) => {
  t.equal(headerLines({}), '');
  t.equal(headerLines({ ETag: '"e"', 'Cache-Control': 'no-store', 'X-Cache': 'HIT' }), '\r\nETag: "e"\r\nCache-Control: no-store\r\nX-Cache: HIT');
  t.equal(headerLines({ A: '1', 'B C': '2', D: '3\n' }), '\r\nA: 1\r\nD: 3 ');
});
