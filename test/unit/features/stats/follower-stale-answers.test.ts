/**
 * The follower's catch-ups race its subscription: an HTTP answer may arrive after a subscribed
 * block that is newer than it. Here both sides are scripted (HTTP answers held and released by
 * the test, subscription events sent by the test), so each interleaving is produced exactly.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { ManualClock } from '../../../helpers/manual-clock.js';
import type { GraphqlHttpClient, GqlResult } from '../../../../src/infra/indexer/graphql-http.js';
import type { GqlDocument } from '../../../../src/infra/indexer/document.js';
import { BlockWindow } from '../../../../src/features/stats/block-window.js';
import { ChainFollower } from '../../../../src/features/stats/follower.js';
import { BASELINE_FEATURES, documentsFor } from '../../../../src/features/stats/queries.js';
import type { RingBlock } from '../../../../src/features/stats/upstream-types.js';

/** The tip query as the statistics send it to an indexer of unknown features. */
const TIP = documentsFor(BASELINE_FEATURES).tip;

const blk = (height: number): RingBlock => ({
  height,
  hash: `${height}`.padStart(64, '0'),
  timestamp: height * 6000,
  protocolVersion: 1,
  author: null,
  transactions: [],
});

/** An indexer whose chain the test sets; each answer is computed when asked, delivered when `held` allows. */
class ScriptedHttp {
  chain: RingBlock[] = [];
  /** Operations (Tip, Backfill) whose answers wait for `release()`. */
  held = new Set<string>();
  readonly asked: string[] = [];
  private waiting: Array<() => void> = [];
  private askedListeners: Array<() => void> = [];

  request(document: GqlDocument, variables: Record<string, unknown> = {}): Promise<GqlResult> {
    const name = document === TIP ? 'Tip' : 'Backfill';
    this.asked.push(name);
    for (const l of this.askedListeners.splice(0)) l();
    const data: Record<string, unknown> = {};
    if (document === TIP) data['block'] = this.chain.at(-1) ?? null;
    else for (const [k, h] of Object.entries(variables)) data[`b${k.slice(1)}`] = this.chain[h as number] ?? null;
    const answer = { data, errors: [] };
    if (!this.held.has(name)) return Promise.resolve(answer);
    return new Promise((resolve) => this.waiting.push(() => resolve(answer)));
  }

  /** Resolves once `name` has been asked `count` times in all. */
  askedFor(name: string, count: number): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.asked.filter((n) => n === name).length >= count) resolve();
        else this.askedListeners.push(check);
      };
      check();
    });
  }

  release(): void {
    this.held.clear();
    for (const w of this.waiting.splice(0)) w();
  }
}

/** A graphql-transport-ws endpoint that acknowledges and lets the test send `blocks` events. */
async function scriptedSubscriptions(t: Test): Promise<{ url: string; subscribed: Promise<void>; send(b: RingBlock): void }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => 'graphql-transport-ws' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  let client: { ws: WebSocket; id: string } | undefined;
  let onSubscribed!: () => void;
  const subscribed = new Promise<void>((resolve) => (onSubscribed = resolve));
  wss.on('connection', (ws) => {
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { type: string; id?: string };
      if (msg.type === 'connection_init') ws.send(JSON.stringify({ type: 'connection_ack' }));
      if (msg.type === 'subscribe') {
        client = { ws, id: msg.id! };
        onSubscribed();
      }
    });
  });
  t.teardown(() => {
    for (const c of wss.clients) c.terminate();
    return new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  const port = (wss.address() as { port: number }).port;
  return {
    url: `ws://127.0.0.1:${port}/api/v4/graphql/ws`,
    subscribed,
    send: (b) => client!.ws.send(JSON.stringify({ id: client!.id, type: 'next', payload: { data: { blocks: b } } })),
  };
}

function follower(t: Test, http: ScriptedHttp, wsUrl: string, logs: string[]): { f: ChainFollower; window: BlockWindow } {
  const window = new BlockWindow(100);
  const log = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line).msg) });
  const f = new ChainFollower({
    http: http as unknown as GraphqlHttpClient,
    wsUrl,
    window,
    clock: new ManualClock(0),
    log,
    pollIntervalMs: 60_000,
    reconnectMinMs: 60_000,
    reconnectMaxMs: 60_000,
    ackTimeoutMs: 5_000,
  });
  t.teardown(() => f.stop());
  return { f, window };
}

t.test('a catch-up answered after a newer subscribed block is history, not a chain reset', async (t) => {
  const http = new ScriptedHttp();
  http.chain = [0, 1, 2, 3, 4].map(blk);
  http.held.add('Tip');
  const sub = await scriptedSubscriptions(t);
  const logs: string[] = [];
  const { f, window } = follower(t, http, sub.url, logs);
  f.start();
  // The catch-up has asked for the tip (the answer says 4) but has not heard back.
  await http.askedFor('Tip', 1);
  await sub.subscribed;
  sub.send(blk(4));
  await f.waitUntil(() => f.state === 'live');
  http.chain.push(blk(5));
  sub.send(blk(5));
  await f.waitForHeight(5);
  http.release();
  await f.settled();
  t.strictSame(
    window.all.map((b) => b.height),
    [0, 1, 2, 3, 4, 5],
    'kept the newer tip; backfilled below it',
  );
  t.equal(f.upstreamOk, true);
  t.notOk(logs.includes('indexer tip went backwards: chain reset, window cleared'), 'no reset reported');
});

t.test('a block above a gap while a catch-up runs gets a catch-up of its own after it', async (t) => {
  const http = new ScriptedHttp();
  http.chain = [0, 1, 2].map(blk);
  http.held.add('Backfill');
  const sub = await scriptedSubscriptions(t);
  const { f, window } = follower(t, http, sub.url, []);
  f.start();
  // The catch-up took tip 2 and is backfilling 1 and 0; meanwhile the chain grows to 6.
  await http.askedFor('Backfill', 1);
  await sub.subscribed;
  http.chain.push(...[3, 4, 5, 6].map(blk));
  sub.send(blk(6));
  await f.waitForHeight(6);
  http.release();
  await f.settled();
  t.strictSame(
    window.all.map((b) => b.height),
    [0, 1, 2, 3, 4, 5, 6],
    'the gap 3..5 was fetched',
  );
  t.strictSame(http.asked, ['Tip', 'Backfill', 'Tip', 'Backfill']);
});

t.test('a chain that really went backwards is still a reset', async (t) => {
  const http = new ScriptedHttp();
  http.chain = [0, 1, 2, 3, 4].map(blk);
  const sub = await scriptedSubscriptions(t);
  const logs: string[] = [];
  const { f, window } = follower(t, http, sub.url, logs);
  f.start();
  await f.waitForHeight(4);
  await f.settled();
  // The indexer now serves a younger chain; the next catch-up (newer than every answer so far) says so.
  http.chain = [0, 1].map(blk);
  await f.catchUp();
  t.strictSame(
    window.all.map((b) => b.height),
    [0, 1],
  );
  t.ok(logs.includes('indexer tip went backwards: chain reset, window cleared'));
});
