/** The client's calls against a scripted fetch: URLs, headers, errors, and which refusals are retried, when, how often. */
import t from 'tap';
import { createClient, isNightgateError, NightgateError, type FetchLike, type RequestInitLike } from '@nightgate/client';
import { parseRetryAfter } from '../../../packages/client/src/retry.js';

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A fetch that answers `answers` in order (the last one again when they run out) and records each request. */
function scripted(...answers: Answer[]) {
  const requests: Array<{ url: string; init: RequestInitLike }> = [];
  const fetch: FetchLike = async (url, init) => {
    requests.push({ url, init });
    const a = answers[Math.min(requests.length - 1, answers.length - 1)]!;
    const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? {});
    const headers = new Map(Object.entries(a.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    return {
      status: a.status,
      headers: { get: (n: string) => headers.get(n.toLowerCase()) ?? null },
      text: async () => text,
      arrayBuffer: async () => new TextEncoder().encode(text).buffer as ArrayBuffer,
    };
  };
  return { fetch, requests };
}

/** A sleep that does not wait: it records what it was asked. */
function fakeSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const refusal = (status: number, code: string, retryAfter?: string): Answer => ({
  status,
  body: { error: 'x', message: `${code} happened`, code },
  headers: retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
});
const OK = { status: 200, body: { ok: true } };

t.test('URLs, the key only where a key is taken, the network header, binary bodies', async (t) => {
  const { fetch, requests } = scripted(OK);
  const c = createClient({ baseUrl: 'http://h:1/prefix/', apiKey: 'k', fetch });
  await c.summary('preview');
  await c.addressActivity('mainnet', 'mn_addr 1&x', { limit: 5 });
  await c.block('preview', 7);
  await c.block('preview', 'ab'.repeat(32));
  await c.recentTransactions('preprod');
  await c.health();
  await c.balanceOnly({ serialize: () => new Uint8Array([1, 2]) }, { network: 'preprod' });
  t.strictSame(
    requests.map((r) => r.url),
    [
      'http://h:1/prefix/api/v1/preview/summary',
      'http://h:1/prefix/api/v1/mainnet/address-activity?identifier=mn_addr%201%26x&limit=5',
      'http://h:1/prefix/api/v1/preview/block?height=7',
      `http://h:1/prefix/api/v1/preview/block?hash=${'ab'.repeat(32)}`,
      'http://h:1/prefix/api/v1/preprod/recent-transactions',
      'http://h:1/prefix/health',
      'http://h:1/prefix/balance-only',
    ],
  );
  t.equal(requests[0]!.init.headers['X-API-Key'], undefined, 'no key to the public statistics');
  t.equal(requests[5]!.init.headers['X-API-Key'], 'k', '/health takes a key');
  t.strictSame(requests[6]!.init.headers, { 'X-Midnight-Network': 'preprod', 'X-API-Key': 'k', 'Content-Type': 'application/octet-stream' });
  t.strictSame([...requests[6]!.init.body!], [1, 2], 'a transaction object is sent serialized');
  t.equal(c.pushUrl('preview'), 'ws://h:1/prefix/api/v1/preview/ws');
});

t.test('an error answer rejects with its code, status, message and Retry-After', async (t) => {
  const { fetch } = scripted(refusal(404, 'BLOCK_NOT_FOUND'), { status: 502, body: '<html>bad gateway</html>' });
  const c = createClient({ baseUrl: 'http://h', fetch, retries: 0 });
  const err = await c.block('preview', 9).catch((e: unknown) => e);
  t.ok(err instanceof NightgateError);
  t.match(err, { status: 404, code: 'BLOCK_NOT_FOUND', message: 'BLOCK_NOT_FOUND happened', title: 'x', retryAfter: undefined });
  t.ok(isNightgateError(err, 'BLOCK_NOT_FOUND', 'NOT_FOUND') && !isNightgateError(err, 'UNAUTHORIZED'));
  const other = await c.summary('preview').catch((e: unknown) => e);
  t.match(other, { status: 502, code: 'UNKNOWN', message: /^HTTP 502: <html>bad gateway/, body: '<html>bad gateway</html>' }, 'not a nightgate body: UNKNOWN');
});

t.test('Retry-After: delay-seconds or an HTTP date', async (t) => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);
  t.equal(parseRetryAfter('7', now), 7);
  t.equal(parseRetryAfter(' 0 ', now), 0);
  t.equal(parseRetryAfter(new Date(now + 4500).toUTCString(), now), 4, 'a date: the whole seconds from now (the date has no fraction)');
  t.equal(parseRetryAfter(new Date(now - 60_000).toUTCString(), now), 0, 'a past date: now');
  t.equal(parseRetryAfter('soon', now), undefined);
  t.equal(parseRetryAfter(null, now), undefined);
});

