/**
 * The policy webhook client against real HTTP servers on 127.0.0.1: what it sends (the summary,
 * signed), how it reads answers (sponsor, deny, everything else unavailable), its deadline
 * (fired by hand, and once with a real 100 ms timer), the body cap, refused connections, the
 * caller's abort, bounded connections, credentials kept out of reasons — and the receiver snippet
 * of docs/policy-webhook.md, run as written.
 */
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../helpers/manual-clock.js';
import type { KeyPolicy } from '../../src/features/sponsorship/policy/compiled-policy.js';
import type { WebhookSummary } from '../../src/features/sponsorship/policy/ports.js';
import { PolicyWebhook, type DeadlineTimers } from '../../src/features/sponsorship/policy/webhook.js';
import { verifyWebhookSignature } from '../helpers/webhook-receiver.js';

type Webhook = NonNullable<KeyPolicy['webhook']>;

const SECRET = 'the-key-owners-webhook-secret';
const NOW = 1_750_000_000_000;

const SUMMARY: WebhookSummary = {
  id: '4f7c2a9e-3b1d-4e8a-9c0f-6d5b2e1a7c3d',
  keyId: 'acme',
  network: 'preprod',
  era: 9,
  kind: 'prove-and-balance',
  user: '5d'.repeat(32),
  owners: ['5d'.repeat(32)],
  effects: { nightTransfers: false, shielded: false, deploys: [], maintenance: [], dustRegistrations: 0 },
  calls: [{ address: '02'.repeat(32), entryPoint: 'increment' }],
  fee: '412000000000',
  feeUnit: 'SPECK',
};

/** Deadlines that fire only when the test says so. */
class ManualTimers implements DeadlineTimers {
  private readonly pending = new Map<number, { fn: () => void; ms: number }>();
  private next = 0;
  set(fn: () => void, ms: number): unknown {
    this.pending.set(++this.next, { fn, ms });
    return this.next;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  get armed(): number[] {
    return [...this.pending.values()].map((p) => p.ms);
  }
  fireAll(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const p of due) p.fn();
  }
}

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  url: string;
  received: Received[];
  /** Resolves once `n` requests have arrived whole. */
  arrived(n: number): Promise<void>;
  /** Open sockets right now, and the most seen at once. */
  sockets: { open: number; max: number };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function webhookServer(t: Test, answer: (r: Received, res: ServerResponse) => void): Promise<TestServer> {
  const received: Received[] = [];
  let waiters: Array<{ n: number; resolve: () => void }> = [];
  const sockets = { open: 0, max: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      answer(r, res);
      waiters = waiters.filter((w) => (received.length >= w.n ? (w.resolve(), false) : true));
    });
  });
  server.on('connection', (socket) => {
    sockets.max = Math.max(sockets.max, ++sockets.open);
    socket.on('close', () => sockets.open--);
  });
  const url = await listen(server);
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url,
    received,
    sockets,
    arrived: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function client(t: Test, opts: ConstructorParameters<typeof PolicyWebhook>[0] = {}): PolicyWebhook {
  const c = new PolicyWebhook({ clock: new ManualClock(NOW), ...opts });
  t.teardown(() => c.close());
  return c;
}

function hook(url: string, timeoutMs = 2_000): Webhook {
  return { url, timeoutMs, onTimeout: 'reject', secret: SECRET };
}

