/** Routes used only by the front-server tests to exercise the pipeline in isolation. */
import { Type } from '@sinclair/typebox';
import type { Module } from '../../src/infra/app-context.js';
import { json, OCTET } from '../../src/core/http/route.js';
import { GatewayError } from '../../src/core/errors.js';
import { deferred } from './app.js';

export interface TestRoutes {
  module: Module;
  /** Resolve to let the pending /t/slow request finish. */
  slow: ReturnType<typeof deferred<void>>;
  slowStarted: ReturnType<typeof deferred<void>>;
  aborted: ReturnType<typeof deferred<unknown>>;
}

export function testRoutes(): TestRoutes {
  const slow = deferred<void>();
  const slowStarted = deferred<void>();
  const aborted = deferred<unknown>();
  const module: Module = (ctx) =>
    ctx.addRoutes([
      {
        method: 'GET',
        url: '/t/keyed',
        auth: 'key',
        rateLimit: 'key',
        schema: { summary: 'keyed', tags: ['proving'], response: { 200: { description: 'ok' } } },
        handler: (c) => json({ key: c.key?.id, client: c.headers['x-client-id'] ?? null }),
      },
      {
        method: 'GET',
        url: '/t/public',
        auth: 'none',
        rateLimit: 'ip',
        schema: {
          summary: 'public',
          tags: ['statistics'],
          querystring: Type.Object({ q: Type.Optional(Type.String()) }),
          response: { 200: { description: 'ok' } },
        },
        handler: (c) => json({ q: c.searchParams.get('q') }, 200, { ETag: '"v1"', 'Cache-Control': 'max-age=5' }),
      },
      {
        // Echoes the query into a response header: what a careless route could do with user input.
        method: 'GET',
        url: '/t/echo-header',
        auth: 'none',
        rateLimit: 'none',
        schema: {
          summary: 'echo header',
          tags: ['statistics'],
          querystring: Type.Object({ v: Type.Optional(Type.String()) }),
          response: { 200: { description: 'ok' } },
        },
        handler: (c) => json({}, 200, { 'X-Echo': c.searchParams.get('v') ?? '', 'Bad Name': 'dropped' }),
      },
      {
        method: 'GET',
        url: '/t/slow',
        auth: 'key',
        rateLimit: 'key',
        schema: { summary: 'slow', tags: ['proving'], response: { 200: { description: 'ok' } } },
        handler: async (c) => {
          c.signal.addEventListener('abort', () => aborted.resolve(c.signal.reason));
          slowStarted.resolve();
          await slow.promise;
          return json({ done: true });
        },
      },
      {
        method: 'GET',
        url: '/t/boom',
        auth: 'none',
        rateLimit: 'none',
        schema: { summary: 'throws', tags: ['statistics'], response: { 500: { description: 'error' } } },
        handler: () => {
          throw new Error('secret internal detail');
        },
      },
      {
        method: 'GET',
        url: '/t/busy',
        auth: 'none',
        rateLimit: 'none',
        schema: { summary: 'busy', tags: ['proving'], response: { 503: { description: 'busy' } } },
        handler: async () => {
          throw new GatewayError('QUEUE_FULL', undefined, { headers: { 'Retry-After': '7' } });
        },
      },
      {
        method: 'POST',
        url: '/t/echo',
        auth: 'key',
        rateLimit: 'key',
        body: { limit: 1024, contentTypes: [OCTET] },
        schema: {
          summary: 'echo',
          tags: ['proving'],
          body: { contentType: OCTET, description: 'bytes' },
          response: { 200: { description: 'same bytes', contentType: OCTET } },
        },
        handler: (c) => ({ body: c.body!, contentType: OCTET }),
      },
    ]);
  return { module, slow, slowStarted, aborted };
}
