/**
 * The probes, public: /health, /livez, /readyz. /health answers an anonymous
 * client with its status and version only; the components' details (upstreams, sync, wallets,
 * counts) need a key or a client inside `auth.trustedNetworks`. /livez and /readyz are for load
 * balancers and service managers: the process answers; the server can serve what it is configured for.
 */
import { Type } from '@sinclair/typebox';
import { ERRORS, GatewayError } from '../../core/errors.js';
import { json, type RouteDef } from '../../core/http/route.js';

const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('shutting-down')]),
    version: Type.String(),
    startedAt: Type.Optional(Type.String({ format: 'date-time', description: 'With a key or from a trusted network' })),
    uptimeSeconds: Type.Optional(Type.Number({ description: 'With a key or from a trusted network' })),
    components: Type.Optional(
      Type.Record(Type.String(), Type.Object({ status: Type.String() }, { additionalProperties: true }), {
        description: 'With a key or from a trusted network',
      }),
    ),
  },
  { $id: 'Health' },
);

const LiveSchema = Type.Object({ status: Type.Literal('alive') }, { $id: 'Live' });
const ReadySchema = Type.Object({ status: Type.Literal('ready') }, { $id: 'Ready' });
/** The Error shape (openapi.ts) with the readiness details. */
const NotReadySchema = Type.Object(
  {
    error: Type.String({ description: 'Short title: `Service Unavailable`' }),
    message: Type.String(),
    code: Type.Literal('SERVER_NOT_READY'),
    status: Type.Literal('not-ready'),
    missing: Type.Array(Type.String(), { description: 'What is not usable yet, e.g. `dust:preview: server DUST wallets not synced (replaying)`' }),
  },
  { $id: 'NotReady', description: 'The Error shape with the readiness details `status` and `missing`' },
);
const NO_STORE = { 'Cache-Control': 'no-store' };

interface ProbeDeps {
  health(): Record<string, unknown>;
  /** What is missing for readiness; empty when ready (readiness.ts). */
  missing(): Promise<string[]>;
}

export function probeRoutes(deps: ProbeDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      url: '/health',
      auth: 'optional',
      rateLimit: 'none',
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
      method: 'GET',
      url: '/livez',
      auth: 'none',
      rateLimit: 'none',
      schema: { summary: 'Liveness: the process is up and serving', tags: ['meta'], response: { 200: { description: 'Alive', schema: LiveSchema } } },
      handler: () => json({ status: 'alive' }, 200, NO_STORE),
    },
    {
      method: 'GET',
      url: '/readyz',
      auth: 'none',
      rateLimit: 'none',
      schema: {
        summary: 'Readiness: the statistics followers have data, the DUST wallets of every sponsoring network have synced, the configured provers answer',
        tags: ['meta'],
        response: { 200: { description: 'Ready', schema: ReadySchema }, 503: { description: 'Not ready; `missing` says what', schema: NotReadySchema } },
      },
      handler: async () => {
        const missing = await deps.missing();
        if (missing.length === 0) return json({ status: 'ready' }, 200, NO_STORE);
        const err = new GatewayError('SERVER_NOT_READY');
        return {
          ...json({ error: ERRORS[err.code].title, message: err.message, code: err.code, status: 'not-ready', missing }, err.status, NO_STORE),
          code: err.code,
        };
      },
    },
  ];
}