t.test('approve: the summary arrives signed, and {"sponsor": true} sponsors', async (t) => {
  const s = await webhookServer(t, (_r, res) => json(res, 200, { sponsor: true }));
  const timers = new ManualTimers();
  const c = client(t, { timers });
  t.same(await c.ask(hook(`${s.url}/sponsor?k=v`), SUMMARY), { kind: 'sponsor' });
  t.same(timers.armed, [], 'the deadline is cleared once answered');

  const [r] = s.received;
  t.equal(r?.method, 'POST');
  t.equal(r?.url, '/sponsor?k=v', 'path and query as configured');
  t.same(JSON.parse(r!.body), SUMMARY, 'the body is the summary');
  t.equal(r?.body, JSON.stringify(SUMMARY), 'sent as its JSON text');
  t.equal(r?.headers['content-type'], 'application/json');
  t.equal(r?.headers['user-agent'], 'nightgate');
  t.equal(r?.headers['x-nightgate-request-id'], SUMMARY.id);
  t.equal(r?.headers.authorization, undefined, 'no credentials in the URL, none sent');
  const signature = r?.headers['x-nightgate-signature'] as string;
  t.match(signature, /^t=1750000000,v1=[0-9a-f]{64}$/, 'signed at the injected clock');
  t.ok(verifyWebhookSignature(SECRET, r!.body, signature, NOW + 1_000), 'the receiver verifies it');
  t.notOk(verifyWebhookSignature('not-the-owners-secret', r!.body, signature, NOW), 'only with the secret');
});

t.test('deny: a 2xx JSON answer without "sponsor": true, with or without a reason', async (t) => {
  const answers: Array<[number, unknown]> = [
    [200, { sponsor: false, reason: '  not this contract  ' }],
    [200, { sponsor: false }],
    [201, { sponsor: 'true', reason: 42 }],
    [200, { reason: `line\none\u0000\u001b[31m${'x'.repeat(300)}` }],
    [200, true],
    [200, null],
    [200, ['sponsor', true]],
    [204, {}],
  ];
  let i = 0;
  const s = await webhookServer(t, (_r, res) => {
    const [status, body] = answers[i++]!;
    json(res, status, body);
  });
  const c = client(t);
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'deny', reason: 'not this contract' }, 'reason trimmed');
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'deny' }, 'no reason');
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'deny' }, '"true" is not true; a reason that is not a string is dropped');
  const long = await c.ask(hook(s.url), SUMMARY);
  t.equal(long.kind, 'deny');
  const reason = (long as { reason?: string }).reason ?? '';
  t.equal(reason.length, 200, 'at most 200 characters');
  t.match(reason, /^line one \[31mx+$/, 'control characters and line breaks become single spaces');
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'deny' }, 'JSON true');
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'deny' }, 'JSON null');
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'deny' }, 'an array');
  // A 204 has no body at all: not JSON.
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'HTTP 204 with a body that is not JSON' }, 'an empty 2xx');
  t.equal(s.received.length, answers.length, 'one request per question');
});

t.test('a non-2xx answer is unavailable, and a redirect is not followed', async (t) => {
  const elsewhere = await webhookServer(t, (_r, res) => json(res, 200, { sponsor: true }));
  const statuses = [500, 302, 404, 429];
  let i = 0;
  const s = await webhookServer(t, (_r, res) => {
    const status = statuses[i++]!;
    if (status === 302) res.writeHead(302, { location: `${elsewhere.url}/` }).end();
    else json(res, status, { sponsor: true });
  });
  const c = client(t);
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'HTTP 500' }, 'even with "sponsor": true in its body');
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'HTTP 302 (redirects are not followed)' });
  t.equal(elsewhere.received.length, 0, 'the redirect target is never asked');
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'HTTP 404' });
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'HTTP 429' });
  t.equal(s.received.length, 4, 'no retries');
});

t.test('no answer before the deadline is unavailable: headers or body held back', async (t) => {
  const held: ServerResponse[] = [];
  const s = await webhookServer(t, (_r, res) => {
    if (held.length === 1) res.writeHead(200, { 'content-type': 'application/json' }).write('{"sponsor":');
    held.push(res);
  });
  t.teardown(() => held.forEach((res) => res.destroy()));
  const timers = new ManualTimers();
  const c = client(t, { timers });

  const noHeaders = c.ask(hook(s.url, 750), SUMMARY);
  await s.arrived(1);
  t.same(timers.armed, [750], 'one deadline of timeoutMs');
  timers.fireAll();
  t.same(await noHeaders, { kind: 'unavailable', reason: 'no answer within 750 ms' });
  held[0]!.end(JSON.stringify({ sponsor: true }));

  const halfBody = c.ask(hook(s.url, 750), SUMMARY);
  await s.arrived(2);
  timers.fireAll();
  t.same(await halfBody, { kind: 'unavailable', reason: 'no answer within 750 ms' }, 'the deadline covers the body');
  held[1]!.end('true}');
  t.same(timers.armed, [], 'nothing left armed');
});

