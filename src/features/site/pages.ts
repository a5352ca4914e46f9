/**
 * Server-rendered HTML for /api/reference and /docs, built from the OpenAPI document: no CDN, no
 * script, readable in any browser and with curl (/api itself is Swagger UI, src/features/site/site.ts). Descriptions are Markdown (a small subset,
 * see `md`),
 * parameter and body types are shown as readable text (`typeText`), and every named schema has
 * its own block under "Schemas" that the operations link to.
 */
import { createHash } from 'node:crypto';

const esc = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Doc = Record<string, unknown>;
type Schema = Record<string, unknown>;
type Op = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<Record<string, unknown>>;
  requestBody?: { description?: string; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  security?: unknown[];
  'x-websocket'?: Record<string, unknown>;
};

const STYLE =
  `body{font:15px/1.5 system-ui,sans-serif;max-width:1000px;margin:2rem auto;padding:0 1rem;color:#1b1b1f}
code,pre{font:13px ui-monospace,Menlo,monospace;background:#f3f3f6;border-radius:4px}
pre{padding:.6rem;overflow:auto;max-width:100%;max-height:32rem;white-space:pre-wrap;overflow-wrap:anywhere;box-sizing:border-box}
code{padding:0 .25rem;overflow-wrap:anywhere}h1{margin-bottom:0}.sub{color:#666;margin-top:.2rem}
.op,.schema{border:1px solid #ddd;border-radius:6px;margin:1rem 0;padding:.2rem 1rem;overflow-wrap:anywhere;min-width:0;overflow-x:auto}
.m{display:inline-block;min-width:3.5rem;font-weight:700}.GET{color:#0a6}.POST{color:#06c}.WS{color:#90c}
table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{border-bottom:1px solid #eee;text-align:left;padding:.25rem ` +
  `.4rem;vertical-align:top}
td:first-child,th:first-child{width:9rem}.type{color:#555}.lock{color:#b60}details summary{cursor:pointer}`;

/**
 * The Content-Security-Policy of these pages: no script at all, and only this stylesheet (by its
 * hash), so nothing injected into a description could run or restyle the page.
 */
export const PAGE_CSP =
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}` +
  `'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
    `content="width=device-width,initial-scale=1"><title>${esc(title)}` +
    `</title><link rel="icon" href="/assets/favicon.svg"><style>${STYLE}` +
    `</style></head><body>${body}` +
    `</body></html>`
  );
}

