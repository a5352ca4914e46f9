import t from 'tap';
import { ArgsError, parseArgs } from '../../../bench/lib/args.js';
import { evaluateTargets } from '../../../bench/lib/targets.js';
import type { LoadFigures, Measurement } from '../../../bench/lib/types.js';

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
  connections, durationS: 1, responses: rps, rps, latencyMs: { p50, p90: p50, p99: p50, max: p50, mean: p50 }, status: { '200': rps }, errors: 0, timeouts: 0,
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

  const slow = evaluateTargets([{ ...ms[0]!, load: load(10, 60, 160) }, { ...ms[1]!, load: load(2, 40, 45) }]);
  t.same(slow.filter((c) => c.name.startsWith('/balance-only')).map((c) => c.verdict), ['fail', 'fail']);
  const none = evaluateTargets([]);
  t.same(none.filter((c) => c.name.startsWith('/balance-only')).map((c) => c.verdict), ['n/a', 'n/a'], 'no verdict without a run');
});
