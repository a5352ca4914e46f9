/**
 * Retries over real HTTP: a tiny server answers 503 (or 429) with Retry-After, then 200; the
 * client waits what the server said (an injected sleep records it instead of waiting) and
 * resolves with the body. A sponsorship refusal that may have reserved DUST is not sent again.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createClient } from '@nightgate/client';

type Reply = (req: IncomingMessage, res: ServerResponse) => void;

/** A server on 127.0.0.1:0 answering each request with the next of `replies` (the last one again when they run out). */
async function scripted(t: Test, replies: Reply[]): Promise<{ url: string; seen: Array<{ url: string; body: Buffer; key: string | undefined }> }> {
  const seen: Array<{ url: string; body: Buffer; key: string | undefined }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', body: Buffer.concat(chunks), key: req.headers['x-api-key'] as string | undefined });
      replies[Math.min(seen.length - 1, replies.length - 1)]!(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const refuse =
  (status: number, code: string, retryAfter: string): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after': retryAfter });
    res.end(JSON.stringify({ error: 'Service Unavailable', message: `${code} now`, code }));
  };
const json =
  (body: unknown): Reply =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

t.test('503 with Retry-After, then 200: the client waits as told and resolves', async (t) => {
  const { url, seen } = await scripted(t, [
    refuse(503, 'NOT_READY', '3'),
    refuse(429, 'RATE_LIMITED', 'Thu, 01 Jan 2026 00:00:02 GMT'),
    json({ network: { id: 'preview' } }),
  ]);
  const waits: number[] = [];
  const client = createClient({ baseUrl: url, retries: { sleep: async (ms) => void waits.push(ms), now: () => Date.UTC(2026, 0, 1) } });
  t.match(await client.summary('preview'), { network: { id: 'preview' } });
  t.strictSame(waits, [3000, 2000], 'delay-seconds, then an HTTP date read against the injected clock');
  t.strictSame(
    seen.map((s) => s.url),
    Array(3).fill('/api/v1/preview/summary'),
  );
});

t.test('a sponsorship refused NO_DUST_AVAILABLE is sent again, the same bytes; FEE_CAP_EXCEEDED is not', async (t) => {
  const sponsored = {
    tx: 'ab',
    txHash: 'cd'.repeat(32),
    identifiers: [],
    network: 'preview',
    fee: '1',
    feeUnit: 'SPECK',
    expiresAt: '2026-01-01T00:00:00.000Z',
    dustUtxo: { wallet: 0, slot: 1 },
  };
  const { url, seen } = await scripted(t, [refuse(503, 'NO_DUST_AVAILABLE', '1'), json(sponsored)]);
  const waits: number[] = [];
  const client = createClient({ baseUrl: url, apiKey: 'k', retries: { sleep: async (ms) => void waits.push(ms) } });
  t.strictSame(await client.balanceOnly(new Uint8Array([5, 6, 7])), sponsored);
  t.strictSame(waits, [1000]);
  t.strictSame(
    seen.map((s) => [s.url, [...s.body], s.key]),
    [
      ['/balance-only', [5, 6, 7], 'k'],
      ['/balance-only', [5, 6, 7], 'k'],
    ],
  );

  const capped = await scripted(t, [refuse(403, 'FEE_CAP_EXCEEDED', '6'), json(sponsored)]);
  const c2 = createClient({ baseUrl: capped.url, apiKey: 'k', retries: { sleep: async () => undefined } });
  await t.rejects(c2.proveAndBalance(new Uint8Array([1])), { status: 403, code: 'FEE_CAP_EXCEEDED', retryAfter: 6 });
  t.equal(capped.seen.length, 1, 'a 403 is an answer, not a "not now"');
});
