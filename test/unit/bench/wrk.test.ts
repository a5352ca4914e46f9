/** bench/lib/wrk.ts: what is read from a wrk run, how a run fails, and the chart's wrk group. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runLoad } from '../../../bench/lib/load.js';
import { renderSvg } from '../../../bench/lib/report-svg.js';
import type { BenchResults, LoadFigures, Measurement } from '../../../bench/lib/types.js';
import { WRK_NOT_OK, WRK_OK, parseWrkOutput, runWrk, wrkVersion } from '../../../bench/lib/wrk.js';

t.test("the report line: wrk's 2xx/3xx and the rest, errors summed, latencies in ms", async (t) => {
  const out = [
    'Running 5s test @ http://127.0.0.1:1/api/v1/preview/summary',
    '  1 threads and 100 connections',
    'Requests/sec:  62000.00',
    '',
    'NIGHTGATE-BENCH ' +
      '{"requests":310010,"durationUs":5000400,"connectErrors":0,"readErrors":3,"writeErrors":1,"timeouts":2,"statusErrors":10,' +
      '"p50Us":1450,"p90Us":2100,"p99Us":5875,"maxUs":31000,"meanUs":1512.500}',
  ].join('\n');
  t.same(parseWrkOutput(out), {
    durationS: 5.0004,
    responses: 310_010,
    status: { [WRK_OK]: 310_000, [WRK_NOT_OK]: 10 },
    errors: 4,
    timeouts: 2,
    latencyMs: { p50: 1.45, p90: 2.1, p99: 5.875, max: 31, mean: 1.5125 },
  });
  const allFailed = parseWrkOutput(
    'NIGHTGATE-BENCH ' +
      '{"requests":5,"durationUs":1000000,"connectErrors":0,"readErrors":0,"writeErrors":0,"timeouts":0,"statusErrors":5,"p50Us' +
      '":1,"p90Us":1,"p99Us":1,"maxUs":1,"meanUs":1}',
  );
  t.same(allFailed.status, { [WRK_NOT_OK]: 5 }, 'no zero counts');
  t.throws(() => parseWrkOutput('', 'unable to connect to 127.0.0.1:1 Connection refused\n'), {
    message: 'wrk printed no report: unable to connect to 127.0.0.1:1 Connection refused',
  });
  t.throws(() => parseWrkOutput('NIGHTGATE-BENCH {"requests":'), { message: /^wrk's report line is not JSON \(.+\): NIGHTGATE-BENCH \{"requests":$/ });
});

/** A stand-in `wrk` first on PATH: a shell script doing what `body` says. */
function fakeWrk(t: Test, body: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'fake-wrk-'));
  writeFileSync(join(dir, 'wrk'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, 'wrk'), 0o755);
  const path = process.env['PATH'];
  process.env['PATH'] = `${dir}:${path ?? ''}`;
  t.teardown(() => {
    process.env['PATH'] = path;
    rmSync(dir, { recursive: true, force: true });
  });
}

const SPEC = { url: 'http://127.0.0.1:9/x', connections: 3, durationS: 1, timeoutS: 2 };

t.test('runWrk: the arguments wrk gets, and its report', async (t) => {
  fakeWrk(
    t,
    'echo "$@" >&2; echo \'NIGHTGATE-BENCH ' +
      '{"requests":7,"durationUs":1000000,"connectErrors":0,"readErrors":0,"writeErrors":0,"timeouts":0,"statusErrors":0,' +
      '"p50Us":100,"p90Us":200,"p99Us":300,"maxUs":400,"meanUs":150}\'',
  );
  const r = await runWrk(SPEC);
  t.same([r.responses, r.status, r.latencyMs.p99], [7, { [WRK_OK]: 7 }, 0.3]);
});

t.test('runWrk: a failing wrk is reported with what it said', async (t) => {
  fakeWrk(t, 'echo "unable to connect to 127.0.0.1:9 Connection refused" >&2; exit 1');
  await t.rejects(runWrk(SPEC), { message: 'wrk exited 1: wrk printed no report: unable to connect to 127.0.0.1:9 Connection refused' });
});

