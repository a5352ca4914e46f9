/**
 * server.threads = 2 against clients that forge addresses, flood, hold requests open across a
 * shutdown or sit on a copy of a reply: what one thread does, two do (the apps and the raw
 * connection: test/fixtures/threads/; the byte-level comparison is threads-hostile.test.ts).
 * Where two threads differ from one, on purpose (the test names say so):
 *  - server.wsConnectionsPerIp counts per thread (README): two threads admit twice as many;
 *  - a copy of a reply the main thread renders on demand is up to about a second behind
 *    (worker.ts, REPLICA_FRESH_MS), where one thread answers the new data at once.
 */
import t from 'tap';
import { WebSocket } from 'undici';
import { startApp, type TestApp } from '../helpers/app.js';
import { SKIP, accessLines, connOn, eventually, hostileRoutes, startPair } from '../fixtures/threads/hostile-app.js';
import { Conn, get, type Answer } from '../fixtures/threads/raw-http.js';

t.test(
  'X-Forwarded-For: ignored from an untrusted peer, believed from a trusted proxy, the same for forwarded and local answers on both threads',
  { skip: SKIP },
  async (t) => {
    const untrusted = await startPair(t, { rateLimit: { publicEnabled: true, publicLimit: 100_000, windowMs: 60_000 } });
    const trusted = await startPair(t, {
      server: { trustedProxies: ['127.0.0.1/32'] },
      rateLimit: { publicEnabled: true, publicLimit: 100_000, windowMs: 60_000 },
    });
    const forgeries: Array<[string, string, string]> = [
      ['one hop', 'X-Forwarded-For: 203.0.113.9\r\n', '203.0.113.9'],
      ['a chain', 'X-Forwarded-For: 198.51.100.1, 203.0.113.9\r\n', '203.0.113.9'],
      ['two lines', 'X-Forwarded-For: 198.51.100.1\r\nX-Forwarded-For: 203.0.113.10\r\n', '203.0.113.10'],
      ['garbage', 'X-Forwarded-For: not-an-ip\r\n', '127.0.0.1'],
    ];
    for (const [pair, trusting] of [
      [untrusted, false],
      [trusted, true],
    ] as const) {
      for (const [name, header, believed] of forgeries) {
        for (const s of pair.servers) {
          const c = await connOn(s.app, s.thread);
          c.send(get('/t/plain?q=xff', header));
          const a = (await c.answers([false])).answers[0];
          c.destroy();
          const want = trusting ? believed : '127.0.0.1';
          t.equal(
            a && (JSON.parse(a.body.toString()) as { ip: string }).ip,
            want,
            `${trusting ? 'trusted' : 'untrusted'} peer, ${name}, ${s.name}: the route sees ${want}`,
          );
          // A local answer (404) logs the address the worker resolved itself.
          const d = await connOn(s.app, s.thread);
          const id = `xff-${trusting}-${name.replace(/ /g, '-')}-${s.name.replace(/ /g, '-')}`;
          d.send(get('/nowhere', `${header}X-Request-Id: ${id}\r\n`));
          await d.answers([false]);
          d.destroy();
          await eventually(`${id} logged`, () => s.app.logs.lines.some((l) => l['reqId'] === id));
          t.equal(
            s.app.logs.lines.find((l) => l['reqId'] === id)?.['ip'],
            want,
            `${trusting ? 'trusted' : 'untrusted'} peer, ${name}, ${s.name}: a local answer logs ${want}`,
          );
        }
      }
    }
  },
);

