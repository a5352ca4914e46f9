/** /health, /docs, /api, /api/openapi.json: public, no key. */
import { Type } from '@sinclair/typebox';
import { json, type RouteDef, type Reply } from '../http/route.js';
import { apiPage, docsPage } from './pages.js';

export const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('shutting-down')]),
  version: Type.String(),
  startedAt: Type.String({ format: 'date-time' }),
  uptimeSeconds: Type.Number(),
  components: Type.Record(Type.String(), Type.Object({ status: Type.String() }, { additionalProperties: true })),
});

export interface MetaDeps {
  health(): Record<string, unknown>;
  /** The OpenAPI document; computed once all routes are mounted. */
  openapi(): Record<string, unknown>;
}

export function metaRoutes(deps: MetaDeps): RouteDef[] {
  let specBytes: string | undefined;
  let apiHtml: string | undefined;
  let docsHtml: string | undefined;
  const spec = (): string => (specBytes ??= JSON.stringify(deps.openapi()));
  const html = (body: string): Reply => ({ body, contentType: 'text/html; charset=utf-8', headers: { 'Cache-Control': 'public, max-age=300' } });
  return [
    {
      method: 'GET', url: '/health', style: 'prover', auth: 'none', rateLimit: 'none',
      schema: { summary: 'Health of the server and each component', tags: ['meta'], response: { 200: { description: 'Health report', schema: HealthSchema } } },
      handler: () => json(deps.health(), 200, { 'Cache-Control': 'no-store' }),
    },
    {
      method: 'GET', url: '/api/openapi.json', style: 'stats', auth: 'none', rateLimit: 'none',
      schema: { summary: 'This OpenAPI 3.1 description', tags: ['meta'], response: { 200: { description: 'OpenAPI 3.1.0 document' } } },
      handler: () => ({ body: spec(), headers: { 'Cache-Control': 'public, max-age=300' } }),
    },
    {
      method: 'GET', url: '/api', style: 'stats', auth: 'none', rateLimit: 'none',
      schema: { summary: 'Readable page of the API description', tags: ['meta'], response: { 200: { description: 'HTML', contentType: 'text/html' } } },
      handler: () => html((apiHtml ??= apiPage(deps.openapi()))),
    },
    {
      method: 'GET', url: '/docs', style: 'prover', auth: 'none', rateLimit: 'none',
      schema: { summary: 'Proving and sponsorship API guide', tags: ['meta'], response: { 200: { description: 'HTML', contentType: 'text/html' } } },
      handler: () => html((docsHtml ??= docsPage(deps.openapi()))),
    },
  ];
}
