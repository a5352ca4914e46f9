/** /api/openapi.json: this server's OpenAPI 3.1 document, rendered once, with an ETag. */
import { Type } from '@sinclair/typebox';
import { servedMany } from '../../core/http/compression.js';
import type { Reply, RouteDef } from '../../core/http/route.js';

/** Just enough of OpenAPI 3.1 for a generated client to type the document route. */
const OpenApiDocumentSchema = Type.Object(
  {
    openapi: Type.String({ examples: ['3.1.0'] }),
    info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }),
    paths: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'OpenApiDocument', additionalProperties: true, description: 'This OpenAPI 3.1.0 document (spec.openapis.org/oas/v3.1.0)' },
);

const VALIDATED = { ETag: 'Validator of the body (its coding named in it); send it back in If-None-Match for a 304', 'Cache-Control': '`public, max-age=300`' };
const NOT_MODIFIED = { description: 'Not Modified: If-None-Match matched the ETag' };

export function openApiRoute(openapi: () => Record<string, unknown>): RouteDef {
  // Served as it is to every request: serialized and compressed once (http/compression.ts).
  let reply: Reply | undefined;
  return {
    method: 'GET',
    url: '/api/openapi.json',
    auth: 'none',
    rateLimit: 'none',
    schema: {
      summary: 'This OpenAPI 3.1 description',
      tags: ['meta'],
      response: { 200: { description: 'OpenAPI 3.1.0 document', schema: OpenApiDocumentSchema, headers: VALIDATED }, 304: NOT_MODIFIED },
    },
    handler: () => (reply ??= servedMany({ body: JSON.stringify(openapi()), headers: { 'Cache-Control': 'public, max-age=300' } })),
  };
}
