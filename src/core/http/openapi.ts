/**
 * The OpenAPI 3.1.0 document, generated from the same route records (and typebox schemas) that
 * the server validates with. OpenAPI 3.1 schemas are JSON Schema 2020-12, which typebox emits.
 *
 * Every body is a named schema: a typebox schema carrying an `$id` (at any depth) is hoisted to
 * `components.schemas[$id]` and referenced with `$ref`; a response or request body without one is
 * named after its operation (`PostProveAndBalanceResponse`). Clients generated from the document
 * (openapi-typescript, test/integration/openapi-client.test.ts) so get named types.
 */
import { Type, type TSchema, type TObject } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from '../errors.js';
import type { ResponseDoc, RouteDef } from './route.js';

const API_VERSION = '1.0.0';

const CODES = Object.keys(ERRORS) as ErrorCode[];

/** The one error body of every route, the 404/405 catch-all and refused WebSocket upgrades (errors.ts, errorBody). */
export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'Short title of the status, e.g. `Not Found`' }),
    message: Type.String({ description: 'What was wrong, for people: names the parameter, the limit, the reason' }),
    code: Type.Union(
      CODES.map((c) => Type.Literal(c)),
      { description: 'Stable machine code from the error catalogue (src/core/errors.ts); branch on this, not on the texts' },
    ),
    rule: Type.Optional(
      Type.String({
        description:
          "The key's policy rule that refused the sponsorship (POLICY_DENIED, USER_LIMIT, POLICY_WEBHOOK_UNAVAILABLE), e.g. " +
          '`allow.contracts`, `perUser.maxSponsorships` (docs/policies.md)',
      }),
    ),
  },
  {
    $id: 'Error',
    description: 'Every error: `{error, message, code}`, plus `rule` on a policy refusal and details some errors add (GET /readyz: `status`, `missing`)',
  },
);

const RATE_HEADERS = {
  'X-RateLimit-Limit': 'Requests allowed per window',
  'X-RateLimit-Remaining': 'Requests left in the current window',
  'X-RateLimit-Reset': 'Unix time (seconds) when the window resets (or, on 429, when a request is admitted again)',
  RateLimit: 'IETF draft structured field: "policy";r=<remaining>;t=<seconds to reset>',
  'RateLimit-Policy': 'IETF draft structured field: "policy";q=<quota>;w=<window seconds>',
};

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/**
 * The named schemas of one document. `use` returns a schema to embed: typebox's symbols dropped,
 * every sub-schema with an `$id` moved to `components.schemas` and replaced by a `$ref`, and the
 * schema itself too when it has an `$id` or a `name` is given.
 */
class Components {
  readonly schemas: Record<string, unknown> = {};
  private readonly texts = new Map<string, string>();

  use(schema: TSchema, name?: string): Record<string, unknown> {
    const out = this.hoist(JSON.parse(JSON.stringify(schema)) as unknown) as Record<string, unknown>;
    if (name === undefined || '$ref' in out) return out;
    this.define(name, out);
    return ref(name);
  }

  /** `names`: the node maps names to schemas (`properties`), so none of its keys is a keyword. */
  private hoist(node: unknown, names = false): unknown {
    if (Array.isArray(node)) return node.map((n) => this.hoist(n));
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    // Values, not schemas: an example or a default that happens to carry an `$id` stays as it is.
    for (const [k, v] of Object.entries(node))
      out[k] =
        !names && (k === 'examples' || k === 'default' || k === 'const')
          ? v
          : this.hoist(v, !names && (k === 'properties' || k === 'patternProperties' || k === '$defs'));
    enumOfConsts(out);
    const id = out['$id'];
    if (typeof id !== 'string') return out;
    delete out['$id'];
    this.define(id, out);
    return ref(id);
  }

  private define(name: string, schema: Record<string, unknown>): void {
    const text = JSON.stringify(schema);
    const known = this.texts.get(name);
    if (known !== undefined && known !== text) throw new Error(`OpenAPI: two different schemas are named ${name}`);
    this.texts.set(name, text);
    this.schemas[name] = schema;
  }
}

/**
 * A union of string constants (typebox's `Union([Literal…])`, `anyOf` of `const`s) as the `enum` it
 * means: the same values, which Swagger UI offers as a list instead of a free text box.
 */
