import t from 'tap';
import { gunzipSync } from 'node:zlib';
import { COMPRESS_MIN_BYTES, Encoded, negotiate, parseAcceptEncoding } from '../../../../src/core/http/compression.js';
import { RenderedReply } from '../../../../src/features/stats/rendered-reply.js';

t.test('Accept-Encoding: q-values, *, identity, ties', async (t) => {
  const cases: Array<[string, string]> = [
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['br;q=0.8, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.4', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['identity', 'identity'],
    ['identity;q=1, gzip;q=0.9', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['*;q=0', 'identity'],
    ['x-gzip', 'gzip'],
    [' GZIP ; Q=1 ', 'gzip'],
    ['gzip;q=abc', 'identity'],
    ['gzip;q=2', 'gzip'],
    ['deflate, compress', 'identity'],
    [',,;', 'identity'],
  ];
  for (const [header, want] of cases) t.equal(parseAcceptEncoding(header), want, header);
  t.equal(negotiate(undefined), 'identity');
  t.equal(negotiate(''), 'identity');
  t.equal(negotiate('gzip, br'), 'br');
  t.equal(negotiate('gzip, br'), 'br', 'the same text again (cached)');
});

t.test('a body is compressed once per coding, however often it is served; small bodies never', async (t) => {
  const body = Buffer.from(JSON.stringify({ rows: Array.from({ length: 100 }, (_, i) => ({ i, name: `row ${i}` })) }));
  t.ok(body.byteLength >= COMPRESS_MIN_BYTES);
  const e = new Encoded(body, '"abc"');
  const gz = e.bodyFor('gzip');
  t.equal(e.bodyFor('gzip'), gz, 'the same Buffer object: made once');
  t.equal(e.bodyFor('br'), e.bodyFor('br'));
  t.same(gunzipSync(gz), body);
  t.equal(e.bodyFor('identity'), body);
  t.same([e.choose('gzip'), e.choose('br'), e.choose('identity')], ['gzip', 'br', 'identity']);
  t.same([e.etagFor('identity'), e.etagFor('gzip'), e.etagFor('br')], ['"abc"', '"abc-gz"', '"abc-br"']);
  t.equal(new Encoded(body, 'W/"abc"').etagFor('br'), 'W/"abc-br"', 'weak stays weak');

  const small = new Encoded(Buffer.from('{"a":1}'), '"s"');
  t.equal(small.compressible, false);
  t.equal(small.choose('br'), 'identity');
  // Random bytes do not shrink: identity is sent.
  const noise = new Encoded(Buffer.from(Array.from({ length: 4096 }, () => Math.floor(Math.random() * 256))), '"n"');
  t.equal(noise.choose('gzip'), 'identity', 'a form that is not smaller is not used');
});

t.test('RenderedReply: the compressed forms follow the body; a weak tag follows what the caller names', async (t) => {
  const r = new RenderedReply();
  const value = { rows: Array.from({ length: 100 }, (_, i) => i) };
  r.set(value, 'public, max-age=1');
  const first = r.encoded;
  r.set(value, 'public, max-age=2');
  t.equal(r.encoded, first, 'same JSON: the same forms, not made again');
  t.notMatch(r.headLines, /ETag/, 'the head lines leave ETag to the exchange');
  t.match(r.headLines, /Cache-Control: public, max-age=2/);
  t.match(r.headers.ETag, /^"/, 'strong without a tag source');

  r.set({ ...value, at: 1 }, 'public, max-age=1', undefined, { v: 1 });
  const tagged = r.headers.ETag;
  t.match(tagged, /^W\/"/, 'weak with a tag source');
  const forms = r.encoded;
  r.set({ ...value, at: 2 }, 'public, max-age=1', undefined, { v: 1 });
  t.equal(r.headers.ETag, tagged, 'new bytes, same data: the same tag');
  t.not(r.encoded, forms, 'but new forms for the new bytes');
  r.set({ ...value, at: 2 }, 'public, max-age=1', undefined, { v: 2 });
  t.not(r.headers.ETag, tagged, 'same bytes, new data: a new tag');
});