t.test('a GET refused 503 or 429 is retried after Retry-After, then resolves', async (t) => {
  const { fetch, requests } = scripted(refusal(503, 'NOT_READY', '2'), refusal(429, 'RATE_LIMITED', '1'), OK);
  const s = fakeSleep();
  const c = createClient({ baseUrl: 'http://h', fetch, retries: { sleep: s.sleep } });
  t.strictSame(await c.summary('preview'), { ok: true });
  t.equal(requests.length, 3);
  t.strictSame(s.waits, [2000, 1000]);
});

t.test('without Retry-After the wait doubles, capped', async (t) => {
  const { fetch } = scripted(refusal(503, 'INDEXER_BUSY'));
  const s = fakeSleep();
  const c = createClient({ baseUrl: 'http://h', fetch, retries: { attempts: 5, baseDelayMs: 100, maxDelayMs: 500, sleep: s.sleep } });
  await t.rejects(c.search('preview', 'x'), { code: 'INDEXER_BUSY' });
  t.strictSame(s.waits, [100, 200, 400, 500, 500]);
});

t.test('bounded: attempts, and the total wait', async (t) => {
  const always = scripted(refusal(503, 'NOT_READY', '1'));
  const s = fakeSleep();
  const c = createClient({ baseUrl: 'http://h', fetch: always.fetch, retries: { attempts: 2, sleep: s.sleep } });
  await t.rejects(c.epoch('preview'), { code: 'NOT_READY', retryAfter: 1 });
  t.equal(always.requests.length, 3, 'the first attempt and 2 retries');

  const long = scripted(refusal(503, 'WALLET_SYNCING', '30'));
  const s2 = fakeSleep();
  const c2 = createClient({ baseUrl: 'http://h', fetch: long.fetch, retries: { maxWaitMs: 45_000, sleep: s2.sleep } });
  await t.rejects(c2.balanceOnly(new Uint8Array([1])), { code: 'WALLET_SYNCING', retryAfter: 30 });
  t.strictSame(s2.waits, [30_000], 'a second 30 s wait would pass 45 s: the refusal is returned instead');
  t.equal(long.requests.length, 2);

  const off = scripted(refusal(503, 'NOT_READY', '1'));
  await t.rejects(createClient({ baseUrl: 'http://h', fetch: off.fetch, retries: false }).uptime('preview'), { code: 'NOT_READY' });
  t.equal(off.requests.length, 1, 'retries: false');
});

