/**
 * Request-body bytes in flight are bounded per client and for the whole server, before a byte of
 * the body is read: a declared body beyond either is refused from its head alone (429 or 503 with
 * Retry-After, the connection closed), a chunked one at the chunk that would pass the bound; a
 * route's own admission refuses before the read too; the bytes are given back when requests end.
 */
import t from 'tap';
import { connect, type Socket } from 'node:net';
import { OCTET, json } from '../../../src/core/http/route.js';
import { GatewayError } from '../../../src/core/errors.js';
import type { Module } from '../../../src/infra/app-context.js';
import type { BodyBudgetStats } from '../../../src/core/guards/body-budget.js';
import { startApp, deferred } from '../../helpers/app.js';

const MiB = 2 ** 20;
const KEYS = ['budget-key-a-0123456789', 'budget-key-b-0123456789', 'budget-key-c-0123456789'] as const;

function holdingRoutes(): { module: Module; release(): void; held(): number; full: { on: boolean } } {
  let gate = deferred<void>();
  let held = 0;
  const full = { on: false };
  const module: Module = (ctx) =>
    ctx.addRoutes([
      {
        method: 'POST',
        url: '/t/hold',
        auth: 'key',
        rateLimit: 'key',
        body: { limit: 4 * MiB, contentTypes: [OCTET] },
        admit: () => (full.on ? new GatewayError('QUEUE_FULL', undefined, { headers: { 'Retry-After': '3' } }) : undefined),
        schema: { summary: 'hold', tags: ['proving'], response: { 200: { description: 'ok' } } },
        handler: async (c) => {
          held++;
          await gate.promise;
          held--;
          return json({ bytes: c.body!.byteLength });
        },
      },
    ]);
  return {
    module,
    release: () => {
      gate.resolve();
      gate = deferred<void>();
    },
    held: () => held,
    full,
  };
}

interface Raw {
  sock: Socket;
  /** Everything received once the server closes the connection (or the answer is complete). */
  answer: Promise<string>;
}

function head(key: string, length: number | 'chunked'): string {
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return `POST /t/hold HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/octet-stream\r\n${framing}\r\n\r\n`;
}

function open(port: number, first: string | Buffer): Raw {
  const sock = connect(port, '127.0.0.1');
  let data = '';
  const answer = new Promise<string>((resolve) => {
    sock.on('data', (d) => {
      data += d.toString('latin1');
      if (/\r\n\r\n[^]*\}/.test(data)) resolve(data);
    });
    sock.on('close', () => resolve(data));
    sock.on('error', () => resolve(data));
  });
  sock.write(first);
  return { sock, answer };
}

const until = async (f: () => boolean): Promise<void> => {
  while (!f()) await new Promise((r) => setImmediate(r));
};

t.test('per key, then the whole server: refused from the head, given back when requests end', async (t) => {
  const routes = holdingRoutes();
  const s = await startApp(
    { server: { bodyBytesPerClient: 8 * MiB, bodyBytesInFlight: 16 * MiB, bodyLimit: 4 * MiB, proverBodyLimit: 4 * MiB }, auth: { apiKeys: [...KEYS] } },
    { modules: [routes.module] },
  );
  t.teardown(() => s.close());
  const stats = (): BodyBudgetStats => (s.app.health()['components'] as Record<string, BodyBudgetStats>)['bodies']!;
  const body = Buffer.alloc(4 * MiB, 7);

  // Key A: two 4 MiB bodies fill its share.
  const a = [0, 1].map(() => open(s.port, Buffer.concat([Buffer.from(head(KEYS[0], body.length)), body])));
  await until(() => routes.held() === 2);
  t.match(stats(), { inFlightBytes: 8 * MiB, clients: 1 });

  // Ten more from key A, heads only: each refused without a byte of its body sent.
  const refused = await Promise.all(Array.from({ length: 10 }, () => open(s.port, head(KEYS[0], body.length)).answer));
  for (const r of refused) {
    t.match(r, /^HTTP\/1\.1 429 [^]*\r\nRetry-After: 2\r\n/, '429 with Retry-After');
    t.match(r, /"code":"CLIENT_BODY_BUDGET_FULL"/);
    t.match(r, /\r\nConnection: close\r\n/i, 'the connection closes: the body is never read');
  }
  t.match(stats(), { inFlightBytes: 8 * MiB, refused: { client: 10, global: 0 } });

  // Key B takes the rest of the server's budget; key C then finds the server full: 503.
  const b = [0, 1].map(() => open(s.port, Buffer.concat([Buffer.from(head(KEYS[1], body.length)), body])));
  await until(() => routes.held() === 4);
  const c = await open(s.port, head(KEYS[2], 1024)).answer;
  t.match(c, /^HTTP\/1\.1 503 [^]*\r\nRetry-After: 2\r\n[^]*"code":"BODY_BUDGET_FULL"/, 'server full: 503 with Retry-After');

  // A chunked body is counted chunk by chunk: refused at its first chunk while the server is full.
  const chunked = open(s.port, head(KEYS[2], 'chunked') + `1000\r\n${'x'.repeat(0x1000)}\r\n`);
  t.match(await chunked.answer, /^HTTP\/1\.1 503 [^]*"code":"BODY_BUDGET_FULL"/, 'chunked: refused at the chunk');
  t.match(stats(), { inFlightBytes: 16 * MiB, peakBytes: 16 * MiB, refused: { global: 2 } });

  routes.release();
  for (const r of [...a, ...b]) t.match(await r.answer, /^HTTP\/1\.1 200 [^]*"bytes":4194304/);
  t.match(stats(), { inFlightBytes: 0, clients: 0 }, 'every byte given back');

  // A chunked body within the budget is read, and given back too: charged twice its length, as
  // it is gathered in chunks and then joined.
  const ok = open(s.port, head(KEYS[2], 'chunked') + `1000\r\n${'x'.repeat(0x1000)}\r\n0\r\n\r\n`);
  await until(() => routes.held() === 1);
  t.match(stats(), { inFlightBytes: 2 * 0x1000 });
  routes.release();
  t.match(await ok.answer, /^HTTP\/1\.1 200 [^]*"bytes":4096/);
  t.match(stats(), { inFlightBytes: 0, clients: 0 });
  for (const r of [...a, ...b, ok]) r.sock.destroy();
  t.equal(s.app.server.inFlight, 0);
});

t.test("a route's admission refuses before the body is read", async (t) => {
  const routes = holdingRoutes();
  const s = await startApp({ server: { bodyLimit: 4 * MiB, proverBodyLimit: 4 * MiB }, auth: { apiKeys: [...KEYS] } }, { modules: [routes.module] });
  t.teardown(() => s.close());
  routes.full.on = true;
  const r = await open(s.port, head(KEYS[0], 4 * MiB)).answer;
  t.match(r, /^HTTP\/1\.1 503 [^]*\r\nRetry-After: 3\r\n[^]*"code":"QUEUE_FULL"/);
  t.match(r, /\r\nConnection: close\r\n/i);
  t.equal(routes.held(), 0);
  t.match((s.app.health()['components'] as Record<string, BodyBudgetStats>)['bodies'], { inFlightBytes: 0, peakBytes: 0 }, 'nothing taken');
});
