/**
 * gzip and brotli for the replies served many times (http/compression.ts): negotiation with
 * q-values and identity, Vary, a tag per coding, HEAD and 304; and the summary's weak ETag, which
 * follows its data, not the clock.
 */
import t from 'tap';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { startApp } from '../../helpers/app.js';
import { statsApp } from '../../fixtures/stats/stats-app.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

async function raw(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<Raw> {
  const r = await request(url, { method, headers });
  return { status: r.statusCode, headers: r.headers, bytes: Buffer.from(await r.body.arrayBuffer()) };
}

t.test('the OpenAPI document: gzip, brotli or identity as Accept-Encoding says, each with its own tag', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const url = `${s.url}/api/openapi.json`;
  const plain = await raw(url);
  t.equal(plain.status, 200);
  t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: identity');
  t.equal(plain.headers['vary'], 'Accept-Encoding', 'identity answers say Vary too');
  const etag = plain.headers['etag'] as string;
  t.match(etag, /^"[A-Za-z0-9_-]{22}"$/);

  const gz = await raw(url, { 'accept-encoding': 'gzip' });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.equal(gz.headers['vary'], 'Accept-Encoding');
  t.same(gunzipSync(gz.bytes), plain.bytes, 'gunzipped: the same bytes');
  t.ok(gz.bytes.length < plain.bytes.length / 4, `smaller (${gz.bytes.length} of ${plain.bytes.length} bytes)`);
  t.equal(gz.headers['etag'], etag.replace(/"$/, '-gz"'));
  t.equal(gz.headers['content-length'], String(gz.bytes.length));

  const br = await raw(url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
  t.equal(br.headers['content-encoding'], 'br', "a browser's list: brotli");
  t.same(brotliDecompressSync(br.bytes), plain.bytes);
  t.equal(br.headers['etag'], etag.replace(/"$/, '-br"'));

  const cases: Array<[string, string | undefined]> = [
    ['gzip;q=0.5, br;q=0.4', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['identity', undefined],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['identity;q=1, gzip;q=0.9', undefined],
    ['GZIP', 'gzip'],
    ['compress, deflate', undefined],
    ['gzip;q=abc', undefined],
  ];
  for (const [accept, coding] of cases) {
    const r = await raw(url, { 'accept-encoding': accept });
    t.equal(r.headers['content-encoding'], coding, `Accept-Encoding: ${accept}`);
  }
  const refused = await raw(url, { 'accept-encoding': 'identity;q=0, deflate' });
  t.equal(refused.status, 200, 'identity refused and nothing else we make: identity all the same');
  t.equal(refused.headers['content-encoding'], undefined);
});

t.test("HEAD states the chosen coding's length; 304 only for the tag of the coding asked for", async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const url = `${s.url}/api/openapi.json`;
  const gz = await raw(url, { 'accept-encoding': 'gzip' });
  const head = await raw(url, { 'accept-encoding': 'gzip' }, 'HEAD');
  t.equal(head.status, 200);
  t.equal(head.bytes.length, 0);
  t.equal(head.headers['content-length'], String(gz.bytes.length));
  t.equal(head.headers['content-encoding'], 'gzip');
  t.equal(head.headers['etag'], gz.headers['etag']);

  const etag = gz.headers['etag'] as string;
  const same = await raw(url, { 'accept-encoding': 'gzip', 'if-none-match': etag });
  t.equal(same.status, 304);
  t.equal(same.bytes.length, 0);
  t.equal(same.headers['etag'], etag);
  t.equal(same.headers['vary'], 'Accept-Encoding');
  const other = await raw(url, { 'accept-encoding': 'br', 'if-none-match': etag });
  t.equal(other.status, 200, 'the gzip tag does not validate the brotli form');
  t.equal(other.headers['content-encoding'], 'br');
});

t.test('cached statistics: the summary compressed, small bodies not, and its weak ETag across a clock tick', async (t) => {
  const { get, clock, fake, net, s } = await statsApp(t, { blocks: 20 });
  const url = `${s.url}/api/v1/mainnet/summary`;
  const first = await raw(url);
  t.equal(first.status, 200);
  const etag = first.headers['etag'] as string;
  t.match(etag, /^W\/"[A-Za-z0-9_-]{22}"$/, 'weak: equivalent, not byte-identical, answers share it');
  // recent-transactions, rendered once per block: above 1 KiB with its twenty transactions.
  const recentUrl = `${s.url}/api/v1/mainnet/recent-transactions?limit=20`;
  const recent = await raw(recentUrl);
  t.ok(recent.bytes.length >= 1024, `recent-transactions is ${recent.bytes.length} bytes`);
  const gz = await raw(recentUrl, { 'accept-encoding': 'gzip' });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.equal(gz.headers['vary'], 'Accept-Encoding');
  t.same(gunzipSync(gz.bytes), recent.bytes);
  t.equal(gz.headers['etag'], (recent.headers['etag'] as string).replace(/"$/, '-gz"'));
  const small = await raw(`${s.url}/api/v1/mainnet/latest-block`, { 'accept-encoding': 'gzip' });
  t.equal(small.status, 200);
  t.ok(small.bytes.length < 1024, 'the latest-block answer is small');
  t.equal(small.headers['content-encoding'], undefined, 'under 1 KiB: sent as it is');
  t.equal(small.headers['vary'], undefined, 'and without Vary');

  clock.advance(1000);
  const later = await raw(url);
  t.not(later.bytes.toString(), first.bytes.toString(), 'a second later the body differs (generatedAt, ages)');
  t.equal(later.headers['etag'], etag, 'its tag does not: the data is the same');
  const polled = await raw(url, { 'if-none-match': etag });
  t.equal(polled.status, 304, 'a dashboard polling with If-None-Match gets 304 across the tick');

  fake.addBlock(fake.tip!.timestamp + 6000, [fake.tx()]);
  await net.follower.waitForHeight(fake.blocks.length - 1);
  clock.advance(1000);
  const moved = await get('/api/v1/mainnet/summary', { 'if-none-match': etag });
  t.equal(moved.status, 200, 'a new block: a new tag');
  t.not(moved.headers['etag'], etag);
});
