/**
 * server.threads = 2 under a hostile client, against the same app with one thread. With two
 * threads an acceptor hands connections round-robin to the main thread's app and a worker
 * thread's; the worker answers copies of live replies (and 404/405/preflights) itself and forwards
 * every other routed request to the main thread (src/core/http/threads/). Each case opens its own
 * connections and learns which thread holds each one (a 404's generated X-Request-Id starts with
 * its thread's boot id), then plays the same bytes on one thread, on the main thread of two and on
 * the worker thread of two, and compares what comes back.
 *
 * Where two threads differ from one, on purpose or because uWS decides (the test names say so):
 *  - a request pipelined behind a forwarded one on the worker: uWS refuses async pipelining and
 *    closes the connection, so neither is answered (the main thread may still log the first as
 *    answered: it answered before the worker's abort arrived); a local answer first is fine;
 *  - a forwarded request followed by the client's FIN may be dropped on the worker (uWS closes a
 *    half-closed connection; one thread answers synchronously, before it reads the FIN).
 * Clients that leave mid-request, read slowly, flood or crowd in: threads-hostile-churn.test.ts.
 * Addresses, limits, WebSockets, shutdown and copies of replies: threads-hostile-peers.test.ts.
 */
import t from 'tap';
import { OCTET } from '../../src/core/http/route.js';
import { TEST_KEY } from '../helpers/app.js';
import { SKIP, connOn, eventually, mainBootId, shape, type Server } from '../fixtures/threads/hostile-app.js';
import { startLivePair } from '../fixtures/threads/live-pair.js';
import { type Conn, echo, get, head } from '../fixtures/threads/raw-http.js';

