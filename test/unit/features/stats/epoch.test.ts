import t from 'tap';
import { anchorFromChainTime, anchorFromInfo, anchorFromNodeStatus, epochAt } from '../../../../src/features/stats/epoch.js';

t.test('from currentEpochInfo, advancing with the clock and rolling over', async (t) => {
  const readAt = 1_700_000_000_000;
  const a = anchorFromInfo({ epochNo: 100, durationSeconds: 1800, elapsedSeconds: 900 }, readAt);
  t.strictSame(epochAt(a, readAt), { number: 100, durationSeconds: 1800, elapsedSeconds: 900, remainingSeconds: 900, progress: 0.5 });
  t.strictSame(epochAt(a, readAt + 60_000), { number: 100, durationSeconds: 1800, elapsedSeconds: 960, remainingSeconds: 840, progress: 0.5333 });
  t.strictSame(epochAt(a, readAt + 900_000), { number: 101, durationSeconds: 1800, elapsedSeconds: 0, remainingSeconds: 1800, progress: 0 });
  t.strictSame(epochAt(a, readAt + 900_000 + 2 * 1_800_000 + 450_500), {
    number: 103,
    durationSeconds: 1800,
    elapsedSeconds: 450,
    remainingSeconds: 1350,
    progress: 0.25,
  });
  t.strictSame(epochAt(a, readAt - 1_000_000).elapsedSeconds, 0, 'before the anchor: start of the anchored epoch');
});

t.test('from chain time: epoch n starts at n × length since the Unix epoch', async (t) => {
  const now = 1000 * 1_800_000 + 450_000;
  const a = anchorFromChainTime(1800, now);
  t.strictSame(a, { number: 1000, durationSeconds: 1800, startMs: 1000 * 1_800_000 });
  t.strictSame(epochAt(a, now), { number: 1000, durationSeconds: 1800, elapsedSeconds: 450, remainingSeconds: 1350, progress: 0.25 });
});

t.test('from a node status: the length is the next start over the epochs before it', async (t) => {
  t.strictSame(anchorFromNodeStatus(1000, 1001 * 1_800_000), { number: 1000, durationSeconds: 1800, startMs: 1000 * 1_800_000 });
  t.strictSame(anchorFromNodeStatus(0, 86_400_000), { number: 0, durationSeconds: 86_400, startMs: 0 });
  t.equal(anchorFromNodeStatus(2, 4_501), undefined, 'not whole seconds');
  t.equal(anchorFromNodeStatus(2, 4_500), undefined, '1.5 s: not whole seconds either');
});
