import t from 'tap';
import { ArgsError, parseArgs } from '../../../bench/lib/args.js';
import { evaluateTargets } from '../../../bench/lib/targets.js';
import type { LoadFigures, Measurement } from '../../../bench/lib/types.js';
import { WRK_NOT_OK, WRK_OK } from '../../../bench/lib/wrk.js';

t.test('a deployment is load-tested only with an explicit time bound', async (t) => {
  t.throws(() => parseArgs(['--url', 'http://gw.example:8080']), { name: 'ArgsError', message: /--duration is required with --url/ });
  const a = parseArgs(['--url', 'http://gw.example:8080/', '--duration', '30', '--connections', '50', '--rate', '200', '--key', 'k']);
  t.same([a.url, a.durationS, a.connections, a.rate, a.key], ['http://gw.example:8080', 30, 50, 200, 'k']);
  t.throws(() => parseArgs(['--url', 'ftp://x', '--duration', '1']), ArgsError);
  t.throws(() => parseArgs(['--duration', '0']), { message: "--duration must be a positive number, got '0'" });
  t.throws(() => parseArgs(['--bogus']), { message: "unknown option '--bogus'" });
  t.equal(parseArgs(['--cpu-prof', '/tmp/p']).cpuProfDir, '/tmp/p', '--cpu-prof takes a directory');
  t.throws(() => parseArgs(['--cpu-prof']), { message: '--cpu-prof needs a value' });
});

const load = (connections: number, rps: number, p50: number): LoadFigures => ({
  connections,
  durationS: 1,
  responses: rps,
  rps,
  latencyMs: { p50, p90: p50, p99: p50, max: p50, mean: p50 },
  status: { '200': rps },
  errors: 0,
  timeouts: 0,
});

t.test('/balance-only: throughput from the saturated run, p50 from one connection per prover thread', async (t) => {
  const ms: Measurement[] = [
    { scenario: 'balance-only', variant: 'dev c=10', target: 'nightgate', load: load(10, 120, 80) },
    { scenario: 'balance-only', variant: 'dev c=2', target: 'nightgate', load: load(2, 90, 22) },
  ];
  const checks = evaluateTargets(ms);
  const tput = checks.find((c) => c.name === '/balance-only throughput (dev)');
  const p50 = checks.find((c) => c.name === '/balance-only p50 (dev)');
  t.same([tput?.measured, tput?.verdict], ['120 tx/s', 'pass']);
  t.match(tput?.note, /10 connections/);
  t.same([p50?.measured, p50?.verdict], ['22 ms', 'pass']);
  t.match(p50?.note, /2 connections \(one per prover thread\)/);

  const slow = evaluateTargets([
    { ...ms[0]!, load: load(10, 60, 160) },
    { ...ms[1]!, load: load(2, 40, 45) },
  ]);
  t.same(
    slow.filter((c) => c.name.startsWith('/balance-only')).map((c) => c.verdict),
    ['fail', 'fail'],
  );
  const none = evaluateTargets([]);
  t.same(
    none.filter((c) => c.name.startsWith('/balance-only')).map((c) => c.verdict),
    ['n/a', 'n/a'],
    'no verdict without a run',
  );
});

