/** The graphql-transport-ws client against a scripted server: every message type and failure. */
import { once } from 'node:events';
import t, { type Test } from 'tap';
import { WebSocketServer, type WebSocket } from 'ws';
import type { GatewayError } from '../../../../src/core/errors.js';
import { GraphqlWsConnection, SUBPROTOCOL } from '../../../../src/infra/indexer/graphql-ws.js';
import { BASELINE_FEATURES, documentsFor } from '../../../../src/features/stats/queries.js';

/** The tip query as the statistics send it to an indexer of unknown features. */
const TIP = documentsFor(BASELINE_FEATURES).tip;

type Script = (ws: WebSocket, msg: { type: string; id?: string; payload?: unknown }) => void;

interface Scripted {
  url: string;
  protocols: string[];
  received: Array<{ type: string; id?: string }>;
  /** Resolves once a received message satisfies `pred`. */
  receivedWhere(pred: (m: { type: string; id?: string }) => boolean): Promise<void>;
}

async function server(t: Test, script: Script): Promise<Scripted> {
  const protocols: string[] = [];
  const received: Array<{ type: string; id?: string }> = [];
  const waiters: Array<() => void> = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (p) => (protocols.push(...p), SUBPROTOCOL) });
  await once(wss, 'listening');
  wss.on('connection', (ws) =>
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { type: string; id?: string };
      received.push(msg);
      script(ws, msg);
      for (const w of waiters.splice(0)) w();
    }),
  );
  t.teardown(() => {
    for (const c of wss.clients) c.terminate();
    wss.close();
  });
  const receivedWhere = (pred: (m: { type: string; id?: string }) => boolean): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => void (received.some(pred) ? resolve() : waiters.push(check));
      check();
    });
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, protocols, received, receivedWhere };
}

function collector() {
  const events: Array<[string, unknown]> = [];
  let notify: (() => void) | undefined;
  const push = (e: [string, unknown]): void => {
    events.push(e);
    notify?.();
  };
  return {
    events,
    sink: { next: (d: unknown) => push(['next', d]), error: (e: GatewayError) => push(['error', e.code]), complete: () => push(['complete', null]) },
    until: (n: number) =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (events.length >= n) resolve();
        };
        notify = check;
        check();
      }),
  };
}

t.test('init/ack, subscribe/next/complete, server ping answered with pong, client complete', async (t) => {
  const srv = await server(t, (ws, m) => {
    if (m.type === 'connection_init') {
      ws.send(JSON.stringify({ type: 'ping' }));
      ws.send(JSON.stringify({ type: 'connection_ack' }));
    }
    if (m.type === 'subscribe' && m.id === '1') {
      ws.send(JSON.stringify({ id: '1', type: 'next', payload: { data: { block: null } } }));
      ws.send(JSON.stringify({ id: '1', type: 'complete' }));
    }
  });
  let ready = 0;
  const conn = new GraphqlWsConnection(srv.url, { ackTimeoutMs: 2000, onReady: () => ready++ });
  t.teardown(() => conn.close());
  const c = collector();
  conn.subscribe(TIP, {}, c.sink);
  await c.until(2);
  t.strictSame(c.events, [
    ['next', { block: null }],
    ['complete', null],
  ]);
  t.equal(ready, 1);
  t.strictSame(srv.protocols, [SUBPROTOCOL]);
  const stop = conn.subscribe(TIP, { x: 1 }, collector().sink);
  stop();
  await srv.receivedWhere((m) => m.type === 'complete' && m.id === '2');
  t.strictSame(
    srv.received.map((m) => [m.type, m.id]),
    [
      ['connection_init', undefined],
      ['pong', undefined],
      ['subscribe', '1'],
      ['subscribe', '2'],
      ['complete', '2'],
    ],
  );
});

t.test('an error message fails that operation only; errors without data too', async (t) => {
  const srv = await server(t, (ws, m) => {
    if (m.type === 'connection_init') ws.send(JSON.stringify({ type: 'connection_ack' }));
    if (m.type === 'subscribe' && m.id === '1') ws.send(JSON.stringify({ id: '1', type: 'error', payload: [{ message: 'bad offset' }] }));
    if (m.type === 'subscribe' && m.id === '2') ws.send(JSON.stringify({ id: '2', type: 'next', payload: { errors: [{ message: 'boom' }] } }));
  });
  const conn = new GraphqlWsConnection(srv.url, { ackTimeoutMs: 2000 });
  t.teardown(() => conn.close());
  const a = collector();
  const b = collector();
  conn.subscribe(TIP, {}, a.sink);
  conn.subscribe(TIP, {}, b.sink);
  await Promise.all([a.until(1), b.until(1)]);
  t.strictSame([a.events, b.events], [[['error', 'INDEXER_BAD_RESPONSE']], [['error', 'INDEXER_BAD_RESPONSE']]]);
  t.equal(conn.ready, true, 'the connection stays up');
});

t.test('garbage closes with 4400 and INDEXER_BAD_RESPONSE; no ack is INDEXER_TIMEOUT; a drop is INDEXER_UNAVAILABLE', async (t) => {
  const garbage = await server(t, (ws, m) => m.type === 'connection_init' && ws.send('not json'));
  let closed: GatewayError | undefined;
  const g = new GraphqlWsConnection(garbage.url, { ackTimeoutMs: 2000, onClose: (e) => (closed = e) });
  const gc = collector();
  g.subscribe(TIP, {}, gc.sink);
  await gc.until(1);
  t.strictSame(gc.events, [['error', 'INDEXER_BAD_RESPONSE']]);
  t.equal(closed?.code, 'INDEXER_BAD_RESPONSE');

  const silent = await server(t, () => undefined);
  const s = new GraphqlWsConnection(silent.url, { ackTimeoutMs: 100 });
  const sc = collector();
  s.subscribe(TIP, {}, sc.sink);
  await sc.until(1);
  t.strictSame(sc.events, [['error', 'INDEXER_TIMEOUT']]);

  const dropper = await server(t, (ws, m) => (m.type === 'connection_init' ? ws.send(JSON.stringify({ type: 'connection_ack' })) : ws.terminate()));
  const d = new GraphqlWsConnection(dropper.url, { ackTimeoutMs: 2000 });
  const dc = collector();
  d.subscribe(TIP, {}, dc.sink);
  await dc.until(1);
  t.strictSame(dc.events, [['error', 'INDEXER_UNAVAILABLE']]);
  t.equal(d.ready, false);
  const late = collector();
  d.subscribe(TIP, {}, late.sink);
  t.strictSame(late.events, [['error', 'INDEXER_UNAVAILABLE']], 'subscribing on a closed connection fails at once');
});
