import t from 'tap';
import { renderMarkdown } from '../../../bench/lib/report-markdown.js';
import { describeScope, runScope } from '../../../bench/lib/run-scope.js';
import type { BenchResults, Measurement } from '../../../bench/lib/types.js';
import { benchResults } from '../../fixtures/bench/bench-results.js';

const measured: Measurement = { scenario: 'cached-summary', variant: 'c=10', target: 'nightgate', figures: { rps: 1 } };
const notRun = (scenario: string, skipped: string): Measurement => ({ scenario, variant: '–', target: '–', skipped });

const runLine = (r: BenchResults): string =>
  renderMarkdown(r, 'results/x.json')
    .split('\n')
    .find((l) => l.startsWith('- **run**:')) ?? '';

t.test('a run of every scenario at full length, each measured, is full', async (t) => {
  const r = benchResults({}, [measured]);
  t.same(runScope(r), { full: true, label: 'full', gaps: [] });
  t.equal(runLine(r), '- **run**: 2026-11-27T10:00:00.000Z → 2026-11-27T10:05:00.000Z, full run, local server started by the bench');
});

t.test('a deployment run that skipped the local-only scenarios is partial and says which', async (t) => {
  const r = benchResults({ targetKind: 'remote', url: 'https://gw.example' }, [
    notRun('idle-process', 'needs processes on this machine (not run against --url)'),
    notRun('baselines', 'needs processes on this machine (not run against --url)'),
    measured,
    notRun('micro-allocator', 'measures this machine, not the target (not run against --url)'),
  ]);
  t.same(runScope(r), { full: false, label: 'partial', gaps: ['not measured: idle-process, baselines, micro-allocator'] });
  t.equal(
    runLine(r),
    '- **run**: 2026-11-27T10:00:00.000Z → 2026-11-27T10:05:00.000Z, partial run (not measured: idle-process, baselines, ' +
      'micro-allocator), deployment at https://gw.example',
  );
  t.notMatch(runLine(r), /full/);
});

t.test('a scenario that failed makes the run partial', async (t) => {
  const r = benchResults({}, [measured, notRun('lookup-block', 'failed: indexer went away'), notRun('lookup-block', 'failed: again')]);
  t.equal(describeScope(runScope(r)), 'partial run (not measured: lookup-block)');
});

t.test('a chosen subset is partial; a quick run is quick, never full', async (t) => {
  t.equal(describeScope(runScope(benchResults({ selection: '--only cached-summary,baselines' }, [measured]))), 'partial run (--only cached-summary,baselines)');
  t.equal(describeScope(runScope(benchResults({ selection: '--wrk-only' }, [measured]))), 'partial run (--wrk-only)');
  t.equal(describeScope(runScope(benchResults({ mode: 'quick' }, [measured]))), 'quick run');
  t.equal(
    describeScope(runScope(benchResults({ mode: 'quick', selection: '--only lookup-block' }, [notRun('lookup-block', 'failed: x')]))),
    'quick, partial run (--only lookup-block; not measured: lookup-block)',
  );
});
