/**
 * server.threads = 2: one port, connections handed round-robin to the main thread's app and a
 * worker thread's (uWS 20.57's child apps). Each request here opens its own connection, so
 * successive requests alternate between the two threads. Where the 20.30 build loads (Node 20 on
 * glibc 2.36), the setting is refused at start with what to change.
 */
import t from 'tap';
import { request, WebSocket } from 'undici';
import { GatewayError } from '../../../src/core/errors.js';
import type { Module } from '../../../src/infra/app-context.js';
import { json, OCTET } from '../../../src/core/http/route.js';
import { loadUws } from '../../../src/core/http/uws.js';
import { childAppsSupported } from '../../../src/core/http/threads/main.js';
import { RenderedReply } from '../../../src/features/stats/rendered-reply.js';
import { startApp, TEST_KEY } from '../../helpers/app.js';

const supported = childAppsSupported(loadUws().uws);

t.test(
  'where uWS cannot hand connections to other threads (20.30 build), server.threads > 1 is refused at start, saying what to change',
  { skip: supported ? 'this uWS build has child apps' : false },
  async (t) => {
    await t.rejects(startApp({ server: { threads: 2 } }), /server\.threads = 2 needs the uWS 20\.57 build .*Set server\.threads to 1/);
  },
);

/** A live reply (re-rendered in place, like the statistics), a keyed echo with a body, a plain public route. */
function threadRoutes(): { module: Module; live: RenderedReply; publish: (m: string) => void } {
  const live = new RenderedReply();
  live.set({ n: 1 }, 'public, max-age=1');
  let publish: (m: string) => void = () => undefined;
  const module: Module = (ctx) => {
    publish = (m) => ctx.publish('t/ws/a', m);
    ctx.addTopic({
      url: '/t/ws/:name',
      topicFor: (p) => (p['name'] === 'a' ? 't/ws/a' : new GatewayError('UNKNOWN_NETWORK')),
      known: [{ name: 'a' }, { name: 'b' }],
      welcome: () => 'hello from the main thread',
    });
    ctx.addRoutes([
      {
        method: 'GET',
        url: '/t/live',
        auth: 'none',
        rateLimit: 'ip',
        schema: { summary: 'live', tags: ['statistics'], response: { 200: { description: 'ok' } } },
        handler: () => live,
      },
      {
        method: 'POST',
        url: '/t/echo',
        auth: 'key',
        rateLimit: 'key',
        body: { limit: 300_000, contentTypes: [OCTET] },
        schema: { summary: 'echo', tags: ['proving'], response: { 200: { description: 'ok' } } },
        handler: (c) => ({ status: 200, body: c.body!, contentType: OCTET, headers: { 'X-Key': c.key!.id } }),
      },
      {
        method: 'GET',
        url: '/t/plain',
        auth: 'none',
        rateLimit: 'ip',
        schema: { summary: 'plain', tags: ['statistics'], response: { 200: { description: 'ok' } } },
        handler: (c) => json({ ip: c.ip }),
      },
    ]);
  };
  return { module, live, publish: (m) => publish(m) };
}

/** A push subscriber: the messages it got, and a wait for the n-th. */
function subscribe(url: string): Promise<{ ws: WebSocket; messages: string[]; next(n: number): Promise<void> }> {
  const ws = new WebSocket(url);
  const messages: string[] = [];
  const waiters: Array<[number, () => void]> = [];
  ws.addEventListener('message', (e) => {
    messages.push(String(e.data));
    for (const [n, f] of waiters) if (messages.length >= n) f();
  });
  return new Promise((resolve, reject) => {
    ws.addEventListener('open', () =>
      resolve({ ws, messages, next: (n) => (messages.length >= n ? Promise.resolve() : new Promise((r) => waiters.push([n, r]))) }),
    );
    ws.addEventListener('error', () => reject(new Error('WebSocket failed')));
  });
}

const fresh = { headers: { connection: 'close' } };

