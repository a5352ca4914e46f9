// startDevnet brings up three networks in one worker; each produces blocks on its own schedule
// while the caller's event loop stays responsive.
import { performance } from 'node:perf_hooks';
import { createClient } from 'graphql-ws';
import t from 'tap';
import WebSocket from 'ws';
import { startDevnet } from '../../packages/devnet/src/index.js';
import { subscribe } from '../fixtures/devnet/harness.js';

t.test('three networks come up and their chains grow every block', async (t) => {
  const started = Date.now();
  const devnet = await startDevnet({
    networks: ['mainnet', 'preprod', 'preview'].map((name) => ({ name, seed: `integration-${name}`, sponsorWallets: ['c3'.repeat(32)] })),
    // Three networks share one worker; a block costs 0.1–0.5 s of CPU, so leave each room.
    blockTimeMs: 1500,
  });
  t.teardown(() => devnet.close());
  t.comment(`up in ${Date.now() - started} ms`);
  t.same(
    devnet.networks.map((n) => n.name),
    ['mainnet', 'preprod', 'preview'],
  );

  let before = performance.eventLoopUtilization();
  const clients = devnet.networks.map((n) => createClient({ url: n.graphqlWsUrl, webSocketImpl: WebSocket, retryAttempts: 0 }));
  await Promise.all(
    clients.map(async (client, i) => {
      const feed = subscribe<any>(client, 'subscription { blocks { height timestamp } }');
      const heights = [(await feed.next()).blocks.height];
      // Measure the caller's event loop only while blocks are being produced, not while connecting.
      if (i === 0) before = performance.eventLoopUtilization();
      for (let k = 0; k < 2; k++) heights.push((await feed.next()).blocks.height);
      await feed.close();
      const first = heights[0] as number;
      t.same(heights, [first, first + 1, first + 2], `${devnet.networks[i]?.name}: heights rise by one each block`);
    }),
  );
  const busy = performance.eventLoopUtilization(before).utilization;
  await Promise.all(clients.map((c) => c.dispose()));
  // A block costs 0.1–0.5 s of CPU: three networks producing on this thread would keep its loop
  // busy a fifth of the time or more. Busy time, not delay: a loaded machine stretches delays,
  // not the share of time this loop runs callbacks.
  t.ok(busy < 0.2, `the caller's event loop busy ${(busy * 100).toFixed(1)} % of the time while blocks are produced`);

  for (const n of devnet.networks) {
    const health = (await (await fetch(n.graphqlUrl.replace('/api/v4/graphql', '/health'))).json()) as { source: string; network: string };
    t.equal(health.source, 'embedded-devnet');
    t.equal(health.network, n.name);
  }
});

t.test('invalid options are refused before any worker starts', async (t) => {
  await t.rejects(startDevnet({ networks: [], blockTimeMs: 6000 }), { code: 'DEVNET_BAD_OPTIONS' });
  await t.rejects(startDevnet({ networks: [{ name: 'preview', seed: 's', sponsorWallets: ['zz'] }], blockTimeMs: 6000 }), { code: 'DEVNET_BAD_OPTIONS' });
});

t.test('threadNice lowers the devnet thread, not the caller', { skip: process.platform === 'linux' ? false : 'per-thread nice is Linux only' }, async (t) => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { getPriority } = await import('node:os');
  const { captureLogs } = await import('../helpers/app.js');
  const niceOf = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
  const main = getPriority();
  const before = new Set(readdirSync('/proc/self/task'));
  const logs = captureLogs();
  const devnet = await startDevnet({
    networks: [{ name: 'preview', seed: 'integration-nice', sponsorWallets: [] }],
    blockTimeMs: 60_000,
    threadNice: Math.max(main, 9),
    logger: logs.logger,
  });
  t.teardown(() => devnet.close());
  t.match(
    logs.lines.find((l) => l['msg'] === 'devnet thread priority lowered: block production yields the CPU to serving'),
    { nice: Math.max(main, 9) },
  );
  const lowered = readdirSync('/proc/self/task').filter((tid) => !before.has(tid) && niceOf(tid) === Math.max(main, 9));
  t.ok(lowered.length >= 1, `the devnet's thread runs at nice ${Math.max(main, 9)} (threads: ${lowered.join(', ')})`);
  t.equal(niceOf(String(process.pid)), main, 'the main thread keeps its priority');
});