t.test('threads = 2 against a hostile client, compared with one thread', { skip: SKIP }, async (t) => {
  const p = await startLivePair(t);

  await t.test("a live reply from the worker's copy: GET, HEAD, 304, gzip and br, as from the main thread and from one thread", async (t) => {
    const workerId = async (s: Server, c: Conn): Promise<void> => {
      if (s.thread !== 'worker') return;
      c.send(get('/nowhere'));
      const id = (await c.answers([false])).answers[0]!.headers['x-request-id']!;
      t.notOk(id.startsWith(`${await mainBootId(p.two)}-`), 'the worker answers these itself');
    };
    const etags: Record<string, string> = {};
    const variants: Array<[string, (tags: Record<string, string>) => string, boolean]> = [
      ['GET', () => get('/t/live'), false],
      ['GET gzip', () => get('/t/live', 'Accept-Encoding: gzip\r\n'), false],
      ['GET br', () => get('/t/live', 'Accept-Encoding: gzip, deflate, br\r\n'), false],
      ['HEAD', () => head('/t/live'), true],
      ['HEAD gzip', () => head('/t/live', 'Accept-Encoding: gzip\r\n'), true],
      ['If-None-Match identity tag', (tags) => get('/t/live', `If-None-Match: ${tags['GET']}\r\n`), false],
      ['If-None-Match gzip tag, gzip', (tags) => get('/t/live', `Accept-Encoding: gzip\r\nIf-None-Match: ${tags['GET gzip']}\r\n`), false],
      ['If-None-Match identity tag, gzip', (tags) => get('/t/live', `Accept-Encoding: gzip\r\nIf-None-Match: ${tags['GET']}\r\n`), false],
      ['If-None-Match list with the br tag, br', (tags) => get('/t/live', `Accept-Encoding: br\r\nIf-None-Match: "x", W/${tags['GET br']}\r\n`), false],
    ];
    for (const [name, payload, isHead] of variants) {
      const seen: Array<Record<string, unknown> | undefined> = [];
      for (const s of p.servers) {
        const c = await connOn(s.app, s.thread);
        await workerId(s, c);
        c.send(payload(etags));
        const { answers } = await c.answers([isHead]);
        c.destroy();
        seen.push(shape(answers[0]));
        if (s.name === 'one thread' && answers[0]?.headers['etag'] !== undefined) etags[name] = answers[0].headers['etag'];
      }
      t.same(seen[1], seen[0], `${name}: main thread of two as one thread`);
      t.same(seen[2], seen[0], `${name}: worker thread of two as one thread`);
    }
    t.match(etags['GET gzip'], /-gz"$/, 'gzip has its own tag');
    t.match(etags['GET br'], /-br"$/, 'br has its own tag');
  });

  await t.test("answers the worker makes itself (404, 405, CORS preflight, unknown method): the same as one thread's", async (t) => {
    const cases: Array<[string, string, boolean]> = [
      ['404', get('/nowhere/at/all?x=1'), false],
      ['405 on a live route', `POST /t/live HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`, false],
      ['405 on a forwarded route', `POST /t/plain HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`, false],
      ['405 for GET on a POST route', get('/t/echo'), false],
      ['preflight', `OPTIONS /t/plain HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\nAccess-Control-Request-Method: GET\r\n\r\n`, false],
      ['unknown method', `BREW /t/plain HTTP/1.1\r\nHost: x\r\n\r\n`, false],
      ['HEAD 404', head('/nowhere'), true],
    ];
    for (const [name, payload, isHead] of cases) {
      const seen: Array<Record<string, unknown>> = [];
      for (const s of p.servers) {
        const c = await connOn(s.app, s.thread);
        c.send(payload);
        const { answers } = await c.answers([isHead], 2_000);
        const a = answers[0];
        seen.push({
          ...shape(a),
          allow: a?.headers['allow'],
          cors: a?.headers['access-control-allow-origin'],
          methods: a?.headers['access-control-allow-methods'],
          text: a?.body.toString().replace(/"requestId":"[^"]*"/, ''),
        });
        c.destroy();
      }
      t.same(seen[1], seen[0], `${name}: main thread of two as one thread`);
      t.same(seen[2], seen[0], `${name}: worker thread of two as one thread`);
    }
  });

  await t.test("HEAD on a forwarded route: the GET's Content-Length, no body, and the connection stays usable, as with one thread", async (t) => {
    for (const s of p.servers) {
      const c = await connOn(s.app, s.thread);
      c.send(head('/t/plain?q=h'));
      const first = await c.answers([true]);
      // Sent once the HEAD's answer is in: a body written after it would be read as this answer's start.
      c.send(get('/nowhere?after-head'));
      const second = await c.answers([false]);
      c.destroy();
      t.equal(first.answers[0]?.status, 200, `${s.name}: 200`);
      t.equal(first.answers[0]?.headers['content-length'], String(Buffer.byteLength('{"ip":"127.0.0.1","q":"h"}')), `${s.name}: the GET's length`);
      t.equal(second.answers[0]?.status, 404, `${s.name}: the next answer follows the head directly`);
    }
  });

  await t.test(
    'pipelined requests: in order on one thread and on the main thread; on the worker, a request pipelined behind a forwarded ' +
      'one closes the connection unanswered (uWS denies async pipelining), a local one first is answered in order',
    async (t) => {
      const plainBody = (q: string): string => `{"ip":"127.0.0.1","q":"${q}"}`;
      const cases: Array<{ name: string; payload: string; heads: boolean[]; expect: Array<[number, string?]>; forwardedFirst: boolean }> = [
        {
          name: 'local, then forwarded',
          payload: get('/nowhere?q=a') + get('/t/plain?q=b'),
          heads: [false, false],
          expect: [[404], [200, plainBody('b')]],
          forwardedFirst: false,
        },
        {
          name: 'live copy, then forwarded',
          payload: get('/t/live') + get('/t/plain?q=c'),
          heads: [false, false],
          expect: [[200], [200, plainBody('c')]],
          forwardedFirst: false,
        },
        {
          name: 'forwarded, then local',
          payload: get('/t/plain?q=d') + get('/nowhere?q=e'),
          heads: [false, false],
          expect: [[200, plainBody('d')], [404]],
          forwardedFirst: true,
        },
        {
          name: 'forwarded POST with its body, then local',
          payload: echo('body-f') + get('/t/live'),
          heads: [false, false],
          expect: [[200, 'body-f'], [200]],
          forwardedFirst: true,
        },
        {
          name: 'forwarded HEAD, then forwarded GET',
          payload: head('/t/plain?q=g') + get('/t/plain?q=h'),
          heads: [true, false],
          expect: [
            [200, ''],
            [200, plainBody('h')],
          ],
          forwardedFirst: true,
        },
        {
          name: '20 forwarded GETs',
          payload: Array.from({ length: 20 }, (_, i) => get(`/t/plain?q=p${i}`)).join(''),
          heads: Array(20).fill(false),
          expect: Array.from({ length: 20 }, (_, i) => [200, plainBody(`p${i}`)] as [number, string]),
          forwardedFirst: true,
        },
      ];
      for (const k of cases) {
        for (const s of p.servers) {
          const c = await connOn(s.app, s.thread);
          c.send(k.payload);
          const { answers, closed } = await c.answers(k.heads);
          const got = answers.map((a, i) => (k.expect[i]?.[1] === undefined ? [a.status] : [a.status, a.body.toString()]));
          if (s.thread === 'worker' && k.forwardedFirst) {
            t.same(got, [], `${k.name}, ${s.name}: nothing answered`);
            t.ok(closed, `${k.name}, ${s.name}: the connection is closed`);
          } else {
            t.same(got, k.expect, `${k.name}, ${s.name}: every answer, in order`);
            t.notOk(c.closed, `${k.name}, ${s.name}: the connection stays open`);
          }
          c.destroy();
        }
      }
      // Nothing stays in flight in the main thread for the requests the worker dropped.
      await eventually('nothing in flight', () => p.two.app.server.inFlight === 0);
      const after = await connOn(p.two, 'worker');
      after.send(get('/t/plain?q=after'));
      t.equal((await after.answers([false])).answers[0]?.body.toString(), plainBody('after'), 'the worker thread still serves');
      after.destroy();
    },
  );

  await t.test(
    "a request followed by the client's FIN (half-close): answered as with one thread, except a forwarded one on the worker, " +
      "which may be dropped (uWS closes a half-closed connection before the main thread's answer is back; one thread answers " +
      'before it reads the FIN); HTTP/1.0 alike',
    async (t) => {
      const cases: Array<[string, string, boolean, boolean]> = [
        ['half-close after a forwarded GET', get('/t/plain?q=fin'), true, true],
        ['half-close after a forwarded POST', echo('fin-body'), true, true],
        ['half-close after a live-copy GET', get('/t/live'), true, false],
        ['half-close after a 404', get('/nowhere'), true, false],
        ['HTTP/1.0, forwarded', 'GET /t/plain?q=ten HTTP/1.0\r\n\r\n', false, true],
        ['HTTP/1.0, live copy', 'GET /t/live HTTP/1.0\r\n\r\n', false, false],
      ];
      for (const [name, payload, fin, forwarded] of cases) {
        const seen: Array<Record<string, unknown>> = [];
        for (const s of p.servers) {
          const c = await connOn(s.app, s.thread);
          if (fin) c.sock.end(payload);
          else c.send(payload);
          const { answers } = await c.answers([false], 2_000);
          seen.push({ ...shape(answers[0]), closed: await c.waitClosed(2_000) });
          c.destroy();
        }
        t.match(seen[0], { status: Number, closed: true }, `${name}: one thread answers and closes`);
        t.same(seen[1], seen[0], `${name}: main thread of two as one thread`);
        if (fin && forwarded && seen[2]!['status'] === undefined)
          t.equal(seen[2]!['closed'], true, `${name}: worker thread of two: closed unanswered (uWS closed the half-closed connection first)`);
        else t.same(seen[2], seen[0], `${name}: worker thread of two as one thread`);
      }
      await eventually('nothing in flight', () => p.two.app.server.inFlight === 0);
    },
  );

  await t.test(
    'oversized header sections (431) and ambiguous framing (400): refused and closed on both threads, forwarded and local routes alike, nothing behind served',
    async (t) => {
      const fields = Array.from({ length: 70 }, (_, i) => `X-F${i}: v\r\n`).join('');
      const refusals: Record<string, (path: string, method: string) => string> = {
        '17 KB header section': (path, method) =>
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}` +
          `\r\nContent-Type: ${OCTET}` +
          `\r\nContent-Length: 3\r\nX-Big: ${'a'.repeat(17_000)}` +
          `\r\n\r\nabc`,
        '70 header fields': (path, method) =>
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: ${OCTET}\r\nContent-Length: 3\r\n${fields}\r\nabc`,
        'conflicting Content-Length': (path, method) =>
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: ${OCTET}\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabc`,
        'Content-Length and chunked': (path, method) =>
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}` +
          `\r\nContent-Type: ${OCTET}` +
          `\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
      };
      const targets: Array<[string, string, string]> = [
        ['forwarded GET', 'GET', '/t/plain?q=refused'],
        ['forwarded POST', 'POST', '/t/echo'],
        ['forwarded HEAD', 'HEAD', '/t/plain?q=refused'],
        ['live copy', 'GET', '/t/live'],
        ['404', 'GET', '/nowhere'],
      ];
      const SMUGGLED = get('/t/plain?q=smuggled');
      for (const [refusal, payload] of Object.entries(refusals)) {
        for (const [target, method, path] of targets) {
          const seen: Array<Record<string, unknown>> = [];
          for (const s of p.servers) {
            const c = await connOn(s.app, s.thread);
            c.send(payload(path, method));
            const { answers } = await c.answers([false], 2_000);
            const closed = await c.waitClosed(2_000);
            c.destroy();
            seen.push({ status: answers[0]?.status, connection: answers[0]?.headers['connection'], closed });
          }
          // A HEAD refused by nightgate has no body to carry the refusal: dropped unanswered
          // (refusal.ts); uWS refuses Content-Length with chunked itself, with its own 400.
          const status =
            method === 'HEAD' && refusal !== 'Content-Length and chunked' ? undefined : refusal.endsWith('fields') || refusal.endsWith('section') ? 431 : 400;
          t.same(
            { status: seen[0]!['status'], closed: seen[0]!['closed'] },
            { status, closed: true },
            `${refusal}, ${target}: one thread ${status === undefined ? 'drops it' : 'refuses'} and closes`,
          );
          t.same(seen[1], seen[0], `${refusal}, ${target}: main thread of two as one thread`);
          t.same(seen[2], seen[0], `${refusal}, ${target}: worker thread of two as one thread`);
          // The same with a request pipelined behind: never served. On the worker a forwarded
          // refusal is not answered then (the pipelined request closes the connection first).
          for (const s of p.servers) {
            const c = await connOn(s.app, s.thread);
            c.send(payload(path, method) + SMUGGLED);
            const closed = await c.waitClosed(2_000);
            const text = c.buf.toString('latin1');
            c.destroy();
            t.notMatch(text, /smuggled/, `${refusal}, ${target}, ${s.name}: the request behind is not served`);
            t.ok(closed, `${refusal}, ${target}, ${s.name}: closed`);
            const forwarded = target.startsWith('forwarded');
            if ((s.thread === 'worker' && forwarded) || method === 'HEAD')
              t.ok(text === '' || text.startsWith('HTTP/1.1 4'), `${refusal}, ${target}, ${s.name}: refused or dropped unanswered`);
            else t.match(text, /^HTTP\/1\.1 4(31|00) /, `${refusal}, ${target}, ${s.name}: refused`);
          }
        }
      }
      // A chunked body past the route's limit: the worker stops reading it into the main thread
      // at limit + 1 bytes; 413, and the rest is never read. The client may see the close first.
      const chunk = 'z'.repeat(100_000);
      const over =
        `POST /t/echo HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: ${OCTET}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${(100_000).toString(16)}\r\n${chunk}\r\n`.repeat(4) +
        `0\r\n\r\n${SMUGGLED}`;
      for (const s of p.servers) {
        const c = await connOn(s.app, s.thread);
        c.send(over);
        const closed = await c.waitClosed(5_000);
        const text = c.buf.toString('latin1');
        c.destroy();
        t.ok(closed, `chunked body over the limit, ${s.name}: closed`);
        t.ok(text === '' || text.startsWith('HTTP/1.1 413 '), `chunked body over the limit, ${s.name}: 413 (or the close first)`);
        t.notMatch(text, /smuggled/, `chunked body over the limit, ${s.name}: nothing behind served`);
      }
      await eventually('nothing in flight', () => p.two.app.server.inFlight === 0);
    },
  );
});