t.test('two HTTP threads on one port', { skip: supported ? false : 'this uWS build has no child apps (20.30)' }, async (t) => {
  const routes = threadRoutes();
  const s = await startApp({ server: { threads: 2 }, rateLimit: { publicEnabled: true, publicLimit: 1_000, windowMs: 60_000 } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  const accessLines = (path: string) => s.logs.lines.filter((l) => l['msg'] === 'request' && l['path'] === path);

  await t.test('a live reply is copied to the worker thread and answered there, the same bytes as from the main thread', async (t) => {
    const bodies = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const r = await request(`${s.url}/t/live`, fresh);
      t.equal(r.statusCode, 200);
      t.equal(r.headers['x-cache'], 'HIT');
      bodies.add(await r.body.text());
    }
    t.same([...bodies], ['{"n":1}'], 'one body from both threads');
    const byThread = accessLines('/t/live').map((l) => l['thread'] ?? 'main');
    t.ok(byThread.includes(1), 'the worker thread answered some itself (its access lines carry thread: 1)');
    t.ok(byThread.includes('main'), 'the main thread answered some');
  });

  await t.test("a re-render reaches the worker thread's copy", async (t) => {
    routes.live.set({ n: 2 }, 'public, max-age=1');
    const seen: string[] = [];
    // The copy is one message behind at most: a few requests on each thread see the new body.
    for (let i = 0; i < 40 && seen.filter((b) => b === '{"n":2}').length < 6; i++) {
      const r = await request(`${s.url}/t/live`, fresh);
      seen.push(await r.body.text());
    }
    t.same(seen.slice(-6), Array(6).fill('{"n":2}'), 'both threads serve the new body');
    t.ok(seen.length <= 8, `the new body within the first requests (${seen.length})`);
  });

  await t.test('keyed requests are forwarded whole to the main thread: body, key, 401, 413', async (t) => {
    const payload = Buffer.alloc(200_000, 7);
    for (let i = 0; i < 4; i++) {
      const r = await request(`${s.url}/t/echo`, {
        method: 'POST',
        body: payload,
        headers: { 'content-type': OCTET, 'x-api-key': TEST_KEY, connection: 'close' },
      });
      t.equal(r.statusCode, 200);
      t.equal(r.headers['x-key'], 'env-1');
      t.ok(Buffer.from(await r.body.arrayBuffer()).equals(payload), 'the body arrived whole');
    }
    const anon = await request(`${s.url}/t/echo`, { method: 'POST', body: 'x', headers: { 'content-type': OCTET, connection: 'close' } });
    t.equal(anon.statusCode, 401);
    t.equal(((await anon.body.json()) as { code: string }).code, 'UNAUTHORIZED');
    const big = await request(`${s.url}/t/echo`, {
      method: 'POST',
      body: Buffer.alloc(400_000),
      headers: { 'content-type': OCTET, 'x-api-key': TEST_KEY, connection: 'close' },
    }).catch((e: unknown) => e as Error);
    if (!(big instanceof Error)) {
      t.equal(big.statusCode, 413);
      await big.body.dump();
    } else t.pass('the connection was closed after the 413 (the client may see the close first)');
    t.equal(accessLines('/t/echo').filter((l) => l['thread'] !== undefined).length, 0, 'every keyed request answered by the main thread');
  });

  await t.test("non-live public routes are forwarded and see the client's address", async (t) => {
    for (let i = 0; i < 4; i++) {
      const r = await request(`${s.url}/t/plain`, fresh);
      t.equal(r.statusCode, 200);
      t.same(await r.body.json(), { ip: '127.0.0.1' });
    }
  });

  await t.test('push subscribers on both threads get the welcome from the main thread and every message published', async (t) => {
    const subs = await Promise.all([0, 1, 2, 3].map(() => subscribe(`${s.url.replace('http', 'ws')}/t/ws/a`)));
    await Promise.all(subs.map((x) => x.next(1)));
    t.same(
      subs.map((x) => x.messages[0]),
      Array(4).fill('hello from the main thread'),
    );
    routes.publish('block 42');
    await Promise.all(subs.map((x) => x.next(2)));
    t.same(
      subs.map((x) => x.messages[1]),
      Array(4).fill('block 42'),
      'every subscriber, whichever thread holds it',
    );
    for (const x of subs) x.ws.close();
    for (const name of ['b', 'b', 'zz', 'zz']) await t.rejects(subscribe(`${s.url.replace('http', 'ws')}/t/ws/${name}`), `${name}: refused on either thread`);
  });

  await t.test('unknown paths are answered in whichever thread got the connection', async (t) => {
    for (let i = 0; i < 4; i++) {
      const r = await request(`${s.url}/nowhere`, fresh);
      t.equal(r.statusCode, 404);
      t.equal(((await r.body.json()) as { code: string }).code, 'NOT_FOUND');
    }
    const threads = accessLines('/nowhere').map((l) => l['thread'] ?? 'main');
    t.ok(threads.includes(1) && threads.includes('main'), 'both threads answered');
  });
});

t.test('one per-IP limit over both threads', { skip: supported ? false : 'this uWS build has no child apps (20.30)' }, async (t) => {
  const routes = threadRoutes();
  const s = await startApp({ server: { threads: 2 }, rateLimit: { publicEnabled: true, publicLimit: 10, windowMs: 3_600_000 } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  const statuses: number[] = [];
  for (let i = 0; i < 14; i++) {
    const r = await request(`${s.url}/t/live`, fresh);
    statuses.push(r.statusCode);
    await r.body.dump();
  }
  t.same(statuses, [...Array(10).fill(200), ...Array(4).fill(429)], 'the 11th request is refused, whichever thread it reaches');
});

t.test(
  'shutdown ends the worker thread too: no connection is accepted after close',
  { skip: supported ? false : 'this uWS build has no child apps (20.30)' },
  async (t) => {
    const routes = threadRoutes();
    const s = await startApp({ server: { threads: 2 } }, { modules: [routes.module] });
    const warm = await request(`${s.url}/t/live`, fresh);
    await warm.body.dump();
    await s.close();
    await t.rejects(request(`${s.url}/t/live`, fresh), 'refused after close');
  },
);