t.test('runWrk: a wrk that never ends is killed at its hard stop', async (t) => {
  fakeWrk(t, 'exec sleep 30');
  await t.rejects(runWrk({ ...SPEC, hardStopS: 0.2 }), { message: 'wrk did not finish within 0.2 s and was killed' });
});

t.test('runLoad with wrk: only plain GETs of one URL', async (t) => {
  for (const extra of [{ method: 'POST' as const }, { body: Buffer.from('x') }, { rate: 10 }, { amount: 5 }, { pipelining: 10 }, { headers: { a: 'b' } }]) {
    await t.rejects(runLoad({ ...SPEC, generator: 'wrk', ...extra }), {
      message: new RegExp(`^wrk runs here only plain GETs of one URL; this run also asks for ${Object.keys(extra)[0]}$`),
    });
  }
});

t.test(
  'the Lua script against a real server, where wrk is installed',
  { skip: wrkVersion() ? false : 'wrk is not installed (Debian package wrk)' },
  async (t) => {
    let served = 0;
    const server = createServer((req, res) => {
      served++;
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'Content-Type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => server.close());
    const port = (server.address() as { port: number }).port;
    const ok = await runWrk({ url: `http://127.0.0.1:${port}/`, connections: 2, durationS: 1, timeoutS: 2 });
    t.ok(ok.responses > 0, 'answered');
    t.same(Object.keys(ok.status), [WRK_OK]);
    t.ok(ok.latencyMs.p50 > 0 && ok.latencyMs.p50 <= ok.latencyMs.p99 && ok.latencyMs.p99 <= ok.latencyMs.max, 'latencies in order');
    const missing = await runWrk({ url: `http://127.0.0.1:${port}/missing`, connections: 1, durationS: 1, timeoutS: 2 });
    t.same(Object.keys(missing.status), [WRK_NOT_OK], '404s are counted apart');
    t.ok(served >= ok.responses + missing.responses, 'every counted response was served');
  },
);

t.test('wrkVersion: the version line when wrk is installed, undefined when not', async (t) => {
  fakeWrk(t, 'echo "wrk 9.9.9 [epoll] Copyright (C) 2012 Will Glozer"; exit 1');
  t.equal(wrkVersion(), 'wrk 9.9.9 [epoll]');
  process.env['PATH'] = '/nonexistent';
  t.equal(wrkVersion(), undefined);
});

t.test("the chart puts the wrk rounds in a group of their own, beside autocannon's", async (t) => {
  const load = (rps: number, generator?: 'wrk'): LoadFigures => ({
    connections: 100,
    durationS: 5,
    responses: rps,
    rps,
    latencyMs: { p50: 1, p90: 2, p99: 3, max: 4, mean: 1 },
    status: { '200': rps },
    errors: 0,
    timeouts: 0,
    ...(generator ? { generator } : {}),
  });
  const ms: Measurement[] = [
    { scenario: 'cached-summary', variant: 'c=100', target: 'nightgate', load: load(23_456) },
    { scenario: 'baselines', variant: 'c=100', target: 'raw-uws', load: load(24_567) },
    { scenario: 'cached-summary', variant: 'c=100 wrk', target: 'nightgate', load: load(61_234, 'wrk') },
    { scenario: 'baselines', variant: 'c=100 wrk', target: 'raw-uws', load: load(81_234, 'wrk') },
    { scenario: 'cached-summary', variant: 'c=100 wrk round 2', target: 'nightgate', load: load(1, 'wrk') },
  ];
  const results = {
    run: { commit: 'abc', dirty: false, mode: 'full', startedAt: '2026-11-22T00:00:00Z', machine: { cores: 2 } },
    measurements: ms,
    targets: [],
  } as unknown as BenchResults;
  const svg = renderSvg(results);
  t.match(svg, />100 connections</);
  t.match(svg, />100 connections, wrk</);
  for (const v of ['23k', '25k', '61k', '81k']) t.match(svg, new RegExp(`>${v}<`), `bar ${v}`);
  t.notMatch(svg, /nightgate summary, 100 connections, wrk: 1</, 'a repeated round is not charted');
});
