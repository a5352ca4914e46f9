/** The /api page: Markdown rendered safely, parameter types readable, schema blocks that stay in their card. */
import t from 'tap';
import { openApiDocument } from '../../../../src/core/http/openapi.js';
import { apiPage, docsPage, md, typeText } from '../../../../src/features/site/pages.js';
import { probeRoutes } from '../../../../src/features/health/probes.js';
import { PUSH_CHANNEL_DOC, statsRoutes } from '../../../../src/features/stats/routes.js';

const doc = openApiDocument(
  [...probeRoutes({ health: () => ({}), missing: () => Promise.resolve([]) }), ...statsRoutes(new Map())],
  { title: 'nightgate', description: 'Gateway.' },
  { topics: [{ url: '/api/v1/:network/ws', doc: PUSH_CHANNEL_DOC }] },
);

t.test('Markdown: a safe subset, HTML escaped first', async (t) => {
  t.equal(md('Use `a<b>` and **bold**, *this*.'), '<p>Use <code>a&#60;b&#62;</code> and <strong>bold</strong>, <em>this</em>.</p>');
  t.equal(md('[guide](/docs) [site](https://example.org/x?a=1&b=2)'), '<p><a href="/docs">guide</a> <a href="https://example.org/x?a=1&#38;b=2">site</a></p>');
  t.equal(md('[x](javascript:alert(1))'), '<p>[x](javascript:alert(1))</p>', 'no javascript: links');
  t.equal(md('<script>alert(1)</script> <img src=x onerror=y>'), '<p>&#60;script&#62;alert(1)&#60;/script&#62; &#60;img src=x onerror=y&#62;</p>');
  t.equal(md('one\n\n- a `*`\n- b'), '<p>one</p><ul><li>a <code>*</code></li><li>b</li></ul>');
  t.equal(md('`**not bold**`'), '<p><code>**not bold**</code></p>', 'nothing inside a code span is Markdown');
});

t.test('types in words, not JSON Schema', async (t) => {
  t.equal(typeText({ type: 'integer', minimum: 0 }), 'integer ≥ 0');
  t.equal(typeText({ type: 'integer', minimum: 1, maximum: 100, default: 20 }), 'integer 1–100, default 20');
  t.equal(typeText({ type: 'string', pattern: '^(0x)?[0-9a-fA-F]{64}$' }), 'string (64 hex)');
  t.equal(
    typeText({
      anyOf: [
        { const: 'mainnet', type: 'string' },
        { const: 'preview', type: 'string' },
      ],
    }),
    '&#34;mainnet&#34; | &#34;preview&#34;',
  );
  t.equal(
    typeText({ anyOf: [{ $ref: '#/components/schemas/Epoch' }, { type: 'null' }] }),
    '<a href="/api/reference#schema-Epoch"><code>Epoch</code></a> | null',
  );
  t.equal(typeText({ type: 'array', items: { type: 'string', format: 'date-time' } }), 'string (date-time)[]');
});

t.test('/api: rendered descriptions, readable parameters, named schemas, contained blocks', async (t) => {
  const html = apiPage(doc);
  const block = html.slice(html.indexOf('<code>/api/v1/{network}/block</code>'), html.indexOf('<code>/api/v1/{network}/transaction</code>'));
  t.match(block, /<code>height<\/code><\/td><td>query<\/td><td><span class="type">integer 0–2147483647<\/span>/, 'height: integer with its range');
  t.match(block, /<code>hash<\/code><\/td><td>query<\/td><td><span class="type">string \(64 hex\)<\/span>/, 'hash: 64 hex');
  t.match(block, /<span class="type">&#34;mainnet&#34; \| &#34;preprod&#34; \| &#34;preview&#34;<\/span>/, 'network: its values');
  t.match(block, /<code>public, max-age=31536000, immutable<\/code>/, 'Markdown code spans rendered');
  t.match(block, /application\/json: <a href="\/api\/reference#schema-BlockDetail"><code>BlockDetail<\/code><\/a>/, 'the body links to its named schema');
  // The JSON Schema of each named schema is there too, folded in <pre>: the rest is rendered.
  t.notMatch(html.replace(/<pre>[^]*?<\/pre>/g, ''), /minimum|`/, 'no raw JSON Schema in the tables, no Markdown left unrendered');
  t.match(html, /<div class="schema" id="schema-Summary">/);
  t.match(html, /<div class="schema" id="schema-Error">/);
  t.match(html, /<span class="m WS">WS<\/span> <code>\/api\/v1\/\{network\}\/ws<\/code>/, 'the push channel');
  t.match(html, /server → client <a href="\/api\/reference#schema-Summary">/);
  t.match(html, /pre\{[^}]*overflow:auto[^}]*white-space:pre-wrap[^}]*overflow-wrap:anywhere/, 'schema blocks wrap and scroll inside their card');
  t.match(html, /\.op,\.schema\{[^}]*overflow-wrap:anywhere[^}]*overflow-x:auto/, 'cards contain long words');
  t.notMatch(html, /<script/i);
  t.match(docsPage(doc), /401 \{"error":"Unauthorized","message":"Missing or invalid API key","code":"UNAUTHORIZED"\}/);
});
