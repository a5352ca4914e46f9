import t from 'tap';
import { openSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { AccessLog, jsonString } from '../../../../src/core/http/access-log.js';
import { BoundedOutput } from '../../../../src/core/log/output.js';

/** A pino logger shaped like the app's (base, ISO time, http child) writing into an array. */
function capture(level = 'info'): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(l);
      cb();
    },
  });
  const logger = pino({ level, base: { service: 'nightgate' }, timestamp: pino.stdTimeFunctions.isoTime }, stream).child({ module: 'http' });
  return { logger, lines };
}

/** A bounded output that records what it is handed instead of writing it. */
class Recording extends BoundedOutput {
  calls: Array<{ chunk: string; lines: number }> = [];
  constructor(maxBytes: number) {
    super({ fd: openSync('/dev/null', 'w'), maxBytes });
  }
  override writeLines(chunk: string, lines: number): void {
    this.calls.push({ chunk, lines });
    super.writeLines(chunk, lines);
  }
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

t.test('the line is the one pino writes for the same record: same keys, order and values', async (t) => {
  const odd = ['plain', 'quote " and back\\slash', 'tab\tnewline\n', 'ünïcödé ✓', '\u2028', '\u0000\u001f\u007f'];
  for (const [i, s] of odd.entries()) {
    const { logger, lines } = capture();
    const access = new AccessLog(logger);
    logger.info(
      {
        reqId: s,
        method: 'GET',
        route: '/api/v1/:network/summary',
        path: s,
        status: 200,
        ms: 0.12,
        ip: '127.0.0.1',
        keyId: undefined,
        clientId: s,
        clientName: undefined,
      },
      'request',
    );
    access.write(s, 'GET', '/api/v1/:network/summary', s, 200, 0.12, '127.0.0.1', undefined, s, undefined);
    t.equal(lines.length, 2, 'a destination other than the bounded output gets the line at once');
    const [viaPino, ours] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    delete viaPino!['time'];
    const time = ours!['time'];
    delete ours!['time'];
    t.same(Object.keys(ours!), Object.keys(viaPino!), `keys in pino's order (string ${i})`);
    t.same(ours, viaPino, `values (string ${i})`);
    t.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, "pino's ISO time");
  }
  t.equal(jsonString('a"b'), '"a\\"b"');
  // A lone surrogate: pino writes it raw (U+FFFD once encoded); the escape keeps what was sent.
  t.equal(jsonString('\ud800 lone'), '"\\ud800 lone"');
  t.equal(jsonString('abc'), '"abc"');
});

t.test('absent key and client fields are left out; present ones kept', async (t) => {
  const { logger, lines } = capture();
  const access = new AccessLog(logger);
  access.write('r-1', 'POST', '/prove', '/prove', 401, 3, '::1', 'env-1', 'c-1', 'Wallet');
  access.write('r-2', 'GET', '(unmatched)', '/nope', 404, 0.5, '::1', undefined, undefined, undefined);
  t.match(JSON.parse(lines[0]!), {
    level: 30,
    service: 'nightgate',
    module: 'http',
    reqId: 'r-1',
    method: 'POST',
    status: 401,
    ms: 3,
    keyId: 'env-1',
    clientId: 'c-1',
    clientName: 'Wallet',
    msg: 'request',
  });
  t.same(
    Object.keys(JSON.parse(lines[1]!) as object).filter((k) => /^(keyId|clientId|clientName)$/.test(k)),
    [],
  );
});

