/**
 * The 404/405 catch-all is a route like the others — header limits and the
 * per-IP rate limit apply — and what a client sends is logged within a bounded length.
 */
import t from 'tap';
import { request } from 'undici';
import { startApp } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { BoundedOutput } from '../../../src/core/log/output.js';
import { createLogger } from '../../../src/core/log/log.js';
import { openSync } from 'node:fs';

t.test('unknown paths and wrong methods spend the per-IP quota, and are refused past it', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ rateLimit: { publicLimit: 3 } }, { modules: [routes.module], clock: new ManualClock(0) });
  t.teardown(() => s.close());
  const statuses: number[] = [];
  for (const [method, path] of [
    ['GET', '/nope'],
    ['POST', '/t/public'],
    ['DELETE', '/api/x'],
    ['GET', '/nope'],
  ] as const) {
    const r = await request(`${s.url}${path}`, { method });
    statuses.push(r.statusCode);
    t.equal(r.headers['ratelimit-policy'], '"ip";q=3;w=60', `${method} ${path} carries the policy`);
    if (r.statusCode === 429) t.ok(Number(r.headers['retry-after']) > 0, 'with Retry-After');
    await r.body.dump();
  }
  t.same(statuses, [404, 405, 404, 429]);
  const pub = await request(`${s.url}/t/public`);
  t.equal(pub.statusCode, 429, 'one quota for the address, whatever the path');
  await pub.body.dump();
});

t.test('header limits apply to unknown paths too', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ server: { maxHeaders: 16, maxHeaderBytes: 4096 } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-h${i}`, 'v']));
  const r1 = await request(`${s.url}/nope`, { headers: many });
  t.equal(r1.statusCode, 431, 'too many fields');
  await r1.body.dump();
  const r2 = await request(`${s.url}/nope`, { method: 'PUT', headers: { 'x-client-name': 'n'.repeat(8_000) } });
  t.equal(r2.statusCode, 431, 'too many bytes');
  await r2.body.dump();
});

t.test('client-supplied values are logged within a bounded length', async (t) => {
  const routes = testRoutes();
  const s = await startApp({ server: { maxHeaderBytes: 65_536 } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  const long = 'A'.repeat(10_000);
  for (const path of [`/nope/${long}`, '/t/public', '/t/keyed']) {
    const r = await request(`${s.url}${path}`, { headers: { 'x-client-id': long, 'x-client-name': long, 'user-agent': long } });
    await r.body.dump();
  }
  const access = s.logs.lines.filter((l) => l['msg'] === 'request');
  t.equal(access.length, 3);
  for (const l of access) {
    const size = JSON.stringify(l).length;
    t.ok(size < 1_500, `${l['route']}: a ${size}-byte line`);
    t.match(l['clientName'], /^A{128}…\(\+9872\)$/);
    t.match(l['clientId'], /^A{128}…\(\+9872\)$/);
  }
  t.match(access[0]!['path'], /^\/nope\/A+…\(\+\d+\)$/);
});

t.test('dropped log lines are counted in the health report', async (t) => {
  // Left open: the output may still be writing when the test ends.
  const fd = openSync('/dev/null', 'w');
  const output = new BoundedOutput({ fd, maxBytes: 65_536 });
  const routes = testRoutes();
  const s = await startApp({}, { modules: [routes.module], logger: createLogger('info', output), logOutput: output });
  t.teardown(() => s.close());
  s.app.context.logger.info({ big: 'x'.repeat(70_000) }, 'a line larger than the whole buffer');
  t.match((s.app.health()['components'] as Record<string, unknown>)['log'], { status: 'ok', droppedLines: 1, maxBytes: 65_536 });
});
