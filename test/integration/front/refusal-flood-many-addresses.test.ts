/**
 * Refusals from many addresses at once: behind a trusted proxy, 10 000 forwarded addresses each
 * refused (a 404, or a 401 for a wrong key) once per second of the app's clock. The access log
 * writes at most REFUSAL_LINES_PER_SECOND refusal lines per second across all addresses, plus the
 * once-a-second `"refusals"` line that counts the rest by code and names the top addresses; the
 * log costs well under a byte per refusal (0.35 B on an idle 2-core host). The requests go through a real server, pipelined on
 * raw sockets; time is the app's injected clock.
 */
import t from 'tap';
import { connect } from 'node:net';
import { ManualClock } from '../../helpers/manual-clock.js';
import * as fold from '../../../src/core/http/refusal-fold.js';
import { startApp } from '../../helpers/app.js';
import { testRoutes } from '../../helpers/routes.js';

const ADDRESSES = 10_000;
const SECONDS = 4;
const BATCH = 1_000;
/** Read from the module, not imported by name, so that a build without the budget fails here rather than at load. */
const REFUSAL_LINES_PER_SECOND = fold.REFUSAL_LINES_PER_SECOND;

function address(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

/** One request per address, forwarded by the proxy at 127.0.0.1; even addresses ask for no route, odd ones send a wrong key. */
function request(i: number): string {
  return i % 2 === 0
    ? `GET /nowhere HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${address(i)}\r\n\r\n`
    : `GET /t/keyed HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${address(i)}\r\nX-API-Key: wrong-key-0000000000\r\n\r\n`;
}

/** Send every address's request once on one connection, BATCH at a time; count the answers by status. */
async function round(port: number, statuses: Map<number, number>): Promise<void> {
  const sock = connect(port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
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
  for (let sent = 0; sent < ADDRESSES; sent += BATCH) {
    let chunk = '';
    for (let i = sent; i < sent + BATCH; i++) chunk += request(i);
    sock.write(chunk);
    await new Promise<void>((resolve) => {
      wake = () => {
        if (answered >= sent + BATCH) resolve();
      };
      wake();
    });
  }
  sock.destroy();
}

t.test('10 000 forwarded addresses refused once a second: at most the budget of lines a second, well under a byte a refusal', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const routes = testRoutes();
  const s = await startApp({ log: { requests: 'aggregate' }, server: { trustedProxies: ['127.0.0.1/32'] } }, { modules: [routes.module], clock });
  t.teardown(() => s.close());
  const statuses = new Map<number, number>();
  const refusalLines = (): number => s.logs.lines.filter((l) => l['msg'] === 'request' && (l['status'] as number) >= 400).length;
  const perSecond: number[] = [];
  const started = performance.now();
  for (let second = 0; second < SECONDS; second++) {
    const before = refusalLines();
    await round(s.port, statuses);
    await new Promise((r) => setImmediate(r));
    perSecond.push(refusalLines() - before);
    clock.advance(1_000);
  }
  const realSeconds = (performance.now() - started) / 1000;
  await s.close();

  const refused = (statuses.get(404) ?? 0) + (statuses.get(401) ?? 0);
  t.equal(refused, ADDRESSES * SECONDS, `every request refused: ${statuses.get(404)} × 404, ${statuses.get(401)} × 401`);
  for (const [i, n] of perSecond.entries()) t.ok(n <= REFUSAL_LINES_PER_SECOND, `second ${i}: ${n} refusal lines (budget ${REFUSAL_LINES_PER_SECOND})`);

  const summaries = s.logs.lines.filter((l) => l['msg'] === 'refusals');
  // One a second of real time while the flood lasts, and one at close.
  t.ok(summaries.length >= 1 && summaries.length <= Math.ceil(realSeconds) + 1, `${summaries.length} "refusals" lines in ${realSeconds.toFixed(1)} s`);
  let counted = 0;
  const codes = new Map<string, number>();
  for (const l of summaries) {
    t.equal(l['level'], 40, 'a warn, as the refusals it stands for');
    counted += l['total'] as number;
    for (const [code, n] of Object.entries(l['codes'] as Record<string, number>)) codes.set(code, (codes.get(code) ?? 0) + n);
    const clients = Object.keys(l['clients'] as Record<string, unknown>);
    t.ok(clients.length <= 11, `${clients.length} entries in "clients": the top addresses and "other"`);
  }
  const lines = refusalLines();
  t.equal(counted + lines, refused, 'every refusal is a line or counted');
  t.equal((codes.get('NOT_FOUND') ?? 0) + (codes.get('UNAUTHORIZED') ?? 0), counted, 'counted by code');

  for (const l of summaries) t.ok(JSON.stringify(l).length < 2048, 'a "refusals" line of bounded size');
  const bytes = Buffer.byteLength(s.logs.text());
  const perRefusal = bytes / refused;
  // The "refusals" lines follow real time: on a slow machine there are more of them, at most 2 KiB each.
  t.ok(perRefusal < 1, `${refused} refusals from ${ADDRESSES} addresses wrote ${bytes} B of log: ${perRefusal.toFixed(3)} B a refusal`);
});