t.test('the real deadline: a 100 ms timeout answers in about 100 ms', async (t) => {
  const held: ServerResponse[] = [];
  const s = await webhookServer(t, (_r, res) => held.push(res));
  t.teardown(() => held.forEach((res) => res.destroy()));
  const c = new PolicyWebhook();
  t.teardown(() => c.close());
  const started = performance.now();
  const verdict = await c.ask(hook(s.url, 100), SUMMARY);
  const took = performance.now() - started;
  t.same(verdict, { kind: 'unavailable', reason: 'no answer within 100 ms' });
  t.ok(took >= 95 && took < 1_000, `answered after ${Math.round(took)} ms`);
  t.equal(held.length, 1, 'the server held the request until the client gave up');
  held[0]!.end(JSON.stringify({ sponsor: true }));
});

t.test('an answer larger than the cap is unavailable, declared or streamed', async (t) => {
  const pad = 'x'.repeat(17 * 1024);
  let i = 0;
  const s = await webhookServer(t, (_r, res) => {
    if (i++ === 0) return json(res, 200, { sponsor: true, pad });
    // Chunked, no declared length: refused while reading.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"sponsor": true, "pad": "');
    res.write(pad);
    res.end('"}');
  });
  const c = client(t);
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'answer larger than 16384 bytes' }, 'by content-length');
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'answer larger than 16384 bytes' }, 'while streaming');
});

t.test('a 2xx body that is not JSON is unavailable', async (t) => {
  const s = await webhookServer(t, (_r, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('sponsor: true'));
  const c = client(t);
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'HTTP 200 with a body that is not JSON' });
});

t.test('a refused connection is unavailable, and names no credential of the URL', async (t) => {
  const gone = createServer();
  const url = await listen(gone);
  await new Promise((resolve) => gone.close(resolve));
  const c = client(t);
  const verdict = await c.ask(hook(url.replace('http://', 'http://owner:PASSWORD@') + '/hook?token=TOKEN'), SUMMARY);
  t.same(verdict, { kind: 'unavailable', reason: 'unreachable: ECONNREFUSED' });
});

t.test('credentials in the URL go as Basic authorization, never into a reason', async (t) => {
  const s = await webhookServer(t, (_r, res) => json(res, 503, { error: 'down' }));
  const c = client(t);
  const url = s.url.replace('http://', 'http://owner%40x:PASS%3AWORD@') + '/hook?token=TOKEN';
  const verdict = await c.ask(hook(url), SUMMARY);
  t.same(verdict, { kind: 'unavailable', reason: 'HTTP 503' });
  t.notMatch(JSON.stringify(verdict), /PASS|TOKEN|owner|127\.0\.0\.1|the-key-owners/);
  t.equal(s.received[0]?.headers.authorization, `Basic ${Buffer.from('owner@x:PASS:WORD').toString('base64')}`);
  t.equal(s.received[0]?.url, '/hook?token=TOKEN');
});

t.test("the caller's abort ends the question: unavailable, reason aborted", async (t) => {
  const held: ServerResponse[] = [];
  const s = await webhookServer(t, (_r, res) => held.push(res));
  t.teardown(() => held.forEach((res) => res.destroy()));
  const timers = new ManualTimers();
  const c = client(t, { timers });

  const caller = new AbortController();
  const asked = c.ask(hook(s.url), SUMMARY, caller.signal);
  await s.arrived(1);
  caller.abort();
  t.same(await asked, { kind: 'unavailable', reason: 'aborted' });
  t.same(timers.armed, [], 'its deadline is cleared');

  t.same(await c.ask(hook(s.url), SUMMARY, AbortSignal.abort()), { kind: 'unavailable', reason: 'aborted' }, 'already aborted: not sent');
  t.equal(s.received.length, 1);
});