/** `code`, **bold**, *emphasis* and [links](url) inside one line of already-escaped text. */
function inline(escaped: string): string {
  const codes: string[] = [];
  // Code spans first: nothing inside them is Markdown.
  let s = escaped.replace(/`([^`]+)`/g, (_, c: string) => `\u0000${codes.push(c) - 1}\u0000`);
  s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=$|[\s).,;:])/g, '$1<em>$2</em>');
  // Links only to http(s), a path on this server or an anchor: never javascript: or data:.
  s = s.replace(/\[([^\]]+)\]\(((?:https?:\/\/|\/|#)[^\s)]*)\)/g, (_, text: string, href: string) => `<a href="${href}">${text}</a>`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks the code spans set aside above; no text holds one
  return s.replace(/\u0000(\d+)\u0000/g, (_, i: string) => `<code>${codes[Number(i)]}</code>`);
}

/**
 * A safe Markdown subset: paragraphs (blank lines), `- ` bullet lists, and the inline forms of
 * `inline`. The text is HTML-escaped before anything else, so it can carry no markup of its own.
 */
export function md(text: unknown): string {
  const blocks = String(text ?? '')
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/);
  return blocks
    .map((b) => b.trim())
    .filter((b) => b !== '')
    .map((b) => {
      const lines = b.split('\n');
      if (lines.every((l) => /^\s*[-*] /.test(l))) return `<ul>${lines.map((l) => `<li>${inline(esc(l.replace(/^\s*[-*] /, '')))}</li>`).join('')}` + `</ul>`;
      return `<p>${inline(esc(lines.join(' ')))}</p>`;
    })
    .join('');
}

const refName = (s: Schema): string | undefined => (typeof s['$ref'] === 'string' ? (s['$ref'] as string).split('/').pop() : undefined);
/** Absolute, so the operations on /docs link to the schema blocks of /api/reference too. */
const schemaLink = (name: string): string => `<a href="/api/reference#schema-${esc(name)}"><code>${esc(name)}</code></a>`;

/** Known string patterns, said in words. */
const PATTERNS: Record<string, string> = {
  '^(0x)?[0-9a-fA-F]{64}$': '64 hex',
  '^[0-9a-f]*$': 'hex',
  '^[0-9]+$': 'decimal digits',
};

/**
 * A schema as a short readable type, as HTML: `integer ≥ 0`, `integer 1–100, default 20`,
 * `string (64 hex)`, `"mainnet" | "preprod" | "preview"`, a link to a named schema, `X[]`, `X | null`.
 */
export function typeText(schema: unknown): string {
  if (schema === null || typeof schema !== 'object') return 'any';
  const s = schema as Schema;
  const name = refName(s);
  if (name) return schemaLink(name);
  const extra: string[] = [];
  if (s['default'] !== undefined) extra.push(`default ${esc(JSON.stringify(s['default']))}`);
  const withExtra = (t: string): string => (extra.length > 0 ? `${t}, ${extra.join(', ')}` : t);
  if (s['const'] !== undefined) return esc(JSON.stringify(s['const']));
  if (Array.isArray(s['enum'])) return withExtra((s['enum'] as unknown[]).map((v) => esc(JSON.stringify(v))).join(' | '));
  const alts = (s['anyOf'] ?? s['oneOf']) as unknown[] | undefined;
  if (Array.isArray(alts)) return withExtra(alts.map((a) => typeText(a)).join(' | '));
  if (Array.isArray(s['allOf'])) return withExtra((s['allOf'] as unknown[]).map((a) => typeText(a)).join(' &amp; '));
  const type = s['type'];
  if (type === 'integer' || type === 'number') {
    const min = s['minimum'] as number | undefined;
    const max = s['maximum'] as number | undefined;
    const range = min !== undefined && max !== undefined ? ` ${min}–${max}` : min !== undefined ? ` ≥ ${min}` : max !== undefined ? ` ≤ ${max}` : '';
    return withExtra(`${type}${range}`);
  }
  if (type === 'string') {
    const notes: string[] = [];
    if (typeof s['pattern'] === 'string') notes.push(PATTERNS[s['pattern'] as string] ?? `pattern <code>${esc(s['pattern'])}</code>`);
    if (typeof s['format'] === 'string') notes.push(esc(s['format']));
    if (s['minLength'] !== undefined) notes.push(`at least ${esc(s['minLength'])} characters`);
    return withExtra(notes.length > 0 ? `string (${notes.join(', ')})` : 'string');
  }
  if (type === 'array') return withExtra(`${typeText(s['items'])}[]`);
  if (type === 'object') {
    if (s['properties']) return withExtra('object');
    if (s['additionalProperties'] || s['patternProperties']) {
      const values = (s['additionalProperties'] ?? Object.values(s['patternProperties'] as object)[0]) as unknown;
      return withExtra(`map of ${typeof values === 'object' ? typeText(values) : 'any'}`);
    }
    return withExtra('object');
  }
  if (type === 'null') return 'null';
  if (type === 'boolean') return withExtra('boolean');
  return withExtra(type === undefined ? 'any' : esc(type));
}

/** The body of a response or request: a link to its named schema, or its readable type. */
function bodyText(content: Record<string, { schema?: Schema }> | undefined): string {
  if (!content) return '';
  return Object.entries(content)
    .map(([ct, c]) => `<div class="type">${esc(ct)}${c.schema ? `: ${typeText(c.schema)}` : ''}</div>`)
    .join('');
}

function operations(doc: Doc, filter: (tags: string[]) => boolean): string {
  const paths = (doc['paths'] ?? {}) as Record<string, Record<string, Op>>;
  const out: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!filter(op.tags ?? [])) continue;
      const ws = op['x-websocket'];
      const label = ws ? 'WS' : method.toUpperCase();
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${esc(p['name'])}</code></td><td>${esc(p['in'])}` +
            `${p['required'] ? ', required' : ''}` +
            `</td><td><span class="type">${typeText(p['schema'])}` +
            `</span>${p['description'] ? md(p['description']) : ''}` +
            `</td></tr>`,
        )
        .join('');
      const responses = Object.entries(op.responses ?? {})
        .map(([code, r]) => `<tr><td><code>${esc(code)}</code></td><td>${md(r.description)}${bodyText(r.content)}</td></tr>`)
        .join('');
      const body = op.requestBody ? `<p><b>Body</b>:</p>${md(op.requestBody.description)}${bodyText(op.requestBody.content)}` : '';
      const messages = ws
        ? `<p><b>Messages</b> (<code>x-websocket</code>): server → client ${typeText(ws['serverMessages'])}` +
          `; client → server ${typeText(ws['clientMessages'])}` +
          `.</p><details><summary>x-websocket</summary><pre>${esc(JSON.stringify(ws, null, 2))}` +
          `</pre></details>`
        : '';
      const lock =
        op.security && op.security.length > 0 && !op.security.some((s) => s !== null && typeof s === 'object' && Object.keys(s).length === 0)
          ? ' <span class="lock" title="API key required">&#128274; API key</span>'
          : '';
      out.push(
        `<div class="op"><h3><span class="m ${esc(label)}">${esc(label)}` +
          `</span> <code>${esc(path)}` +
          `</code>${lock}` +
          `</h3><p>${esc(op.summary)}` +
          `</p>${op.description ? md(op.description) : ''}` +
          `${params ? `<table><tr><th>parameter</th><th>in</th><th>type</th></tr>${params}` + `</table>` : ''}` +
          `${body}` +
          `${messages}` +
          `<table><tr><th>status</th><th>meaning</th></tr>${responses}` +
          `</table></div>`,
      );
    }
  }
  return out.join('\n');
}

