/**
 * Logs an operator can alert on: a request answered 5xx is logged at error, 429 and
 * 503 at warn, each with its stable code; other answers at info. With log.level=warn only those
 * lines are written.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, captureLogs } from '../../helpers/app.js';
import { GatewayError, type ErrorCode } from '../../../src/core/errors.js';
import type { Module } from '../../../src/infra/app-context.js';
import { json } from '../../../src/core/http/route.js';

const failing: Module = (ctx) => {
  ctx.addRoutes(
    (['INTERNAL', 'PROVER_UNREACHABLE', 'QUEUE_FULL', 'PROVER_TIMEOUT', 'INVALID_BODY'] as ErrorCode[]).map((code) => ({
      method: 'GET' as const,
      url: `/fail/${code}`,
      auth: 'none' as const,
      rateLimit: 'none' as const,
      schema: { summary: code, tags: [], response: {} },
      handler: () => {
        throw new GatewayError(code);
      },
    })),
  );
  ctx.addRoutes([
    { method: 'GET', url: '/ok', auth: 'none', rateLimit: 'ip', schema: { summary: 'ok', tags: [], response: {} }, handler: () => json({ ok: true }) },
  ]);
};

async function get(url: string): Promise<number> {
  const r = await request(url);
  await r.body.dump();
  return r.statusCode;
}

t.test('error answers are logged at error or warn with their code', async (t) => {
  const s = await startApp({ rateLimit: { publicLimit: 2 } }, { modules: [failing] });
  t.teardown(() => s.close());
  for (const code of ['INTERNAL', 'PROVER_UNREACHABLE', 'QUEUE_FULL', 'PROVER_TIMEOUT', 'INVALID_BODY']) await get(`${s.url}/fail/${code}`);
  t.same([await get(`${s.url}/ok`), await get(`${s.url}/ok`), await get(`${s.url}/ok`)], [200, 200, 429]);
  const lines = s.logs.lines.filter((l) => l['msg'] === 'request');
  const byPath = (p: string): Array<Record<string, unknown>> => lines.filter((l) => l['path'] === p);
  t.match(byPath('/fail/INTERNAL'), [{ level: 50, status: 500, code: 'INTERNAL' }]);
  t.match(byPath('/fail/PROVER_UNREACHABLE'), [{ level: 50, status: 502, code: 'PROVER_UNREACHABLE' }]);
  t.match(byPath('/fail/PROVER_TIMEOUT'), [{ level: 50, status: 504, code: 'PROVER_TIMEOUT' }]);
  t.match(byPath('/fail/QUEUE_FULL'), [{ level: 40, status: 503, code: 'QUEUE_FULL' }]);
  t.match(byPath('/fail/INVALID_BODY'), [{ level: 30, status: 400, code: 'INVALID_BODY' }]);
  const ok = byPath('/ok');
  t.match(ok, [
    { level: 30, status: 200 },
    { level: 30, status: 200 },
    { level: 40, status: 429, code: 'RATE_LIMITED' },
  ]);
  t.notOk('code' in ok[0]!, 'a success has no code');
});

t.test('log.level=warn: only the warn and error lines', async (t) => {
  const logs = captureLogs('warn');
  const s = await startApp({ log: { level: 'warn' } }, { modules: [failing], logger: logs.logger });
  t.teardown(() => s.close());
  await get(`${s.url}/ok`);
  await get(`${s.url}/fail/QUEUE_FULL`);
  await get(`${s.url}/fail/INTERNAL`);
  const lines = logs.lines.filter((l) => l['msg'] === 'request');
  t.match(lines, [
    { status: 503, level: 40 },
    { status: 500, level: 50 },
  ]);
  t.equal(lines.length, 2);
});
