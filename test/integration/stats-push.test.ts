/** The summary push: a WebSocket per network that sends the summary on connect and on every new block. */
import { once } from 'node:events';
import t from 'tap';
import { WebSocket } from 'ws';
import { T0, statsApp } from '../fixtures/stats/stats-app.js';

interface PushedSummary {
  status: string;
  latestBlock: { height: number; hash: string; ageSeconds: number };
  blocksProduced: { total: number };
}

t.test('welcome with the current summary, then one per new block', async (t) => {
  const { s, fake, clock } = await statsApp(t, { blocks: 3 });
  const ws = new WebSocket(`ws://127.0.0.1:${s.port}/api/v1/mainnet/ws`);
  t.teardown(() => ws.terminate());
  const messages: PushedSummary[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (m) => {
    messages.push(JSON.parse(String(m)) as PushedSummary);
    waiters.shift()?.();
  });
  const next = (): Promise<PushedSummary> =>
    new Promise((resolve) => (messages.length > 0 ? resolve(messages.shift()!) : waiters.push(() => resolve(messages.shift()!))));

  const welcome = await next();
  t.strictSame([welcome.status, welcome.latestBlock.height, welcome.latestBlock.ageSeconds, welcome.blocksProduced.total], ['healthy', 2, 3, 3]);

  clock.set(T0 + 18_000);
  const b = fake.addBlock(T0 + 18_000, [fake.tx()]);
  const pushed = await next();
  t.strictSame([pushed.latestBlock.height, pushed.latestBlock.hash, pushed.latestBlock.ageSeconds, pushed.blocksProduced.total], [3, b.hash, 0, 4]);
  const http = (await (await fetch(`${s.url}/api/v1/mainnet/summary`)).json()) as PushedSummary;
  t.strictSame(http, pushed as unknown, 'the pushed bytes are the summary route body');
});

t.test('a network that is not served cannot be subscribed: 404 UNKNOWN_NETWORK, as the routes answer', async (t) => {
  const { s, get } = await statsApp(t, { blocks: 1 });
  const cases: Array<[string, string]> = [
    ['preprod', 'Network preprod is not served by this instance'],
    ['nope', 'Network must be one of mainnet, preprod, preview'],
  ];
  for (const [network, message] of cases) {
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/api/v1/${network}/ws`);
    // Closing a socket still in its handshake reports an error; that is expected here.
    ws.on('error', () => undefined);
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, NodeJS.ReadableStream & { statusCode: number }];
    let body = '';
    for await (const chunk of res) body += String(chunk);
    ws.terminate();
    const refused = { error: 'Unknown Network', message, code: 'UNKNOWN_NETWORK' };
    t.strictSame([res.statusCode, JSON.parse(body)], [404, refused], network);
    const route = await get(`/api/v1/${network}/summary`);
    t.strictSame([route.status, route.json], [404, refused], `${network}: the same answer as the summary route`);
  }
});