t.test(
  'one per-IP limit over both threads: forwarded routes, live copies and 404 floods all count, forged X-Forwarded-For does not escape it',
  { skip: SKIP },
  async (t) => {
    const p = await startPair(t, { rateLimit: { publicEnabled: true, publicLimit: 10, windowMs: 3_600_000 } });
    const paths = ['/t/plain?q=l', '/nowhere', '/t/live', '/nowhere/again', '/t/live?q=junk'];
    const sequences: number[][] = [];
    for (const s of [p.one, p.two]) {
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++) {
        // Each on a new connection: with two threads they alternate between them.
        const c = await Conn.open(s.port);
        c.send(get(paths[i % 5]!, `X-Forwarded-For: 198.51.100.${i}\r\n`));
        const a = (await c.answers([false])).answers[0];
        c.destroy();
        statuses.push(a?.status ?? 0);
        if (a?.status === 429) t.ok(Number(a.headers['retry-after']) > 0, `${s === p.one ? 'one' : 'two'}: a 429 says when to retry`);
      }
      sequences.push(statuses);
    }
    t.same(
      sequences[0]!.map((x) => x === 429),
      [...Array(10).fill(false), ...Array(6).fill(true)],
      'one thread: 10 admitted, the rest 429',
    );
    t.same(sequences[1], sequences[0], 'two threads: the same answers in the same order');

    // A flood at once, over both threads: exactly the limit admitted.
    const flood = await startPair(t, { rateLimit: { publicEnabled: true, publicLimit: 50, windowMs: 3_600_000 } });
    for (const s of [flood.one, flood.two]) {
      const statuses = await Promise.all(
        Array.from({ length: 120 }, async (_, i) => {
          const c = await Conn.open(s.port);
          c.send(get(i % 3 === 0 ? `/t/plain?q=f${i}` : `/flood/${i}`));
          const a = (await c.answers([false])).answers[0];
          c.destroy();
          return a?.status ?? 0;
        }),
      );
      t.equal(statuses.filter((x) => x !== 429).length, 50, `${s === flood.one ? 'one thread' : 'two threads'}: 120 at once, exactly 50 admitted`);
      t.equal(statuses.filter((x) => x === 0).length, 0, 'every request answered');
    }
  },
);

t.test(
  'push WebSockets per IP: the limit counts per thread, so two threads admit twice wsConnectionsPerIp (README); a flood of ' +
    'upgrades leaves both threads serving',
  { skip: SKIP },
  async (t) => {
    const p = await startPair(t, { server: { wsConnectionsPerIp: 2 } });
    const open = (s: TestApp): Promise<WebSocket | undefined> =>
      new Promise((resolve) => {
        const ws = new WebSocket(`${s.url.replace('http', 'ws')}/t/ws`);
        ws.addEventListener('open', () => resolve(ws));
        ws.addEventListener('error', () => resolve(undefined));
      });
    for (const [s, admitted] of [
      [p.one, 2],
      [p.two, 4],
    ] as const) {
      const sockets: Array<WebSocket | undefined> = [];
      // One after another: with two threads the connections alternate between them.
      for (let i = 0; i < 8; i++) sockets.push(await open(s));
      t.equal(sockets.filter((x) => x !== undefined).length, admitted, `${s === p.one ? 'one thread' : 'two threads'}: ${admitted} of 8 admitted`);
      const flood = await Promise.all(Array.from({ length: 60 }, () => open(s)));
      t.equal(flood.filter((x) => x !== undefined).length, 0, 'a flood of 60 more: all refused');
      for (const ws of [...sockets, ...flood]) ws?.close();
      for (const thread of ['main', 'worker'] as const) {
        const c = await connOn(s, thread);
        c.send(get('/t/plain?q=after-flood'));
        t.equal((await c.answers([false])).answers[0]?.status, 200, `${thread}: still serving`);
        c.destroy();
      }
    }
  },
);

