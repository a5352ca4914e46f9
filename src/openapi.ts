/**
 * The OpenAPI 3.1.0 document, generated from the same route records (and typebox schemas) that
 * the server validates with. OpenAPI 3.1 schemas are JSON Schema 2020-12, which typebox emits.
 */
import { Type, type TSchema, type TObject } from '@sinclair/typebox';
import type { RouteDef } from './http/route.js';

export const API_VERSION = '1.0.0';

export const StatsErrorSchema = Type.Object(
  { error: Type.String({ description: 'Short title' }), message: Type.String({ description: 'What was wrong' }), code: Type.String({ description: 'Stable machine code from the error catalogue' }) },
  { $id: 'StatsError' },
);
export const ProverErrorSchema = Type.Object(
  { error: Type.String({ description: 'What was wrong' }), code: Type.String({ description: 'Stable machine code from the error catalogue' }) },
  { $id: 'ProverError' },
);

const RATE_HEADERS = {
  'X-RateLimit-Limit': 'Requests allowed per window',
  'X-RateLimit-Remaining': 'Requests left in the current window',
  'X-RateLimit-Reset': 'Unix time (seconds) when the window resets (or, on 429, when a request is admitted again)',
  RateLimit: 'IETF draft structured field: "policy";r=<remaining>;t=<seconds to reset>',
  'RateLimit-Policy': 'IETF draft structured field: "policy";q=<quota>;w=<window seconds>',
};

/** Strip typebox's symbols and our $id so the schema embeds cleanly. */
function plain(schema: TSchema): Record<string, unknown> {
  const out = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  delete out['$id'];
  return out;
}

function parameters(obj: TObject | undefined, where: 'path' | 'query'): unknown[] {
  if (!obj) return [];
  const required = new Set(obj.required ?? []);
  return Object.entries(obj.properties).map(([name, s]) => {
    const schema = plain(s);
    const description = schema['description'];
    delete schema['description'];
    return { name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema };
  });
}

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': 'CORS (server.corsOrigins): `*`, or the request\'s Origin when it is listed (then with `Vary: Origin`)',
  'Access-Control-Expose-Headers': 'CORS: the response headers a page may read',
};

/** The CORS preflight a public GET route answers (Fetch standard §3.2.2). */
function preflightOperation(operationId: string, tags: string[]): Record<string, unknown> {
  const headers = Object.fromEntries(
    ['Access-Control-Allow-Origin', 'Access-Control-Allow-Methods', 'Access-Control-Allow-Headers', 'Access-Control-Max-Age', 'Allow'].map((h) => [h, { schema: { type: 'string' } }]),
  );
  return {
    operationId,
    summary: 'CORS preflight',
    tags,
    responses: { 204: { description: 'Allowed methods and headers; the Access-Control-Allow-* headers only for an allowed Origin', headers } },
    security: [],
  };
}

/** `cors`: the public GET routes carry CORS headers and answer OPTIONS preflights. */
export function openApiDocument(routes: readonly RouteDef[], info: { title: string; description: string }, opts: { cors?: boolean } = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.hidden) continue;
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const s = r.schema;
    const responses: Record<string, unknown> = {};
    const errorRef = { $ref: r.style === 'stats' ? '#/components/schemas/StatsError' : '#/components/schemas/ProverError' };
    for (const [code, doc] of Object.entries(s.response)) {
      const status = Number(code);
      const headers: Record<string, unknown> = {};
      for (const [h, d] of Object.entries(doc.headers ?? {})) headers[h] = { description: d, schema: { type: 'string' } };
      if (r.rateLimit !== 'none') for (const [h, d] of Object.entries(RATE_HEADERS)) headers[h] = { description: d, schema: { type: 'string' } };
      if (status === 429) headers['Retry-After'] = { description: 'Seconds until a request is admitted again', schema: { type: 'integer' } };
      const cors = opts.cors === true && r.auth === 'none' && r.method === 'GET';
      if (cors) for (const [h, d] of Object.entries(CORS_HEADERS)) headers[h] = { description: d, schema: { type: 'string' } };
      const contentType = doc.contentType ?? 'application/json';
      const schema = doc.schema ? plain(doc.schema) : status >= 400 ? errorRef : undefined;
      responses[code] = {
        description: doc.description,
        ...(Object.keys(headers).length ? { headers } : {}),
        ...(schema ? { content: { [contentType]: { schema } } } : doc.contentType ? { content: { [contentType]: {} } } : {}),
      };
    }
    const headerParams = Object.entries(s.headers ?? {}).map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } }));
    const op: Record<string, unknown> = {
      operationId: `${r.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: s.summary,
      ...(s.description ? { description: s.description } : {}),
      tags: s.tags,
      parameters: [...parameters(s.params, 'path'), ...parameters(s.querystring, 'query'), ...headerParams],
      ...(s.body ? { requestBody: { required: true, description: s.body.description, content: { [s.body.contentType]: s.body.schema ? { schema: plain(s.body.schema) } : { schema: { type: 'string', format: 'binary' } } } } } : {}),
      responses,
      // OpenAPI 3.1 §4.8.10: an empty requirement object makes authentication optional.
      security: r.auth === 'key' ? [{ ApiKeyHeader: [] }, { BearerAuth: [] }] : r.auth === 'optional' ? [{}, { ApiKeyHeader: [] }, { BearerAuth: [] }] : [],
    };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
    if (opts.cors === true && r.auth === 'none' && r.method === 'GET') paths[path]!['options'] = preflightOperation(`options${(op['operationId'] as string).slice(3)}`, s.tags);
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: API_VERSION, description: info.description, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
    servers: [{ url: '/', description: 'This nightgate instance' }],
    tags: [
      { name: 'statistics', description: 'Public, read-only, cached network statistics' },
      { name: 'proving', description: 'Proof generation through the configured prover backend (API key)' },
      { name: 'sponsorship', description: 'DUST fee sponsorship: server wallets pay every fee (API key)' },
      { name: 'meta', description: 'Health and documentation' },
    ],
    paths,
    components: {
      schemas: { StatsError: plain(StatsErrorSchema), ProverError: plain(ProverErrorSchema) },
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <key>' },
      },
    },
  };
}
