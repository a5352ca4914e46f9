/**
 * Server-rendered HTML for /api and /docs, built from the OpenAPI document: no CDN, no script,
 * readable in any browser and with curl.
 */
const esc = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Doc = Record<string, unknown>;
type Op = { summary?: string; description?: string; tags?: string[]; parameters?: Array<Record<string, unknown>>; requestBody?: Record<string, unknown>; responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>; security?: unknown[] };

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:1000px;margin:2rem auto;padding:0 1rem;color:#1b1b1f}
code,pre{font:13px ui-monospace,Menlo,monospace;background:#f3f3f6;border-radius:4px}pre{padding:.6rem;overflow:auto}
code{padding:0 .25rem}h1{margin-bottom:0}.sub{color:#666;margin-top:.2rem}.op{border:1px solid #ddd;border-radius:6px;margin:1rem 0;padding:.2rem 1rem}
.m{display:inline-block;min-width:3.5rem;font-weight:700}.GET{color:#0a6}.POST{color:#06c}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #eee;text-align:left;padding:.25rem .4rem;vertical-align:top}.lock{color:#b60}details summary{cursor:pointer}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

function operations(doc: Doc, filter: (tags: string[]) => boolean): string {
  const paths = (doc['paths'] ?? {}) as Record<string, Record<string, Op>>;
  const out: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!filter(op.tags ?? [])) continue;
      const params = (op.parameters ?? []).map((p) => `<tr><td><code>${esc(p['name'])}</code></td><td>${esc(p['in'])}${p['required'] ? ', required' : ''}</td><td>${esc(p['description'] ?? '')} <code>${esc(JSON.stringify(p['schema']))}</code></td></tr>`).join('');
      const responses = Object.entries(op.responses ?? {}).map(([code, r]) => {
        const content = r.content ? Object.entries(r.content).map(([ct, c]) => `<details><summary>${esc(ct)}</summary><pre>${esc(JSON.stringify(c.schema ?? {}, null, 2))}</pre></details>`).join('') : '';
        return `<tr><td><code>${esc(code)}</code></td><td>${esc(r.description)}${content}</td></tr>`;
      }).join('');
      const body = op.requestBody ? `<p><b>Body</b>: ${esc((op.requestBody as { description?: string }).description)} (<code>${esc(Object.keys((op.requestBody as { content?: object }).content ?? {}).join(', '))}</code>)</p>` : '';
      const lock = op.security && op.security.length > 0 ? ' <span class="lock" title="API key required">&#128274; API key</span>' : '';
      out.push(`<div class="op"><h3><span class="m ${esc(method.toUpperCase())}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code>${lock}</h3><p>${esc(op.summary)}</p>${op.description ? `<p>${esc(op.description)}</p>` : ''}${params ? `<table><tr><th>parameter</th><th>in</th><th>schema</th></tr>${params}</table>` : ''}${body}<table><tr><th>status</th><th>meaning</th></tr>${responses}</table></div>`);
    }
  }
  return out.join('\n');
}

export function apiPage(doc: Doc): string {
  const info = doc['info'] as { title: string; version: string; description: string };
  return page(`${info.title} — API`, `<h1>${esc(info.title)}</h1><p class="sub">API version ${esc(info.version)} · OpenAPI 3.1 · <a href="/api/openapi.json">openapi.json</a> · <a href="/docs">proving guide</a></p><p>${esc(info.description)}</p>
<h2>Network statistics</h2><p>Public and read-only. <code>{network}</code> is <code>mainnet</code>, <code>preprod</code> or <code>preview</code>. Responses carry <code>Cache-Control</code>, <code>ETag</code> (send <code>If-None-Match</code> for a 304) and <code>X-Cache</code>. Errors are <code>{"error", "message", "code"}</code>.</p>
${operations(doc, (t) => t.includes('statistics'))}
<h2>Proving and sponsorship</h2><p>See <a href="/docs">/docs</a> for the guide. Errors are <code>{"error", "code"}</code>.</p>
${operations(doc, (t) => t.includes('proving') || t.includes('sponsorship'))}
<h2>Meta</h2>${operations(doc, (t) => t.includes('meta'))}`);
}