t.test(
  'shutdown with a forwarded request in flight on the worker: it completes, kept-alive connections get 503 on both threads, ' +
    'new connections are refused, the app closes',
  { skip: SKIP },
  async (t) => {
    const outcomes: Array<Record<string, unknown>> = [];
    for (const threads of [1, 2]) {
      const routes = hostileRoutes();
      const s = await startApp({ server: { threads } }, { modules: [routes.module] });
      const h = routes.hold('shutdown');
      const inflight = await connOn(s, 'worker');
      const keptMain = await connOn(s, 'main');
      const keptWorker = threads === 2 ? await connOn(s, 'worker') : undefined;
      inflight.send(get('/t/hold?id=shutdown'));
      await h.started.promise;
      const closing = s.close();
      const outcome: Record<string, unknown> = {};
      for (const [name, c] of [
        ['kept-alive on the main thread', keptMain],
        ['kept-alive on the worker thread', keptWorker],
      ] as const) {
        if (c === undefined) continue;
        c.send(get('/t/plain?q=late'));
        const a = (await c.answers([false])).answers[0];
        outcome[name] = { status: a?.status, connection: a?.headers['connection'], closed: await c.waitClosed(2_000) };
        c.destroy();
      }
      outcome['new connection'] = await Conn.open(s.port).then(
        (c) => {
          c.destroy();
          return 'accepted';
        },
        (err: NodeJS.ErrnoException) => err.code,
      );
      h.release.resolve();
      const a = (await inflight.answers([false])).answers[0];
      outcome['in flight'] = { status: a?.status, body: a?.body.toString(), connection: a?.headers['connection'], closed: await inflight.waitClosed(2_000) };
      inflight.destroy();
      await closing;
      outcome['closed'] = true;
      outcomes.push(outcome);
    }
    t.same(
      outcomes[0],
      {
        'kept-alive on the main thread': { status: 503, connection: 'close', closed: true },
        'new connection': 'ECONNREFUSED',
        'in flight': { status: 200, body: '{"held":"shutdown"}', connection: 'close', closed: true },
        closed: true,
      },
      'one thread',
    );
    t.same(
      outcomes[1],
      { ...outcomes[0], 'kept-alive on the worker thread': { status: 503, connection: 'close', closed: true } },
      'two threads: the same, on both threads',
    );
  },
);

t.test(
  'a copy follows a reply the main thread renders on demand: a client kept on the worker sees new data within about a ' +
    'second (one thread: at once), and an error once the main thread answers one',
  { skip: SKIP },
  async (t) => {
    const p = await startPair(t, { rateLimit: { publicEnabled: true, publicLimit: 100_000, windowMs: 60_000 } });
    const versionOf = (a: Answer | undefined): unknown =>
      a === undefined ? 'none' : a.status === 200 ? (JSON.parse(a.body.toString()) as { version: number }).version : a.status;
    for (const s of p.servers) {
      const lazy = s.app === p.one ? p.routes.one.lazy : p.routes.two.lazy;
      lazy.version = 1;
      lazy.broken = false;
      // One keep-alive connection, as a dashboard polling the statistics keeps.
      const c = await connOn(s.app, s.thread);
      for (const path of ['/t/lazy', '/t/per-limit?limit=5']) {
        c.send(get(path));
        t.equal(versionOf((await c.answers([false])).answers[0]), 1, `${s.name}, ${path}: version 1`);
        c.send(get(path));
        t.equal(versionOf((await c.answers([false])).answers[0]), 1, `${s.name}, ${path}: version 1 again (from the copy on the worker)`);
      }
      // Ask for `path` until `want` is answered (a copy a second old is renewed through the main
      // thread): the answers seen. Bounded, so a copy that is never renewed fails the test.
      const until = async (path: string, want: unknown): Promise<unknown[]> => {
        const seen: unknown[] = [];
        const deadline = Date.now() + 10_000;
        while (seen.at(-1) !== want && Date.now() < deadline) {
          c.send(get(path));
          seen.push(versionOf((await c.answers([false])).answers[0]));
          if (seen.at(-1) !== want) await new Promise((r) => setTimeout(r, 50));
        }
        return seen;
      };
      // New data; nothing re-renders until a request reaches the main thread's handler.
      lazy.version = 2;
      for (const path of ['/t/lazy', '/t/per-limit?limit=5']) {
        const seen = await until(path, 2);
        t.equal(seen.at(-1), 2, `${s.name}, ${path}: version 2 reaches this client (after ${seen.length} requests)`);
        if (s.name === 'one thread') t.equal(seen.length, 1, `${s.name}, ${path}: at once`);
      }
      lazy.broken = true;
      for (const path of ['/t/lazy', '/t/per-limit?limit=5']) {
        const seen = await until(path, 503);
        t.equal(seen.at(-1), 503, `${s.name}, ${path}: the main thread's refusal reaches this client`);
        c.send(get(path));
        t.equal(versionOf((await c.answers([false])).answers[0]), 503, `${s.name}, ${path}: and the copy is not served any more`);
      }
      c.destroy();
    }
    // The worker still answers most of them itself.
    await eventually("the worker's log lines arrive", () => accessLines(p.two, '/t/lazy').some((l) => l['thread'] === 1));
  },
);
