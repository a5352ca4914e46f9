/**
 * The freshness rule at its boundary: a chain is stale once its newest block is 10 block times
 * old, that boundary included (where the uptime score's freshness reaches 0), by the block time
 * the network is expected to keep: the embedded devnet's own, Midnight's 6 s behind an indexer.
 */
import t from 'tap';
import { pino } from 'pino';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { NO_CREDENTIALS, loadConfig } from '../../../../src/core/config/index.js';
import { STALE_AFTER_BLOCKS, isStale, staleReason, uptime } from '../../../../src/features/stats/derive.js';
import { NetworkStats } from '../../../../src/features/stats/network-stats.js';
import type { AppContext } from '../../../../src/infra/app-context.js';
import type { RingBlock } from '../../../../src/features/stats/upstream-types.js';

const T0 = 1_700_000_000_000;
const tip: RingBlock = { height: 41, hash: 'b41', timestamp: T0, protocolVersion: 2, author: null, transactions: [] };
const six = { averageSeconds: 6, sampleSize: 10, targetSeconds: 6 } as const;

t.test('stale from exactly 10 block times on', async (t) => {
  t.equal(STALE_AFTER_BLOCKS, 10);
  for (const blockMs of [6000, 1000, 50]) {
    const limit = 10 * blockMs;
    t.notOk(isStale(limit - 1, blockMs), `${blockMs} ms blocks: ${limit - 1} ms is fresh`);
    t.ok(isStale(limit, blockMs), `${blockMs} ms blocks: exactly ${limit} ms is stale`);
    t.ok(isStale(limit + 1, blockMs));
  }
  t.notOk(isStale(0, 6000));
});

t.test('the reason names the block and its age; none while fresh', async (t) => {
  t.equal(staleReason(tip, T0 + 59_999, 6000), undefined);
  t.equal(staleReason(tip, T0 - 5000, 6000), undefined, 'a clock behind the chain: age 0, fresh');
  t.equal(staleReason(tip, T0 + 60_000, 6000), 'newest block (height 41) is 60 s old, at least 10 × the 6 s block time');
  t.equal(staleReason(tip, T0 + 60_099, 6000), 'newest block (height 41) is 60 s old, at least 10 × the 6 s block time', 'the age is never rounded up');
  t.equal(staleReason(tip, T0 + 125_500, 6000), 'newest block (height 41) is 125.5 s old, at least 10 × the 6 s block time');
  t.equal(staleReason(tip, T0 + 2_000, 200), 'newest block (height 41) is 2 s old, at least 10 × the 0.2 s block time');
});

t.test("uptime: degraded by staleness at the same boundary, by the network's block time", async (t) => {
  t.strictSame(
    uptime(tip, T0 + 59_999, six, null, true),
    { status: 'healthy', score: 0.021, latestBlockAgeSeconds: 59, epochUtilization: null },
    'late, not stale: a low score only',
  );
  t.strictSame(
    uptime(tip, T0 + 60_000, six, null, true),
    { status: 'degraded', score: 0, latestBlockAgeSeconds: 60, epochUtilization: null },
    'stale at exactly 60 s',
  );
  // A devnet of 1 s blocks: fully fresh up to 2 s, stale from 10 s.
  t.strictSame(uptime(tip, T0 + 2_000, six, null, true, 1000), { status: 'healthy', score: 1, latestBlockAgeSeconds: 2, epochUtilization: null });
  t.strictSame(uptime(tip, T0 + 6_000, six, null, true, 1000), { status: 'healthy', score: 0.5, latestBlockAgeSeconds: 6, epochUtilization: null });
  t.strictSame(uptime(tip, T0 + 9_999, six, null, true, 1000).status, 'healthy');
  t.strictSame(uptime(tip, T0 + 10_000, six, null, true, 1000), { status: 'degraded', score: 0, latestBlockAgeSeconds: 10, epochUtilization: null });
  t.equal(uptime(tip, T0 + 1000, six, 0.79, true).status, 'degraded', 'fresh, but under-producing');
  t.equal(uptime(tip, T0 + 1000, six, null, false).status, 'degraded', 'fresh, but the indexer fails');
});

t.test("the block time a network is judged by: the devnet's own when embedded, else 6 s", async (t) => {
  const closed = 'http://127.0.0.1:9/api/v4/graphql';
  // preview embedded (with 250 ms blocks), mainnet behind an indexer.
  const config = loadConfig({
    env: {},
    overrides: {
      devnet: { blockTimeMs: 250 },
      networks: { mainnet: { indexer: closed, proverUrl: 'http://127.0.0.1:9' }, preprod: { indexer: closed, proverUrl: 'http://127.0.0.1:9' } },
    },
  });
  const clock = new ManualClock(T0);
  const ctx = {
    config,
    clock,
    logger: pino({ level: 'silent' }),
    publish: () => undefined,
    component: () => undefined,
    addComponent: () => undefined,
  } as unknown as AppContext;
  const source = { httpUrl: closed, wsUrl: 'ws://127.0.0.1:9/api/v4/graphql/ws', credentials: NO_CREDENTIALS, nodeRpcUrl: undefined };
  const embedded = new NetworkStats(ctx, 'preview', { ...source, label: 'embedded-devnet', networkId: 'undeployed', embedded: true });
  const indexed = new NetworkStats(ctx, 'mainnet', { ...source, label: 'indexer:127.0.0.1:9', networkId: 'mainnet', embedded: false });
  t.teardown(() => Promise.all([embedded.close(), indexed.close()]));
  t.equal(embedded.blockTimeMs, 250, 'devnet.blockTimeMs');
  t.equal(indexed.blockTimeMs, 6000, "Midnight's 6 s");
  t.match(embedded.health(), { blockTimeSeconds: 0.25, staleAfterSeconds: 2.5, stale: null });
  t.strictSame(embedded.ready(), ['stats:preview: no block from the indexer yet'], 'no block: nothing to judge yet');
  embedded.window.put(tip);
  clock.set(T0 + 2_499);
  t.strictSame(embedded.ready(), []);
  t.equal(embedded.staleReason(clock.now()), undefined);
  clock.set(T0 + 2_500);
  t.strictSame(embedded.ready(), ['stats:preview: chain stale: newest block (height 41) is 2.5 s old, at least 10 × the 0.25 s block time']);
  t.match(embedded.health(), { latestBlockAgeSeconds: 2, stale: 'newest block (height 41) is 2.5 s old, at least 10 × the 0.25 s block time' });
});