function enumOfConsts(node: Record<string, unknown>): void {
  const any = node['anyOf'];
  if (!Array.isArray(any) || any.length === 0) return;
  const consts = any.map((a) =>
    a !== null && typeof a === 'object' && Object.keys(a).every((k) => k === 'const' || k === 'type') ? (a as { const?: unknown }).const : undefined,
  );
  if (!consts.every((v) => typeof v === 'string')) return;
  delete node['anyOf'];
  node['type'] = 'string';
  node['enum'] = consts;
}

function parameters(c: Components, obj: TObject | undefined, where: 'path' | 'query'): unknown[] {
  if (!obj) return [];
  const required = new Set(obj.required ?? []);
  return Object.entries(obj.properties).map(([name, s]) => {
    const schema = c.use(s);
    const description = schema['description'];
    delete schema['description'];
    return { name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema };
  });
}

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': "CORS (server.corsOrigins): `*`, or the request's Origin when it is listed (then with `Vary: Origin`)",
  'Access-Control-Expose-Headers': 'CORS: the response headers a page may read',
};

/**
 * A WebSocket channel, for the document. OpenAPI 3.1 has no WebSocket object: the channel is
 * described as the GET that upgrades (RFC 6455 §4), answered 101, with the messages both ways in
 * the `x-websocket` extension as `$ref`s to named schemas.
 */
export interface TopicDoc {
  summary: string;
  description: string;
  tags: string[];
  params: TObject;
  /** What the server sends: the welcome and every push. */
  serverMessage: TSchema;
  /** What the client may send (the server may ignore it). */
  clientMessage: TSchema;
  /** Refusals of the upgrade (their bodies are the Error schema). */
  refusals: Record<number, ResponseDoc>;
  /** Anything else for `x-websocket`: keep-alive, close codes, limits. */
  extension: Record<string, unknown>;
}

const WS_REQUEST_HEADERS: Array<[string, string, boolean]> = [
  ['Upgrade', '`websocket`', true],
  ['Connection', '`Upgrade`', true],
  ['Sec-WebSocket-Key', 'RFC 6455 §4.1: a random 16-byte nonce, base64', true],
  ['Sec-WebSocket-Version', '`13`', true],
  [
    'Origin',
    'Sent by browsers: the page must be of an origin in server.corsOrigins or of this server itself (else 403 ' +
      'ORIGIN_NOT_ALLOWED); clients that are not browsers send none',
    false,
  ],
];

const pascal = (s: string): string => s.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, _sep: string, ch: string) => ch.toUpperCase());