t.test('a logger at warn writes only the warn and error lines (429, 5xx); above warn none', async (t) => {
  const { logger, lines } = capture('warn');
  const access = new AccessLog(logger);
  t.equal(access.enabled, true);
  access.write('r-1', 'GET', '/ok', '/ok', 200, 1, '::1', undefined, undefined, undefined);
  access.count('/ok', 200);
  access.write('r-2', 'POST', '/prove', '/prove', 503, 1, '::1', 'env-1', undefined, undefined, 'QUEUE_FULL');
  access.write('r-3', 'POST', '/prove', '/prove', 502, 1, '::1', 'env-1', undefined, undefined, 'PROVER_UNREACHABLE');
  t.match(
    lines.map((l) => JSON.parse(l)),
    [
      { level: 40, status: 503, code: 'QUEUE_FULL' },
      { level: 50, status: 502, code: 'PROVER_UNREACHABLE' },
    ],
  );
  t.equal(lines.length, 2);
  t.equal(new AccessLog(capture('error').logger).enabled, false);
  t.equal(new AccessLog(capture('info').logger).enabled, true);
});

t.test('on the bounded output: one write per event-loop turn, or sooner when a batch is full', async (t) => {
  const out = new Recording(4 * 1024 * 1024);
  const logger = pino({ base: { service: 'nightgate' } }, out).child({ module: 'http' });
  const access = new AccessLog(logger, 1024);
  for (let i = 0; i < 3; i++) access.write(`r-${i}`, 'GET', '/x', '/x', 200, 0.1, '127.0.0.1', undefined, undefined, undefined);
  t.equal(out.calls.length, 0, 'nothing written within the turn');
  await tick();
  t.equal(out.calls.length, 1, 'the turn ends: one write');
  t.equal(out.calls[0]!.lines, 3);
  t.same(
    out.calls[0]!.chunk.trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { reqId: string }).reqId),
    ['r-0', 'r-1', 'r-2'],
    'complete lines, in order',
  );

  out.calls.length = 0;
  for (let i = 0; i < 20; i++) access.write(`r-${i}`, 'GET', '/x', '/x', 200, 0.1, '127.0.0.1', undefined, undefined, undefined);
  t.ok(out.calls.length >= 1, 'a full batch leaves within the turn');
  await tick();
  t.equal(
    out.calls.reduce((n, c) => n + c.lines, 0),
    20,
    'every line leaves, none twice',
  );
  t.ok(
    out.calls.every((c) => c.chunk.endsWith('\n') && c.chunk.split('\n').length - 1 === c.lines),
    'batches hold whole lines',
  );

  out.calls.length = 0;
  access.write('r-last', 'GET', '/x', '/x', 200, 0.1, '127.0.0.1', undefined, undefined, undefined);
  access.flush();
  t.equal(out.calls.length, 1, 'flush (shutdown) writes what is pending at once');
  await tick();
  t.equal(out.calls.length, 1, 'and the scheduled flush then finds nothing');
});

t.test('a batch that does not fit the bounded buffer is dropped whole, every line counted', async (t) => {
  const out = new Recording(300);
  const logger = pino({ base: { service: 'nightgate' } }, out).child({ module: 'http' });
  const access = new AccessLog(logger);
  for (let i = 0; i < 5; i++) access.write(`r-${i}`, 'GET', '/x', '/x', 200, 0.1, '127.0.0.1', undefined, undefined, undefined);
  await tick();
  t.equal(out.dropped, 5, 'five lines over a 300-byte bound');
  t.equal(out.health().droppedLines, 5, '/health counts them');
});

t.test('counted answers: one "requests" line per window by route and status, none for an empty window', async (t) => {
  const { logger, lines } = capture();
  const access = new AccessLog(logger);
  access.writeCounts();
  t.equal(lines.length, 0, 'nothing counted: no line');
  for (let i = 0; i < 4; i++) access.count('/api/v1/:network/summary', 200);
  access.count('/api/v1/:network/summary', 304);
  access.count('/api', 200);
  t.equal(lines.length, 0, 'counting writes nothing');
  access.writeCounts();
  t.equal(lines.length, 1);
  t.match(JSON.parse(lines[0]!), {
    level: 30,
    service: 'nightgate',
    module: 'http',
    total: 6,
    routes: { '/api/v1/:network/summary': { 200: 4, 304: 1 }, '/api': { 200: 1 } },
    msg: 'requests',
  });
  access.writeCounts();
  t.equal(lines.length, 1, 'the next window starts empty');
});
