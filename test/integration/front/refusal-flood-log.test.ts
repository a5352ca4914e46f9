/**
 * In the default `aggregate` access log, a client refused again and again costs the log one line
 * a second, not one line a request: 100 000 refused requests from one address (429s past the
 * per-IP limit, a 404 flood, a 401 flood that turns into 429s) write less than 1 MiB, and the
 * `"refusals"` line counts them by address and code. Time is the app's injected clock; the
 * requests go through a real server, pipelined on raw sockets.
 */
import t from 'tap';
import { connect } from 'node:net';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startApp } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';

const TOTAL = 100_000;
const BATCH = 1_000;

/** Send `count` copies of `request` on one connection, `BATCH` at a time, and count the answers by status. */
async function flood(port: number, request: string, count: number, onBatch: () => void): Promise<Map<number, number>> {
  const sock = connect(port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  const statuses = new Map<number, number>();
  let answered = 0;
  let tail = '';
  let wake: (() => void) | undefined;
  sock.on('data', (d) => {
    const text = tail + d.toString('latin1');
    const re = /HTTP\/1\.1 (\d{3}) /g;
    let m;
    let last = 0;
    while ((m = re.exec(text)) !== null) {
      statuses.set(Number(m[1]), (statuses.get(Number(m[1])) ?? 0) + 1);
      answered++;
      last = re.lastIndex;
    }
    tail = text.slice(Math.max(last, text.length - 16));
    wake?.();
  });
  for (let sent = 0; sent < count; sent += BATCH) {
    const n = Math.min(BATCH, count - sent);
    sock.write(request.repeat(n));
    await new Promise<void>((resolve) => {
      wake = () => {
        if (answered >= sent + n) resolve();
      };
      wake();
    });
    onBatch();
  }
  sock.destroy();
  return statuses;
}

t.test('100 000 refused requests from one address write less than 1 MiB of log', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const routes = testRoutes();
  const s = await startApp(
    { log: { requests: 'aggregate' }, rateLimit: { publicLimit: 100 }, auth: { failureLimit: 100 } },
    { modules: [routes.module], clock },
  );
  t.teardown(() => s.close());
  // 40 ms of the app's time per batch: 100 batches are 4 s, so every second starts its own fold.
  const tick = (): void => clock.advance(40);
  const limited = await flood(s.port, 'GET /t/public HTTP/1.1\r\nHost: x\r\n\r\n', TOTAL * 0.4, tick);
  const missing = await flood(s.port, 'GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n', TOTAL * 0.3, tick);
  const wrongKey = await flood(s.port, 'GET /t/keyed HTTP/1.1\r\nHost: x\r\nX-API-Key: wrong-key-0000000000\r\n\r\n', TOTAL * 0.3, tick);
  t.equal((limited.get(429) ?? 0) + (limited.get(200) ?? 0), TOTAL * 0.4, 'the public flood: 200s, then 429s');
  t.ok((limited.get(429) ?? 0) > TOTAL * 0.39, `${limited.get(429)} of them 429`);
  t.equal(missing.get(429) ?? 0, TOTAL * 0.3, 'the 404 flood spends the same per-IP quota: all 429 now');
  t.ok((wrongKey.get(401) ?? 0) >= 100 && (wrongKey.get(429) ?? 0) > 0, `the wrong key: ${wrongKey.get(401)} 401, then ${wrongKey.get(429)} 429`);
  await s.close();

  const bytes = Buffer.byteLength(s.logs.text());
  t.ok(bytes < 2 ** 20, `${TOTAL} refused requests wrote ${(bytes / 1024).toFixed(1)} KiB of log`);
  const refusals = s.logs.lines.filter((l) => l['msg'] === 'refusals');
  t.ok(refusals.length > 0, `${refusals.length} "refusals" lines`);
  const counted = new Map<string, number>();
  for (const l of refusals) {
    t.equal(l['level'], 40);
    for (const [ip, codes] of Object.entries(l['clients'] as Record<string, Record<string, number>>)) {
      t.equal(ip, '127.0.0.1', 'counted by address');
      for (const [code, n] of Object.entries(codes)) counted.set(code, (counted.get(code) ?? 0) + n);
    }
  }
  const logged = s.logs.lines.filter((l) => l['msg'] === 'request' && (l['status'] as number) >= 400);
  const answered429 = (limited.get(429) ?? 0) + (missing.get(429) ?? 0) + (wrongKey.get(429) ?? 0);
  const lines429 = logged.filter((l) => l['status'] === 429).length;
  t.equal((counted.get('RATE_LIMITED') ?? 0) + (counted.get('TOO_MANY_AUTH_FAILURES') ?? 0) + lines429, answered429, 'every 429 is either a line or counted');
  t.ok(lines429 <= 2 * 100, `${lines429} lines for ${answered429} 429s: about one a second per code`);
  t.equal((counted.get('UNAUTHORIZED') ?? 0) + logged.filter((l) => l['status'] === 401).length, wrongKey.get(401), 'every 401 too');
});

t.test('a start-up /readyz probe that is not ready is logged at info, not warn', async (t) => {
  const s = await startApp(
    { log: { requests: 'aggregate' } },
    { modules: [(ctx) => ctx.addComponent({ name: 'slow', health: () => ({ status: 'starting' }), ready: () => ['still starting'] })] },
  );
  t.teardown(() => s.close());
  const r = await fetch(`${s.url}/readyz`);
  t.equal(r.status, 503);
  await r.arrayBuffer();
  const line = s.logs.lines.find((l) => l['msg'] === 'request' && l['route'] === '/readyz');
  t.match(line, { level: 30, status: 503, code: 'SERVER_NOT_READY' });
});