t.test('connections per origin are bounded; waiting questions are answered in turn', async (t) => {
  const held: ServerResponse[] = [];
  const s = await webhookServer(t, (_r, res) => held.push(res));
  const c = client(t, { connectionsPerOrigin: 2 });
  const asked = Array.from({ length: 5 }, (_, i) => c.ask(hook(s.url), { ...SUMMARY, id: `q-${i}` }));
  await s.arrived(2);
  t.equal(s.received.length, 2, 'two in flight, three waiting');
  let answered = 0;
  while (answered < 5) {
    await s.arrived(answered + 1);
    json(held[answered++]!, 200, { sponsor: true });
  }
  t.same(await Promise.all(asked), Array(5).fill({ kind: 'sponsor' }));
  t.ok(s.sockets.max <= 2, `at most 2 sockets at once (saw ${s.sockets.max})`);
  t.same(s.received.map((r) => r.headers['x-nightgate-request-id']).sort(), ['q-0', 'q-1', 'q-2', 'q-3', 'q-4']);
});

t.test('after close(), questions are unavailable', async (t) => {
  const s = await webhookServer(t, (_r, res) => json(res, 200, { sponsor: true }));
  const c = new PolicyWebhook();
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'sponsor' });
  await c.close();
  t.same(await c.ask(hook(s.url), SUMMARY), { kind: 'unavailable', reason: 'closing' });
  t.equal(s.received.length, 1);
});

t.test("the docs' receiver snippet, run as written, verifies and answers", async (t) => {
  const doc = await readFile(new URL('../../docs/policy-webhook.md', import.meta.url), 'utf8');
  const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  t.equal(blocks.length, 1, 'one JavaScript block: the receiver');
  const dir = await mkdtemp(join(tmpdir(), 'nightgate-webhook-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'receiver.mjs');
  await writeFile(file, blocks[0]!);

  const child = spawn(process.execPath, [file], {
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.teardown(async () => {
    child.kill();
    await exited;
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const bound = setTimeout(() => reject(new Error(`the snippet did not start: ${stderr}`)), 10_000);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (\d+)/.exec(out);
      if (m) {
        clearTimeout(bound);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(bound);
      reject(new Error(`the snippet exited (${code}): ${stderr}`));
    });
  });

  // The snippet reads Date.now(): sign with the real clock.
  const c = new PolicyWebhook();
  t.teardown(() => c.close());
  const url = `http://127.0.0.1:${port}/`;
  t.same(await c.ask(hook(url), SUMMARY), { kind: 'sponsor' }, 'a fee within its limit');
  t.same(await c.ask(hook(url), { ...SUMMARY, id: 'q-big', fee: '5000000000000' }), { kind: 'deny', reason: 'fee above our limit' }, 'above it');
  t.same(await c.ask(hook(url), SUMMARY), { kind: 'unavailable', reason: 'HTTP 409' }, 'a replayed id is refused');
  t.same(
    await c.ask({ ...hook(url), secret: 'not-the-owners-secret' }, { ...SUMMARY, id: 'q-forged' }),
    { kind: 'unavailable', reason: 'HTTP 401' },
    'a wrong signature is refused',
  );
  const stale = new PolicyWebhook({ clock: { now: () => Date.now() - 600_000 } });
  t.teardown(() => stale.close());
  t.same(await stale.ask(hook(url), { ...SUMMARY, id: 'q-stale' }), { kind: 'unavailable', reason: 'HTTP 401' }, 'a stale timestamp is refused');
  t.equal(stderr, '', 'the snippet printed no error');
});