t.test('cached summary targets: the median over interleaved rounds, each pair matched by its round', async (t) => {
  const at = (rps: number, cpuUs: number, p99: number): LoadFigures => ({
    connections: 100,
    durationS: 8,
    responses: rps * 8,
    rps,
    latencyMs: { p50: 1, p90: 2, p99, max: 20, mean: 1 },
    status: { '200': rps * 8 },
    errors: 0,
    timeouts: 0,
    serverCpuUsPerRequest: cpuUs,
  });
  const pair = (variant: string, ours: [number, number, number], raw: [number, number], fastify: [number, number]): Measurement[] => [
    { scenario: 'cached-summary', variant, target: 'nightgate', load: at(...ours) },
    { scenario: 'baselines', variant, target: 'raw-uws', load: at(raw[0], raw[1], 4) },
    { scenario: 'baselines', variant, target: 'fastify', load: at(fastify[0], fastify[1], 8) },
  ];
  const ms = [
    // Round 1 was disturbed: nightgate slow. The median must not follow it.
    ...pair('c=100', [20_000, 20, 12], [50_000, 12], [30_000, 30]),
    ...pair('c=100 round 2', [45_000, 13, 4], [50_000, 12], [30_000, 30]),
    ...pair('c=100 round 3', [46_000, 12.5, 4.5], [50_000, 12], [30_000, 30]),
  ];
  const checks = evaluateTargets(ms);
  const get = (name: string) => checks.find((c) => c.name === name);
  t.same(
    [get('cached summary vs raw-uws (c=100)')?.measured, get('cached summary vs raw-uws (c=100)')?.verdict],
    ['0.9 ×', 'pass'],
    'median of 0.4, 0.9, 0.92',
  );
  t.match(get('cached summary vs raw-uws (c=100)')?.note, /median of 3 interleaved rounds: 0\.4, 0\.9, 0\.92/);
  t.equal(get('cached summary vs fastify (c=100), main-thread CPU per request')?.measured, '2.308 ×', 'median of 1.5, 2.308, 2.4');
  t.same([get('cached summary p99 (c=100)')?.measured, get('cached summary p99 (c=100)')?.verdict], ['4.5 ms', 'pass']);

  // Just under the threshold reads as such: 27.651 µs ÷ 15.383 µs = 1.7975, not "1.8 ×".
  const under = evaluateTargets(pair('c=100', [45_000, 15.383, 4], [50_000, 12], [30_000, 27.651])).find(
    (c) => c.name === 'cached summary vs fastify (c=100), main-thread CPU per request',
  );
  t.same([under?.measured, under?.verdict], ['1.798 ×', 'fail']);

  const single = evaluateTargets(pair('c=100', [45_000, 13, 4], [50_000, 12], [30_000, 30]));
  t.equal(single.find((c) => c.name === 'cached summary vs raw-uws (c=100)')?.note, undefined, 'one round: no note');

  // The pipelined round is shown, never judged: it must not enter the plain medians or p99.
  // Its ratios (3 × raw uWS, 7.5 × Fastify, p99 40 ms) would move every plain median if mixed in.
  const piped = evaluateTargets([...ms, ...pair('c=100 pipelined 10', [300_000, 11, 40], [100_000, 10], [40_000, 26])]);
  const find = (name: string) => piped.find((c) => c.name === name);
  t.same(
    [
      'cached summary vs raw-uws (c=100)',
      'cached summary vs fastify (c=100)',
      'cached summary vs fastify (c=100), main-thread CPU per request',
      'cached summary p99 (c=100)',
    ].map((n) => find(n)?.measured),
    ['0.9 ×', '1.5 ×', '2.308 ×', '4.5 ms'],
    'plain figures unchanged',
  );
  t.equal(piped.filter((c) => c.name.includes('pipelined')).length, 0, 'and it is not judged as a target of its own');
});

