/** bench/lib/wrk.ts: what is read from a wrk run, and the chart's wrk group. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { renderSvg } from '../../../bench/lib/report-svg.js';
import type { BenchResults, LoadFigures, Measurement } from '../../../bench/lib/types.js';
import { parseWrkOutput, wrkVersion } from '../../../bench/lib/wrk.js';

t.test('the report line: statuses per code, errors summed, latencies in ms', async (t) => {
  const out = [
    'Running 5s test @ http://127.0.0.1:1/api/v1/preview/summary',
    '  1 threads and 100 connections',
    'Requests/sec:  62000.00',
    '',
    'NIGHTGATE-BENCH {"requests":310010,"durationUs":5000400,"connectErrors":0,"readErrors":3,"writeErrors":1,"timeouts":2,"p50Us":1450,"p90Us":2100,"p99Us":5875,"maxUs":31000,"meanUs":1512.500,"statuses":{"200":310000,"503":10}}',
  ].join('\n');
  const r = parseWrkOutput(out);
  t.same(r, {
    durationS: 5.0004,
    responses: 310_010,
    status: { '200': 310_000, '503': 10 },
    errors: 4,
    timeouts: 2,
    latencyMs: { p50: 1.45, p90: 2.1, p99: 5.875, max: 31, mean: 1.5125 },
  });
  t.throws(() => parseWrkOutput('', 'unable to connect to 127.0.0.1:1 Connection refused\n'), { message: 'wrk printed no report: unable to connect to 127.0.0.1:1 Connection refused' });
});

t.test('the Lua script prints the line parseWrkOutput reads', async (t) => {
  const lua = readFileSync(new URL('../../../bench/lib/wrk-report.lua', import.meta.url), 'utf8');
  t.match(lua, /NIGHTGATE-BENCH \{"requests":%d,"durationUs":%d/);
  for (const field of ['connectErrors', 'readErrors', 'writeErrors', 'timeouts', 'p50Us', 'p90Us', 'p99Us', 'maxUs', 'meanUs', 'statuses']) t.match(lua, new RegExp(`"${field}":`), field);
});

t.test('wrkVersion: the version line when wrk is installed, undefined when not', async (t) => {
  const installed = !spawnSync('wrk', ['-v']).error;
  const v = wrkVersion();
  if (installed) t.match(v, /^wrk /);
  else t.equal(v, undefined);
});

t.test('the chart puts the wrk rounds in a group of their own, beside autocannon\'s', async (t) => {
  const load = (rps: number, generator?: 'wrk'): LoadFigures => ({ connections: 100, durationS: 5, responses: rps, rps, latencyMs: { p50: 1, p90: 2, p99: 3, max: 4, mean: 1 }, status: { '200': rps }, errors: 0, timeouts: 0, ...(generator ? { generator } : {}) });
  const ms: Measurement[] = [
    { scenario: 'cached-summary', variant: 'c=100', target: 'nightgate', load: load(23_456) },
    { scenario: 'baselines', variant: 'c=100', target: 'raw-uws', load: load(24_567) },
    { scenario: 'cached-summary', variant: 'c=100 wrk', target: 'nightgate', load: load(61_234, 'wrk') },
    { scenario: 'baselines', variant: 'c=100 wrk', target: 'raw-uws', load: load(81_234, 'wrk') },
    { scenario: 'cached-summary', variant: 'c=100 wrk round 2', target: 'nightgate', load: load(1, 'wrk') },
  ];
  const results = { run: { commit: 'abc', dirty: false, mode: 'full', startedAt: '2026-11-22T00:00:00Z', machine: { cores: 2 } }, measurements: ms, targets: [] } as unknown as BenchResults;
  const svg = renderSvg(results);
  t.match(svg, />100 connections</);
  t.match(svg, />100 connections, wrk</);
  for (const v of ['23k', '25k', '61k', '81k']) t.match(svg, new RegExp(`>${v}<`), `bar ${v}`);
  t.notMatch(svg, /nightgate summary, 100 connections, wrk: 1</, 'a repeated round is not charted');
});