/** Every named schema: its fields with readable types, and the JSON Schema itself folded away. */
function schemas(doc: Doc): string {
  const all = ((doc['components'] as { schemas?: Record<string, Schema> } | undefined)?.schemas ?? {}) as Record<string, Schema>;
  return Object.entries(all)
    .map(([name, s]) => {
      const props = (s['properties'] ?? {}) as Record<string, Schema>;
      const required = new Set((s['required'] ?? []) as string[]);
      const rows = Object.entries(props)
        .map(
          ([p, ps]) =>
            `<tr><td><code>${esc(p)}</code>${required.has(p) ? '' : '?'}` +
            `</td><td><span class="type">${typeText(ps)}` +
            `</span>${ps['description'] ? md(ps['description']) : ''}` +
            `${ps['deprecated'] ? '<p><b>Deprecated.</b></p>' : ''}` +
            `</td></tr>`,
        )
        .join('');
      const summary = rows ? `<table><tr><th>field</th><th>type</th></tr>${rows}</table>` : `<p class="type">${typeText(s)}</p>`;
      return (
        `<div class="schema" id="schema-${esc(name)}"><h3><code>${esc(name)}` +
        `</code></h3>${s['description'] ? md(s['description']) : ''}` +
        `${summary}` +
        `<details><summary>JSON Schema</summary><pre>${esc(JSON.stringify(s, null, 2))}` +
        `</pre></details></div>`
      );
    })
    .join('\n');
}

export function apiPage(doc: Doc): string {
  const info = doc['info'] as { title: string; version: string; description: string };
  return page(
    `${info.title} — API`,
    `<h1>${esc(info.title)}</h1><p class="sub">API version ${esc(info.version)}` +
      ` · OpenAPI 3.1 · <a href="/api">try it</a> · <a href="/api/openapi.json">openapi.json</a> · <a ` +
      `href="/docs">proving ` +
      `guide</a> · <a href="#schemas">schemas</a></p>${md(info.description)}` +
      `
<h2>Network statistics</h2><p>Public and read-only. <code>{network}</code> is <code>mainnet</code>, <code>preprod</code> or <code>preview</code>. Responses ` +
      `carry <code>Cache-Control</code>, <code>ETag</code> (send <code>If-None-Match</code> for a 304) and <code>X-Cache</code>. Errors are ` +
      `${schemaLink('Error')}: <code>{"error", "message", "code"}</code>.</p>
${operations(doc, (t) => t.includes('statistics'))}
<h2>Proving and sponsorship</h2><p>See <a href="/docs">/docs</a> for the guide. Errors are ${schemaLink('Error')}, as everywhere.</p>
${operations(doc, (t) => t.includes('proving') || t.includes('sponsorship'))}
<h2>Meta</h2>${operations(doc, (t) => t.includes('meta'))}
<h2 id="schemas">Schemas</h2>${schemas(doc)}`,
  );
}

/**
 * The examples are written for nightgate's default address, whatever address the page was asked
 * on: the page holds nothing of the request (a Host is the client's to choose), so it is one page
 * for every reader and every cache.
 */
const EXAMPLE_ORIGIN = 'http://127.0.0.1:8080';