export function docsPage(doc: Doc): string {
  const info = doc['info'] as { title: string; version: string };
  return page(`${info.title} — proving and sponsorship`, `<h1>Proving and DUST sponsorship</h1><p class="sub">${esc(info.title)} ${esc(info.version)} · <a href="/api">full API</a> · <a href="/api/openapi.json">openapi.json</a></p>
<h2>Authentication</h2><p>Every route here except <code>/health</code> and <code>/docs</code> needs an API key, sent as <code>X-API-Key: &lt;key&gt;</code> or <code>Authorization: Bearer &lt;key&gt;</code>. A missing, wrong or revoked key gets <code>401 {"error":"Missing or invalid API key","code":"UNAUTHORIZED"}</code>. Optional <code>X-Client-ID</code> and <code>X-Client-Name</code> are logged with each request. Operators mint keys with <code>nightgate keys create</code>.</p>
<h2>Rate limits</h2><p>Each response carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code>, <code>X-RateLimit-Reset</code> (Unix seconds) and the IETF draft's <code>RateLimit</code> / <code>RateLimit-Policy</code>. Over the limit: <code>429</code> with <code>Retry-After</code> in seconds.</p>
<h2>Using nightgate as your proof server</h2><p>nightgate speaks the Midnight proof-server protocol: point a wallet's prover address at nightgate's base URL. <code>POST /prove</code>, <code>POST /check</code> (alias <code>POST /verify</code>), <code>POST /k</code>, <code>GET /version</code>, <code>GET /ready</code> and <code>GET /proof-versions</code> take and return the same <code>application/octet-stream</code> bodies as <code>midnight-proof-server</code>. Pick the network with the <code>X-Midnight-Network</code> header or <code>?network=</code> (default in <code>/health</code>). Results of <code>/prove</code> and <code>/verify</code> are cached for 30 s by the SHA-256 of the body (<code>X-Cache: HIT|MISS</code>). On the embedded devnet the <code>dev</code> backend answers with mock-shaped proofs, labelled <code>X-Prover: dev</code>.</p>
<p>A sample body, from the embedded devnet's public test account (the server must be running): <code>npx nightgate example-tx --network preview --kind prove-payload &gt; payload.bin</code>.</p>
<pre>curl -sS -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/octet-stream' --data-binary @payload.bin http://127.0.0.1:8080/prove -o proof.bin</pre>
<h2>Sponsorship: users pay no gas</h2><p><code>POST /prove-and-balance</code> takes an <em>unproven</em> serialized transaction; <code>POST /balance-only</code> takes a <em>proven</em> one. nightgate adds a fee intent paid by a server DUST wallet, proves and binds, and answers <code>{"tx": hex, "txHash": hex, ...}</code>: submit <code>tx</code> to the network. Submit it before <code>expiresAt</code> (default one minute): its fee covers the largest price rise of every block until then. A transaction the ledger would refuse (another network, bad signature, expired or expiring within a block, no effect, already paying its own DUST fee) gets 400 <code>TRANSACTION_REJECTED</code> with the reason, and nothing is reserved. One key holds at most <code>dust.maxReservationsPerKey</code> DUST UTXOs at once (429 <code>RESERVATION_LIMIT</code> with <code>Retry-After</code> beyond); a per-transaction fee cap (403 <code>FEE_CAP_EXCEEDED</code>) and a DUST budget per window (429) apply, and the budget of an answer never submitted is refunded when its reservation is reclaimed (5 minutes). The same bytes sent again by the same key within the dedupe window get the same answer. <code>GET /wallet-status</code> shows the server wallets, the pool's target and the rate it sustains: on the embedded devnet the server splits its NIGHT into more DUST UTXOs when free ones run low, up to the target.</p>
<p>Sample bodies: <code>npx nightgate example-tx --network preview --kind unproven &gt; unproven-tx.bin</code> for <code>/prove-and-balance</code>, <code>--kind proven</code> or <code>--kind finalized</code> for <code>/balance-only</code> (a NIGHT transfer of the devnet's public test account to itself, valid for 15 minutes).</p>
<pre>curl -sS -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/octet-stream' --data-binary @unproven-tx.bin http://127.0.0.1:8080/prove-and-balance</pre>
${operations(doc, (t) => t.includes('proving') || t.includes('sponsorship'))}`);
}