t.test("the wrk rounds: judged on their own medians, never mixed into autocannon's; a run without wrk says why", async (t) => {
  const at = (rps: number, cpuUs: number, p99: number, generator?: 'wrk'): LoadFigures => ({
    // wrk tells 2xx/3xx from the rest, no more (bench/lib/wrk.ts): its rows are usable all the same.
    connections: 100,
    durationS: 5,
    responses: rps * 5,
    rps,
    latencyMs: { p50: 1, p90: 2, p99, max: 20, mean: 1 },
    status: { [generator ? WRK_OK : '200']: rps * 5 },
    errors: 0,
    timeouts: 0,
    serverCpuUsPerRequest: cpuUs,
    ...(generator ? { generator } : {}),
  });
  const pair = (variant: string, ours: number, raw: number, fastify: number, p99: number, generator?: 'wrk'): Measurement[] => [
    { scenario: 'cached-summary', variant, target: 'nightgate', load: at(ours, 1e6 / ours, p99, generator) },
    { scenario: 'baselines', variant, target: 'raw-uws', load: at(raw, 1e6 / raw, 3, generator) },
    { scenario: 'baselines', variant, target: 'fastify', load: at(fastify, 1e6 / fastify, 9, generator) },
  ];
  // autocannon caps everyone near 24 k; wrk lets raw uWS reach 80 k and Fastify 20 k.
  const plain = [
    ...pair('c=100', 23_000, 24_000, 17_000, 11),
    ...pair('c=100 round 2', 23_500, 24_000, 17_000, 11),
    ...pair('c=100 round 3', 22_000, 24_000, 17_000, 12),
  ];
  const wrk = [
    ...pair('c=100 wrk', 60_000, 80_000, 20_000, 6, 'wrk'),
    ...pair('c=100 wrk round 2', 64_000, 80_000, 20_000, 5, 'wrk'),
    ...pair('c=100 wrk round 3', 70_000, 80_000, 21_000, 4, 'wrk'),
  ];
  const checks = evaluateTargets([...plain, ...wrk]);
  const get = (name: string) => checks.find((c) => c.name === name);
  t.same(
    ['cached summary vs raw-uws (c=100)', 'cached summary vs fastify (c=100)', 'cached summary p99 (c=100)'].map((n) => [get(n)?.measured, get(n)?.verdict]),
    [
      ['0.958 ×', 'pass'],
      ['1.353 ×', 'fail'],
      ['11 ms', 'fail'],
    ],
    'the autocannon medians are those of the autocannon rounds alone',
  );
  t.same(
    [
      'cached summary vs raw-uws (c=100, wrk)',
      'cached summary vs fastify (c=100, wrk)',
      'cached summary vs fastify (c=100, wrk), main-thread CPU per request',
      'cached summary p99 (c=100, wrk)',
    ].map((n) => [get(n)?.measured, get(n)?.verdict]),
    [
      ['0.8 ×', 'fail'],
      ['3.2 ×', 'pass'],
      ['3.2 ×', 'pass'],
      ['5 ms', 'pass'],
    ],
    'the wrk medians: 0.75, 0.8, 0.875 of raw uWS; 3, 3.2, 3.333 of Fastify',
  );
  t.match(get('cached summary vs raw-uws (c=100, wrk)')?.note, /median of 3 interleaved rounds: 0\.75, 0\.8, 0\.875/);

  t.equal(evaluateTargets(plain).filter((c) => c.name.includes('wrk')).length, 0, 'a run with no wrk round (quick, --url) has no wrk targets');
  const why = 'wrk is not installed (Debian: apt-get install wrk), so the rounds without autocannon as the limit did not run';
  const without = evaluateTargets([...plain, { scenario: 'cached-summary', variant: 'c=100 wrk', target: 'nightgate', skipped: why }]).filter((c) =>
    c.name.includes('wrk'),
  );
  t.equal(without.length, 5);
  t.same([...new Set(without.map((c) => c.verdict))], ['n/a']);
  t.same([...new Set(without.map((c) => c.note))], [why], 'each says why it has no verdict');

  // A wrk round that failed (the runner names its row for the round) says why too.
  const failed = evaluateTargets([
    ...plain,
    { scenario: 'cached-summary', variant: 'c=100 wrk', target: '–', skipped: 'failed: wrk exited 1: wrk printed no report: unable to connect' },
  ]).filter((c) => c.name.includes('wrk'));
  t.same([...new Set(failed.map((c) => c.note))], ['failed: wrk exited 1: wrk printed no report: unable to connect']);
  // Rows where most responses were not 2xx/3xx have no verdict.
  const refused = wrk.map((m) => (m.target === 'nightgate' ? { ...m, load: { ...m.load!, status: { [WRK_OK]: 10, [WRK_NOT_OK]: 1000 } } } : m));
  const noVerdict = evaluateTargets([...plain, ...refused]).filter((c) => c.name.includes('wrk'));
  t.same([...new Set(noVerdict.map((c) => c.verdict))], ['n/a']);
  t.match(noVerdict[0]?.note, /most responses were not 2xx\/3xx/);
});

t.test("upstream proving: the median of the rounds' added p50, with the rounds in the note", async (t) => {
  const via: Measurement = {
    scenario: 'upstream-prove',
    variant: 'via-nightgate',
    target: 'nightgate',
    load: { ...load(10, 480, 21.5), status: { 200: 2400 } },
  };
  const added = (figures: Measurement['figures']): Measurement => ({
    scenario: 'upstream-prove',
    variant: 'added',
    target: 'nightgate',
    ...(figures ? { figures } : {}),
  });
  const name = 'upstream proving: added p50';

  const met = evaluateTargets([via, added({ addedP50Ms: 1.4, addedP50MsRounds: '2.60, 1.40, 1.10', standInDelayMs: 20 })]).find((c) => c.name === name);
  t.equal(met?.verdict, 'pass');
  t.equal(met?.measured, '1.4 ms');
  t.equal(met?.note, 'median of 3 interleaved rounds: 2.60, 1.40, 1.10');

  const missed = evaluateTargets([via, added({ addedP50Ms: 2.3, standInDelayMs: 20 })]).find((c) => c.name === name);
  t.equal(missed?.verdict, 'fail', 'one round (--quick) is judged as it is');
  t.equal(missed?.note, undefined);

  const failing: Measurement = { ...via, load: { ...load(10, 480, 21.5), status: { 502: 2400 } } };
  t.equal(evaluateTargets([failing, added({ addedP50Ms: 0.5 })]).find((c) => c.name === name)?.verdict, 'n/a', 'no verdict on failed requests');
  const laterRound: Measurement = { ...failing, variant: 'via-nightgate round 3' };
  const later = evaluateTargets([via, laterRound, added({ addedP50Ms: 0.5, addedP50MsRounds: '1.00, 0.50' })]).find((c) => c.name === name);
  t.same([later?.verdict, later?.note], ['n/a', 'via-nightgate round 3: most responses were 502'], 'nor when a later round failed');
});