export function docsPage(doc: Doc): string {
  const info = doc['info'] as { title: string; version: string };
  const base = EXAMPLE_ORIGIN;
  return page(
    `${info.title} — proving and sponsorship`,
    `<h1>Proving and DUST sponsorship</h1><p class="sub">${esc(info.title)}` +
      ` ${esc(info.version)}` +
      ` · <a href="/api">full API (try it)</a> · <a href="/api/reference">text reference</a> · ` +
      `<a href="/api/openapi.json">openapi.json</a> · <a href="/">dashboard</a></p>
<h2>Authentication</h2><p>Every route here except <code>/health</code> and <code>/docs</code> needs an API key, sent as <code>X-API-Key: &lt;key&gt;</code> ` +
      `or <code>Authorization: Bearer &lt;key&gt;</code>. A missing, wrong or revoked key gets <code>401 ` +
      `{"error":"Unauthorized","message":"Missing or invalid API ` +
      `key","code":"UNAUTHORIZED"}</code>. Every error has that shape (<code>{"error", "message", ` +
      `"code"}</code>; branch on <code>code</code>). Optional ` +
      `<code>X-Client-ID</code> and <code>X-Client-Name</code> are logged with each request. Operators mint keys with <code>nightgate keys create</code>.</p>
<h2>Rate limits</h2><p>Each response carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code>, <code>X-RateLimit-Reset</code> (Unix ` +
      `seconds) and the IETF draft's <code>RateLimit</code> / <code>RateLimit-Policy</code>. Over the ` +
      `limit: <code>429</code> with <code>Retry-After</code> in ` +
      `seconds.</p>
<h2>Using nightgate as your proof server</h2><p>nightgate speaks the Midnight proof-server protocol: point a wallet's prover address at nightgate's base ` +
      `URL. <code>POST /prove</code>, <code>POST /check</code> (alias <code>POST /verify</code>), ` +
      `<code>POST /k</code>, <code>GET /version</code>, <code>GET ` +
      `/ready</code> and <code>GET /proof-versions</code> take and return the same <code>application/octet-stream</code> bodies as ` +
      `<code>midnight-proof-server</code>. Pick the network with the <code>X-Midnight-Network</code> header or <code>?network=</code> (default in ` +
      `<code>/health</code>). Results of <code>/prove</code>, <code>/verify</code> and <code>/k</code> are ` +
      `cached for 30 s by the SHA-256 of the body ` +
      `(<code>X-Cache: HIT|MISS</code>). On the embedded devnet the <code>dev</code> backend ` +
      `answers with mock-shaped proofs, labelled <code>X-Prover: dev</code>.</p>` +
      `
<p>The examples use nightgate's default address, <code>${base}</code>: put in the one you reach this server at (<code>example-tx</code> takes it as ` +
      `<code>--url</code>). A sample body, from the embedded devnet's public test account (the server must ` +
      `be running): <code>npx nightgate example-tx --network ` +
      `preview --kind prove-payload &gt; payload.bin</code>.</p>
<pre>curl -sS -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/octet-stream' --data-binary @payload.bin ${base}/prove -o proof.bin</pre>
<h2>Sponsorship: users pay no gas</h2><p><code>POST /prove-and-balance</code> takes an <em>unproven</em> serialized transaction; <code>POST ` +
      `/balance-only</code> takes a <em>proven</em> one. nightgate adds a fee intent paid by a server DUST ` +
      `wallet, proves and binds, and answers <code>{"tx": hex, ` +
      `"txHash": hex, ...}</code>: submit <code>tx</code> to the network. Submit it before ` +
      `<code>expiresAt</code> (by default 5 blocks, up to 12 behind this ` +
      `server's own unlanded answers): its fee covers the largest price rise of every block until then. A ` +
      `transaction the ledger would refuse (another network, ` +
      `bad signature, expired or expiring within a block, no effect, already paying its own DUST fee) gets ` +
      `400 <code>TRANSACTION_REJECTED</code> with the reason, ` +
      `and nothing is reserved. One key holds at most <code>dust.maxReservationsPerKey</code> DUST UTXOs at ` +
      `once (429 <code>RESERVATION_LIMIT</code> with ` +
      `<code>Retry-After</code> beyond); a per-transaction fee cap (403 <code>FEE_CAP_EXCEEDED</code>) and ` +
      `a DUST budget per window (429) apply, and the budget of ` +
      `an answer never submitted is refunded when its reservation is reclaimed (5 minutes). The same bytes ` +
      `sent again by the same key within the dedupe window get ` +
      `the same answer. <code>GET /wallet-status</code> shows the server wallets, the pool's target and the ` +
      `rate it sustains: on the embedded devnet the server ` +
      `splits its NIGHT into more DUST UTXOs when free ones run low, up to the target.</p>
<p>Sample bodies: <code>npx nightgate example-tx --network preview --kind unproven &gt; unproven-tx.bin</code> for <code>/prove-and-balance</code>, ` +
      `<code>--kind proven</code> or <code>--kind finalized</code> for <code>/balance-only</code> (a NIGHT ` +
      `transfer of the devnet's public test account to itself, ` +
      `valid for 15 minutes).</p>
<pre>curl -sS -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/octet-stream' --data-binary @unproven-tx.bin ${base}/prove-and-balance</pre>
${operations(doc, (t) => t.includes('proving') || t.includes('sponsorship'))}`,
  );
}
