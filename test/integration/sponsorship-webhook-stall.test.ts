/**
 * A key whose policy webhook never answers cannot stall another key's proofs. Its sponsorships
 * wait for the webhook on the main thread, holding no worker thread: with more of them pending
 * than the pool has threads, the pool runs nothing and queues nothing, and another key's `/prove`
 * is answered while every one of those webhook questions is still open. Nothing is reserved while
 * they wait, and a webhook that then declines leaves nothing held.
 *
 * No timing is asserted: the webhook stub holds each request until the test answers it, and the
 * webhook's own timeout (20 s) only bounds how long a regression takes to show (with threads held
 * by waiting tasks, the questions past the thread count are never asked before a timeout frees one).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { request } from 'undici';
import { sha256Hex } from '../../src/core/guards/auth.js';
import { WORKER_POOL } from '../../src/features/proving/index.js';
import type { WorkerPool } from '../../src/infra/pool/worker-pool.js';
import { ledger, type Era } from '../../src/infra/ledger/index.js';
import { counterDeploy } from '../../packages/devnet/src/counter-contract.js';
import { kitFor } from '../../packages/devnet/src/ledger-kit.js';
import { TEST_KEY } from '../helpers/app.js';
import { proveBody } from '../fixtures/prover/samples.js';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp } from '../fixtures/dust/sponsor-app.js';

const STALLED = 'key-stalled-0123456789ab';
const SECRET = 'webhook-secret-0123456789';
/** More sponsorships waiting on the webhook than the pool has threads (2), within its 8 connections. */
const PENDING = 6;

interface HoldingHook {
  url: string;
  /** Requests received whole, each held open until answered. */
  readonly held: ServerResponse[];
  /** Requests whose client gave up (the webhook timeout) before an answer. */
  closed: number;
  /** Resolves once `n` requests are held, or as soon as one was given up on. */
  until(n: number): Promise<void>;
  close(): Promise<void>;
}

async function holdingHook(): Promise<HoldingHook> {
  let wake: () => void = () => undefined;
  const hook: HoldingHook = {
    url: '',
    held: [],
    closed: 0,
    until: (n) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (hook.held.length >= n || hook.closed > 0) resolve();
        };
        wake = check;
        check();
      }),
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hook.held.push(res);
      res.on('close', () => {
        if (!res.writableEnded) {
          hook.closed++;
          wake();
        }
      });
      wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sponsor`;
  hook.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return hook;
}

/** A contract deployment, unproven and unsigned, distinct per `n` (its TTL): no unshielded input to check. */
function deployBody(era: Era, n: number): Uint8Array {
  const L = ledger(era);
  const intent = L.Intent.new(new Date(Date.now() + 10 * 60_000 + n * 1000)).addDeploy(counterDeploy(kitFor(era)));
  return L.Transaction.fromParts('undeployed', undefined, undefined, intent).serialize();
}

t.setTimeout(240_000);

const era = SPONSOR_ERAS.at(-1)!;

t.test(`ledger ${era}: sponsorships waiting on a silent webhook hold no worker thread; another key's /prove is answered meanwhile`, async (t) => {
  const hook = await holdingHook();
  t.teardown(() => hook.close());
  const keys = [
    { id: 'stalled', sha256: sha256Hex(STALLED), policy: { webhook: { url: hook.url, timeoutMs: 20_000, onTimeout: 'reject' as const, secret: SECRET } } },
  ];
  const app = await startSponsorApp(eraOverrides(era, { auth: { keys }, rateLimit: { limit: 10_000 } }));
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');
  const pool = app.app.context.component<WorkerPool>(WORKER_POOL)!;
  const threads = pool.health().maxThreads;
  t.ok(PENDING > threads, `more sponsorships than the pool's ${threads} threads`);
  const table = app.service.network('preview')!.table;
  const reserved = table.counts().reserved;

  const sponsorships = Array.from({ length: PENDING }, (_, i) => app.post('/prove-and-balance', deployBody(era, i), { 'x-api-key': STALLED }));
  await hook.until(PENDING);
  t.equal(hook.closed, 0, 'no webhook question was given up on');
  t.equal(hook.held.length, PENDING, 'every sponsorship has asked the webhook: none waits for a thread held by another');
  t.match(pool.health(), { running: 0, queueSize: 0 }, 'and none holds or waits for a worker thread while its webhook is pending');
  t.equal(app.service.held('preview', 'stalled'), PENDING, "each holds a place in its own key's share");
  t.equal(table.counts().reserved, reserved, 'nothing is reserved before the policy has answered');

  const proof = await request(`${app.url}/prove`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' },
    body: proveBody(undefined, 4242n, era),
  });
  await proof.body.arrayBuffer();
  t.equal(proof.statusCode, 200, "another key's /prove is answered");
  t.equal(hook.closed, 0, 'while every webhook question was still open');
  t.equal(hook.held.filter((res) => !res.writableEnded).length, PENDING);

  for (const res of hook.held) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sponsor: false, reason: 'not now' }));
  const answers = await Promise.all(sponsorships);
  t.same(
    answers.map((a) => [a.status, a.json['code']]),
    Array(PENDING).fill([403, 'POLICY_DENIED']),
    'the webhook declined each',
  );
  t.equal(table.counts().reserved, reserved, 'nothing was reserved');
  t.equal(app.service.held('preview', 'stalled'), 0, 'and the key holds nothing');
});
