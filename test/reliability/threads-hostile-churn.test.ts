/**
 * server.threads = 2 under clients that leave mid-request, read slowly, flood a live route with
 * query strings or crowd in on many connections, against the same app with one thread (the apps:
 * test/fixtures/threads/; the byte-level comparison, and how a case learns which thread holds its
 * connection: threads-hostile.test.ts). A client that leaves is logged 499 by the main thread and
 * leaves nothing in flight; a slow or flooding client does not keep the thread from serving
 * others; each answer is its own request's, in order on its connection.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { OCTET } from '../../src/core/http/route.js';
import { TEST_KEY } from '../helpers/app.js';
import { BIG_SHA, SKIP, accessLines, connOn, eventually } from '../fixtures/threads/hostile-app.js';
import { startLivePair } from '../fixtures/threads/live-pair.js';
import { Conn, echo, get } from '../fixtures/threads/raw-http.js';

t.test('threads = 2 against clients that leave, read slowly, flood or crowd in, compared with one thread', { skip: SKIP }, async (t) => {
  const p = await startLivePair(t);

  await t.test(
    "a client that leaves mid-body on a forwarded POST: the main thread's exchange ends as 499, nothing stays in flight, as with one thread",
    async (t) => {
      for (const s of p.servers) {
        const c = await connOn(s.app, s.thread);
        const id = `mid-body-${s.name.replace(/ /g, '-')}`;
        c.send(
          `POST /t/echo HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}` +
            `\r\nX-Request-Id: ${id}` +
            `\r\nContent-Type: ${OCTET}` +
            `\r\nContent-Length: 200000\r\n\r\n${'x'.repeat(1000)}`,
        );
        await eventually(`${s.name}: the request is reading its body`, () => s.app.app.server.inFlight === 1);
        c.destroy();
        await eventually(`${s.name}: the exchange ends`, () => s.app.app.server.inFlight === 0);
        await eventually(`${s.name}: logged`, () => s.app.logs.lines.some((l) => l['msg'] === 'request' && l['reqId'] === id));
        const line = s.app.logs.lines.find((l) => l['msg'] === 'request' && l['reqId'] === id);
        t.equal(line?.['status'], 499, `${s.name}: logged as 499`);
        t.equal(line?.['thread'], undefined, `${s.name}: by the main thread`);
      }
      for (const s of p.servers) {
        const c = await connOn(s.app, s.thread);
        c.send(echo('still-alive'));
        t.equal((await c.answers([false])).answers[0]?.body.toString(), 'still-alive', `${s.name}: a whole POST is served afterwards`);
        c.destroy();
      }
    },
  );

  await t.test('a client that leaves before a forwarded answer: the handler is aborted, its answer later goes nowhere, 499, as with one thread', async (t) => {
    for (const s of p.servers) {
      const routes = s.app === p.one ? p.routes.one : p.routes.two;
      const key = s.name.replace(/ /g, '-');
      const h = routes.hold(key);
      const c = await connOn(s.app, s.thread);
      c.send(get(`/t/hold?id=${key}`, `X-Request-Id: hold-${key}\r\n`));
      await h.started.promise;
      c.destroy();
      t.match(await h.aborted.promise, { code: 'CLIENT_ABORTED' }, `${s.name}: the handler's signal says the client left`);
      h.release.resolve();
      await eventually(`${s.name}: the exchange ends`, () => s.app.app.server.inFlight === 0);
      await eventually(`${s.name}: logged`, () => s.app.logs.lines.some((l) => l['msg'] === 'request' && l['reqId'] === `hold-${key}`));
      t.equal(s.app.logs.lines.find((l) => l['msg'] === 'request' && l['reqId'] === `hold-${key}`)?.['status'], 499, `${s.name}: logged as 499`);
    }
    const c = await connOn(p.two, 'worker');
    const h = p.routes.two.hold('kept');
    c.send(get('/t/hold?id=kept'));
    await h.started.promise;
    h.release.resolve();
    t.equal((await c.answers([false])).answers[0]?.body.toString(), '{"held":"kept"}', 'a held request whose client stays is answered on the worker');
    c.destroy();
  });

  await t.test('a slow reader of an 8 MB forwarded answer gets it whole, and the thread serves others meanwhile, as with one thread', async (t) => {
    for (const s of p.servers) {
      const c = await connOn(s.app, s.thread);
      c.sock.pause();
      c.send(get('/t/big'));
      // While this client reads nothing, others on the same thread are served.
      for (let i = 0; i < 3; i++) {
        const other = await connOn(s.app, s.thread);
        other.send(get(`/t/plain?q=meanwhile${i}`));
        t.equal((await other.answers([false])).answers[0]?.status, 200, `${s.name}: another client is served meanwhile`);
        other.destroy();
      }
      c.sock.resume();
      const { answers } = await c.answers([false], 10_000);
      c.destroy();
      t.equal(answers[0]?.status, 200, `${s.name}: 200`);
      t.equal(answers[0] && createHash('sha1').update(answers[0].body).digest('hex'), BIG_SHA, `${s.name}: all 8 MB, intact`);
    }
  });

  await t.test(
    'a flood of query strings on a live route (more than the worker keeps copies for): each answered with the live reply, and the copy still serves',
    async (t) => {
      const conns = await Promise.all(Array.from({ length: 20 }, () => connOn(p.two, 'worker')));
      const bodies = new Set<string>();
      const statuses = new Set<number>();
      await Promise.all(
        conns.map(async (c, n) => {
          for (let i = 0; i < 210; i++) {
            c.send(get(`/t/live?junk=${n}-${i}`));
            const a = (await c.answers([false])).answers[0];
            statuses.add(a?.status ?? 0);
            bodies.add(a === undefined ? '' : createHash('sha1').update(a.body).digest('hex'));
          }
        }),
      );
      t.same([...statuses], [200], '4 200 distinct query strings: all 200');
      t.equal(bodies.size, 1, 'all the same body');
      for (const path of ['/t/live?junk=0-0', '/t/live?junk=19-209', '/t/live']) {
        conns[0]!.send(get(path));
        t.equal((await conns[0]!.answers([false])).answers[0]?.status, 200, `${path}: still answered`);
      }
      for (const c of conns) c.destroy();
    },
  );

  await t.test('500 forwarded and local requests over 50 connections at once: each answered correctly, in order on its connection', async (t) => {
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, n) => {
        const c = await Conn.open(p.two.port);
        const got: string[] = [];
        const want: string[] = [];
        for (let i = 0; i < 10; i++) {
          const id = `c${n}-r${i}`;
          const kind = (n + i) % 3;
          if (kind === 0) {
            c.send(get(`/t/plain?q=${id}`, `X-Request-Id: ${id}\r\n`));
            want.push(`${id} {"ip":"127.0.0.1","q":"${id}"}`);
          } else if (kind === 1) {
            c.send(echo(`echo-${id}`, `X-Request-Id: ${id}\r\n`));
            want.push(`${id} echo-${id}`);
          } else {
            c.send(get('/t/live', `X-Request-Id: ${id}\r\n`));
            want.push(`${id} live`);
          }
          const a = (await c.answers([false], 10_000)).answers[0];
          got.push(
            a === undefined ? 'none' : `${a.headers['x-request-id']} ${kind === 2 && a.status === 200 && a.body.length > 1024 ? 'live' : a.body.toString()}`,
          );
        }
        c.destroy();
        return { got, want };
      }),
    );
    t.same(
      results.map((r) => r.got),
      results.map((r) => r.want),
      "every answer is its own request's, in order",
    );
    await eventually('nothing in flight', () => p.two.app.server.inFlight === 0);
    await eventually("the worker's log lines arrive", () => accessLines(p.two, '/t/live').filter((l) => l['thread'] === 1).length > 0);
    t.ok(
      accessLines(p.two, '/t/live').some((l) => l['thread'] === 1),
      'the worker thread took part',
    );
  });
});
