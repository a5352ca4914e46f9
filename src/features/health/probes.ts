/**
 * /health, /livez, /readyz, /api/openapi.json: public (the pages, /, /api and /docs: site.ts). /health answers an anonymous
 * client with its status and version only; the components' details (upstreams, sync, wallets,
 * counts) need a key or a client inside `auth.trustedNetworks`. /livez and /readyz are for load
 * balancers and service managers: the process answers; the server can serve what it is configured for.
 */
import { Type } from '@sinclair/typebox';
import { ERRORS, GatewayError } from '../../core/errors.js';
import { json, type RouteDef, type Reply } from '../../core/http/route.js';
import { servedMany } from '../../core/http/compression.js';

export const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('shutting-down')]),
  version: Type.String(),
  startedAt: Type.Optional(Type.String({ format: 'date-time', description: 'With a key or from a trusted network' })),
  uptimeSeconds: Type.Optional(Type.Number({ description: 'With a key or from a trusted network' })),
  components: Type.Optional(Type.Record(Type.String(), Type.Object({ status: Type.String() }, { additionalProperties: true }), { description: 'With a key or from a trusted network' })),
}, { $id: 'Health' });

export const LiveSchema = Type.Object({ status: Type.Literal('alive') }, { $id: 'Live' });
export const ReadySchema = Type.Object({ status: Type.Literal('ready') }, { $id: 'Ready' });
/** The Error shape (openapi.ts) with the readiness details. */
export const NotReadySchema = Type.Object(
  {
    error: Type.String({ description: 'Short title: `Service Unavailable`' }),
    message: Type.String(),
    code: Type.Literal('SERVER_NOT_READY'),
    status: Type.Literal('not-ready'),
    missing: Type.Array(Type.String(), { description: 'What is not usable yet, e.g. `dust:preview: server DUST wallets not synced (replaying)`' }),
  },
  { $id: 'NotReady', description: 'The Error shape with the readiness details `status` and `missing`' },
);
/** Just enough of OpenAPI 3.1 for a generated client to type the document route. */
export const OpenApiDocumentSchema = Type.Object(
  { openapi: Type.String({ examples: ['3.1.0'] }), info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }), paths: Type.Record(Type.String(), Type.Unknown()) },
  { $id: 'OpenApiDocument', additionalProperties: true, description: 'This OpenAPI 3.1.0 document (spec.openapis.org/oas/v3.1.0)' },
);

const NO_STORE = { 'Cache-Control': 'no-store' };
/** The documents are rendered once and carry an ETag (compression.ts, servedMany). */
const VALIDATED = { ETag: 'Validator of the body (its coding named in it); send it back in If-None-Match for a 304', 'Cache-Control': '`public, max-age=300`' };
const NOT_MODIFIED = { description: 'Not Modified: If-None-Match matched the ETag' };

export interface MetaDeps {
  health(): Record<string, unknown>;
  /** What is missing for readiness; empty when ready (readiness.ts). */
  missing(): Promise<string[]>;
  /** The OpenAPI document; computed once all routes are mounted. */
  openapi(): Record<string, unknown>;
}

export function metaRoutes(deps: MetaDeps): RouteDef[] {
  let specBytes: string | undefined;
  const spec = (): string => (specBytes ??= JSON.stringify(deps.openapi()));
  // Served as they are to every request: compressed once (http/compression.ts).
  let specReply: Reply | undefined;
  return [
    {
      method: 'GET', url: '/health', auth: 'optional', rateLimit: 'none',
      schema: {
        summary: 'Health of the server; each component with a key or from a trusted network',
        tags: ['meta'],
        response: { 200: { description: 'Health report', schema: HealthSchema }, 401: { description: 'A key was sent and is not valid' } },
      },
      handler: (c) => {
        const report = deps.health();
        return json(c.key ? report : { status: report['status'], version: report['version'] }, 200, NO_STORE);
      },
    },
    {
      method: 'GET', url: '/livez', auth: 'none', rateLimit: 'none',
      schema: { summary: 'Liveness: the process is up and serving', tags: ['meta'], response: { 200: { description: 'Alive', schema: LiveSchema } } },
      handler: () => json({ status: 'alive' }, 200, NO_STORE),
    },
    {
      method: 'GET', url: '/readyz', auth: 'none', rateLimit: 'none',
      schema: {
        summary: 'Readiness: the statistics followers have data, the DUST wallets of every sponsoring network have synced, the configured provers answer',
        tags: ['meta'],
        response: { 200: { description: 'Ready', schema: ReadySchema }, 503: { description: 'Not ready; `missing` says what', schema: NotReadySchema } },
      },
      handler: async () => {
        const missing = await deps.missing();
        if (missing.length === 0) return json({ status: 'ready' }, 200, NO_STORE);
        const err = new GatewayError('SERVER_NOT_READY');
        return { ...json({ error: ERRORS[err.code].title, message: err.message, code: err.code, status: 'not-ready', missing }, err.status, NO_STORE), code: err.code };
      },
    },
    {
      method: 'GET', url: '/api/openapi.json', auth: 'none', rateLimit: 'none',
      schema: { summary: 'This OpenAPI 3.1 description', tags: ['meta'], response: { 200: { description: 'OpenAPI 3.1.0 document', schema: OpenApiDocumentSchema, headers: VALIDATED }, 304: NOT_MODIFIED } },
      handler: () => (specReply ??= servedMany({ body: spec(), headers: { 'Cache-Control': 'public, max-age=300' } })),
    },
  ];
}
