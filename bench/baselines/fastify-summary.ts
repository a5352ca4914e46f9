/**
 * The summary route as a developer would write it on Fastify 5: the summary kept in an in-memory
 * object per network, returned from the handler (Fastify serializes it with JSON.stringify on every
 * request, there being no response schema), the same headers set on the reply.
 */
import Fastify from 'fastify';
import { SUMMARY_ROUTE, announce, fixtureFromArgv } from './baseline-process.js';

const fixture = fixtureFromArgv();
const summaries: Record<string, unknown> = { [fixture.network]: fixture.body };

const app = Fastify({ logger: false });
app.get<{ Params: { network: string } }>(SUMMARY_ROUTE, async (req, reply) => {
  const summary = summaries[req.params.network];
  if (summary === undefined) return reply.code(404).send({ error: 'Unknown Network' });
  reply.headers(fixture.headers);
  return summary;
});

const address = await app.listen({ host: '127.0.0.1', port: 0 });
announce('fastify', Number(new URL(address).port), () => void app.close());