t.test('sponsorship: only refusals that reserved nothing are retried', async (t) => {
  for (const [answer, retried] of [
    [refusal(503, 'NO_DUST_AVAILABLE', '1'), true],
    [refusal(503, 'CHAIN_STALE', '6'), true],
    [refusal(503, 'KEY_QUEUE_FULL', '1'), true],
    [refusal(503, 'FEE_UNSETTLED', '6'), true],
    [refusal(503, 'WALLET_SYNCING', '1'), true],
    [refusal(429, 'RATE_LIMITED', '1'), true],
    [refusal(429, 'RESERVATION_LIMIT', '1'), true],
    [refusal(503, 'BUDGET_UNAVAILABLE', '1'), true],
    [refusal(503, 'QUEUE_FULL', '1'), true],
    [refusal(429, 'DUST_BUDGET_EXCEEDED', '60'), false],
    [refusal(503, 'SHUTTING_DOWN', '1'), false],
    [refusal(403, 'FEE_CAP_EXCEEDED', '1'), false],
    [refusal(400, 'TRANSACTION_REJECTED'), false],
    [{ status: 503, body: 'proxy says no', headers: { 'Retry-After': '1' } }, false],
  ] as Array<[Answer, boolean]>) {
    const { fetch, requests } = scripted(answer, { status: 200, body: { tx: '00' } });
    const c = createClient({ baseUrl: 'http://h', fetch, retries: { sleep: async () => undefined } });
    const got = await c.proveAndBalance(new Uint8Array([9])).then(
      () => 'resolved',
      (e: NightgateError) => e.code,
    );
    t.equal(got, retried ? 'resolved' : ((answer.body as { code?: string }).code ?? 'UNKNOWN'), `${answer.status} ${JSON.stringify(answer.body)}`);
    t.equal(requests.length, retried ? 2 : 1);
    if (retried) t.strictSame([...requests[1]!.init.body!], [9], 'the same bytes again (the server answers them once)');
  }
});

t.test('idempotent routes retry any 503/429 but the permanent ones; /readyz never', async (t) => {
  const proxy = scripted({ status: 503, body: 'maintenance', headers: { 'Retry-After': '1' } }, { status: 200, body: 'binary' });
  const c = createClient({ baseUrl: 'http://h', apiKey: 'k', fetch: proxy.fetch, retries: { sleep: async () => undefined } });
  t.equal(new TextDecoder().decode((await c.prove(new Uint8Array([1]))).bytes), 'binary', 'proving is a function of its body: retried');

  const keys = scripted(refusal(503, 'PROVER_KEYS_MISSING'));
  await t.rejects(createClient({ baseUrl: 'http://h', fetch: keys.fetch, retries: { sleep: async () => undefined } }).prove(new Uint8Array([1])), {
    code: 'PROVER_KEYS_MISSING',
  });
  t.equal(keys.requests.length, 1, 'waiting does not provision keys');

  const ready = scripted({
    status: 503,
    body: { error: 'Service Unavailable', message: 'not yet', code: 'SERVER_NOT_READY', status: 'not-ready', missing: ['dust:preview'] },
    headers: { 'Retry-After': '1' },
  });
  const err = await createClient({ baseUrl: 'http://h', fetch: ready.fetch, retries: { sleep: async () => undefined } })
    .readyz()
    .catch((e: NightgateError) => e);
  t.match(err, { code: 'SERVER_NOT_READY', body: { missing: ['dust:preview'] } });
  t.equal(ready.requests.length, 1);
});

t.test('an abort during the wait rejects the call', async (t) => {
  const { fetch, requests } = scripted(refusal(503, 'NOT_READY', '100'));
  const ac = new AbortController();
  const c = createClient({ baseUrl: 'http://h', fetch, retries: { maxWaitMs: 1_000_000 } });
  const p = c.summary('preview', { signal: ac.signal });
  setImmediate(() => ac.abort(new Error('stop')));
  await t.rejects(p, { message: 'stop' });
  t.equal(requests.length, 1);
});

t.test('onResponse sees each answer', async (t) => {
  const { fetch } = scripted({ status: 200, body: { tx: 'ab' }, headers: { 'X-Dedupe': 'HIT' } });
  const seen: string[] = [];
  await createClient({ baseUrl: 'http://h', fetch }).balanceOnly(new Uint8Array([1]), {
    onResponse: (a) => seen.push(`${a.status} ${a.headers.get('x-dedupe')}`),
  });
  t.strictSame(seen, ['200 HIT']);
});