/** `cors`: the public GET routes carry CORS headers and answer OPTIONS preflights. `topics`: WebSocket channels. */
export function openApiDocument(
  routes: readonly RouteDef[],
  info: { title: string; description: string },
  opts: { cors?: boolean; topics?: ReadonlyArray<{ url: string; doc?: TopicDoc }> } = {},
): Record<string, unknown> {
  const c = new Components();
  const errorRef = c.use(ErrorSchema);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.hidden) continue;
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operationId = `${r.method.toLowerCase()}${pascal(path.replace(/[{}]/g, ''))}`;
    const s = r.schema;
    const responses: Record<string, unknown> = {};
    for (const [code, doc] of Object.entries(s.response)) {
      const status = Number(code);
      const headers: Record<string, unknown> = {};
      for (const [h, d] of Object.entries(doc.headers ?? {})) headers[h] = { description: d, schema: { type: 'string' } };
      if (r.rateLimit !== 'none') for (const [h, d] of Object.entries(RATE_HEADERS)) headers[h] = { description: d, schema: { type: 'string' } };
      if (status === 429) headers['Retry-After'] = { description: 'Seconds until a request is admitted again', schema: { type: 'integer' } };
      const cors = opts.cors === true && r.auth === 'none' && r.method === 'GET';
      if (cors) for (const [h, d] of Object.entries(CORS_HEADERS)) headers[h] = { description: d, schema: { type: 'string' } };
      const contentType = doc.contentType ?? 'application/json';
      const suffix = status === 200 ? '' : String(status);
      const schema = doc.schema ? c.use(doc.schema, `${pascal(operationId)}Response${suffix}`) : status >= 400 ? errorRef : undefined;
      responses[code] = {
        description: doc.description,
        ...(Object.keys(headers).length ? { headers } : {}),
        ...(schema ? { content: { [contentType]: { schema } } } : doc.contentType ? { content: { [contentType]: {} } } : {}),
      };
    }
    const pathParams = parameters(c, s.params, 'path');
    const headerParams = Object.entries(s.headers ?? {}).map(([name, description]) => ({
      name,
      in: 'header',
      required: false,
      description,
      schema: { type: 'string' },
    }));
    const op: Record<string, unknown> = {
      operationId,
      summary: s.summary,
      ...(s.description ? { description: s.description } : {}),
      tags: s.tags,
      parameters: [...pathParams, ...parameters(c, s.querystring, 'query'), ...headerParams],
      ...(s.body
        ? {
            requestBody: {
              required: true,
              description: s.body.description,
              content: {
                [s.body.contentType]: s.body.schema
                  ? { schema: c.use(s.body.schema, `${pascal(operationId)}Request`) }
                  : { schema: { type: 'string', format: 'binary' } },
              },
            },
          }
        : {}),
      responses,
      // OpenAPI 3.1 §4.8.10: an empty requirement object makes authentication optional.
      security: r.auth === 'key' ? [{ ApiKeyHeader: [] }, { BearerAuth: [] }] : r.auth === 'optional' ? [{}, { ApiKeyHeader: [] }, { BearerAuth: [] }] : [],
    };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  for (const t of opts.topics ?? []) {
    if (!t.doc) continue;
    const d = t.doc;
    const path = t.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operationId = `get${pascal(path.replace(/[{}]/g, ''))}`;
    const refusals = Object.fromEntries(
      Object.entries(d.refusals).map(([code, doc]) => [
        code,
        {
          description: doc.description,
          ...(doc.headers
            ? { headers: Object.fromEntries(Object.entries(doc.headers).map(([h, hd]) => [h, { description: hd, schema: { type: 'string' } }])) }
            : {}),
          content: { 'application/json': { schema: errorRef } },
        },
      ]),
    );
    (paths[path] ??= {})['get'] = {
      operationId,
      summary: d.summary,
      description: d.description,
      tags: d.tags,
      parameters: [
        ...parameters(c, d.params, 'path'),
        ...WS_REQUEST_HEADERS.map(([name, description, required]) => ({ name, in: 'header', required, description, schema: { type: 'string' } })),
      ],
      responses: {
        101: {
          description: 'Switching Protocols: the WebSocket is open; see `x-websocket` for the messages',
          headers: {
            Upgrade: { schema: { type: 'string', const: 'websocket' } },
            'Sec-WebSocket-Accept': { description: 'RFC 6455 §4.2.2', schema: { type: 'string' } },
          },
        },
        ...refusals,
      },
      security: [],
      'x-websocket': {
        protocol: 'RFC 6455 WebSocket, no subprotocol; text frames of JSON',
        serverMessages: c.use(d.serverMessage),
        clientMessages: c.use(d.clientMessage),
        ...d.extension,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: API_VERSION,
      description:
        `${info.description}\n\n` +
        'Every error, on every route, is one shape: the `Error` schema, `{"error", "message", "code"}`. ' +
        'A path with a trailing `/` is answered as the path without it (`/health/` as `/health`). ' +
        'Times are ISO 8601 (UTC); fees are DUST amounts in SPECK, labelled with their unit. ' +
        (opts.cors === true
          ? 'CORS: every public GET route (those without security) also answers its preflight, `OPTIONS` with 204 and ' +
            '`Access-Control-Allow-Origin`, `-Methods`, `-Headers`, `-Max-Age` for an allowed Origin (Fetch standard §3.2.2; not ' +
            'listed as operations). '
          : '') +
        'The push channel `GET /api/v1/{network}/ws` is a WebSocket: OpenAPI 3.1 has no WebSocket object, so it is described as ' +
        'the upgrading GET with its 101 answer and an `x-websocket` extension naming the messages.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'This nightgate instance' }],
    tags: [
      { name: 'statistics', description: 'Public, read-only, cached network statistics' },
      { name: 'proving', description: 'Proof generation through the configured prover backend (API key)' },
      { name: 'sponsorship', description: 'DUST fee sponsorship: server wallets pay every fee (API key)' },
      { name: 'meta', description: 'Health and documentation' },
    ],
    paths,
    components: {
      schemas: c.schemas,
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <key>' },
      },
    },
  };
}
