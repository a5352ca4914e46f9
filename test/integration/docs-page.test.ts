/**
 * `/docs` is one public page for every request: nothing of the request (Host, X-Forwarded-Proto,
 * X-Forwarded-Host) is written into it, so a cache that keeps it cannot hand one client's Host to
 * another, and any number of junk Hosts cannot push the page out of its table or its compression.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t from 'tap';
import { request } from 'undici';
import { startApp, type TestApp } from '../helpers/app.js';

interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The page as served, decoded from its Content-Encoding. */
  html: string;
}

async function docs(s: TestApp, headers: Record<string, string> = {}): Promise<Page> {
  const r = await request(`${s.url}/docs`, { headers });
  const raw = Buffer.from(await r.body.arrayBuffer());
  const coding = r.headers['content-encoding'];
  const html = (coding === 'gzip' ? gunzipSync(raw) : coding === 'br' ? brotliDecompressSync(raw) : raw).toString('utf8');
  return { status: r.statusCode, headers: r.headers, html };
}

t.test("a Host and X-Forwarded-Proto of the client's choosing are not written into the page", async (t) => {
  const s = await startApp({});
  t.teardown(() => s.close());
  const plain = await docs(s);
  t.equal(plain.status, 200);
  t.notMatch(plain.html, /javascript|evil\.example/i, 'the page names neither on its own');
  const forged = await docs(s, { host: 'evil.example', 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example' });
  t.equal(forged.status, 200);
  t.notMatch(forged.html, /evil\.example/, 'no Host in the page');
  t.notMatch(forged.html, /javascript/i, 'no X-Forwarded-Proto in the page');
  t.equal(forged.html, plain.html, 'the same page as for anyone');
  t.match(forged.html, /<pre>curl [^<]* http:\/\/127\.0\.0\.1:8080\/prove /, 'the examples on the default address');
});

t.test('from a trusted proxy too: the page is the same for every Host', async (t) => {
  const s = await startApp({ server: { trustedProxies: ['127.0.0.1/32'] } });
  t.teardown(() => s.close());
  const plain = await docs(s);
  const proxied = await docs(s, {
    host: 'gateway.example',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'gateway.example',
    'x-forwarded-for': '203.0.113.9',
  });
  t.equal(proxied.status, 200);
  t.notMatch(proxied.html, /gateway\.example/);
  t.equal(proxied.html, plain.html);
});

t.test('after 50 junk Hosts the page is still kept, compressed and the same', async (t) => {
  const s = await startApp({});
  t.teardown(() => s.close());
  const first = await docs(s, { 'accept-encoding': 'gzip' });
  t.equal(first.headers['content-encoding'], 'gzip', 'compressed when asked');
  for (let i = 0; i < 50; i++) {
    const junk = await docs(s, { host: `junk${i}.example:${1000 + i}`, 'accept-encoding': 'gzip' });
    t.equal(junk.status, 200);
    if (junk.html !== first.html) t.fail(`junk Host ${i}: another page`);
  }
  // A name of the server never asked for before the junk (a page table keyed by Host, full of
  // junk, would render it per request, uncompressed), and the one the first request used.
  for (const [host, coding] of [
    [`localhost:${s.port}`, 'gzip'],
    [`127.0.0.1:${s.port}`, 'br'],
  ] as const) {
    const after = await docs(s, { host, 'accept-encoding': coding });
    t.equal(after.status, 200, host);
    t.equal(after.headers['content-encoding'], coding, `${host}: still compressed (${coding})`);
    t.match(after.headers['cache-control'], /^public, max-age=300$/, `${host}: still cacheable`);
    t.equal(after.html, first.html, `${host}: the same page as the first`);
  }
});

t.test('caching headers fit the page: one page for every Host, or Vary: Host', async (t) => {
  const s = await startApp({});
  t.teardown(() => s.close());
  const a = await docs(s, { host: 'a.example', 'accept-encoding': 'gzip' });
  const b = await docs(s, { host: 'b.example', 'accept-encoding': 'gzip' });
  t.match(a.headers['cache-control'], /\bpublic\b/, 'a shared cache may keep it');
  const varies = /(^|,)\s*host\s*(,|$)/i.test(String(a.headers['vary'] ?? ''));
  t.ok(a.html === b.html || varies, 'a page that differs by Host says Vary: Host');
  t.equal(a.html, b.html, 'the same page for both Hosts');
  t.equal(a.headers['etag'], b.headers['etag'], 'the same validator');
  t.match(a.headers['vary'], /accept-encoding/i, 'one copy per coding');
  // A validator from one Host is good for the other: the page is one.
  const r = await request(`${s.url}/docs`, { headers: { host: 'b.example', 'accept-encoding': 'gzip', 'if-none-match': String(a.headers['etag']) } });
  t.equal(r.statusCode, 304, 'Not Modified across Hosts');
  await r.body.dump();
});
