/**
 * Key policies end to end, on each ledger era: every rule refuses with its status, code and `rule`
 * before anything is reserved (the allocator's reserved count and the key's holdings unchanged),
 * and lets through what it allows. The webhook runs against a local HTTP server that checks the
 * signature as a receiver would.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { request } from 'undici';
import { createClient } from '@nightgate/client';
import { ManualClock } from '../helpers/manual-clock.js';
import { sha256Hex } from '../../src/core/guards/auth.js';
import { ledger, type Era } from '../../src/infra/ledger/index.js';
import { counterDeploy, counterIncrement } from '../../packages/devnet/src/counter-contract.js';
import { kitFor } from '../../packages/devnet/src/ledger-kit.js';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp, type SponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { verifyWebhookSignature } from '../helpers/webhook-receiver.js';

const SECRET = 'webhook-secret-0123456789';
const KEYS = {
  transfers: 'key-transfers-0123456789',
  contracts: 'key-contracts-0123456789',
  later: 'key-later-0123456789abcd',
  over: 'key-over-0123456789abcde',
  capped: 'key-capped-0123456789abc',
  client: 'key-client-0123456789abc',
  hook: 'key-hook-0123456789abcde',
  hookDown: 'key-hookdown-0123456789a',
  hookLenient: 'key-hooklenient-0123456',
} as const;

interface Hook {
  url: string;
  verdict: 'sponsor' | 'deny';
  seen: Array<{ body: Record<string, unknown>; signed: boolean }>;
  close(): Promise<void>;
}

/** The key owner's service: verifies each request's signature and answers the verdict set. */
async function startHook(clock: ManualClock): Promise<Hook> {
  const hook: Hook = { url: '', verdict: 'sponsor', seen: [], close: async () => undefined };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const signed = verifyWebhookSignature(SECRET, raw, String(req.headers['x-nightgate-signature'] ?? ''), clock.now());
      hook.seen.push({ body: JSON.parse(raw) as Record<string, unknown>, signed });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(hook.verdict === 'sponsor' ? { sponsor: true } : { sponsor: false, reason: 'not one of our users' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sponsor`;
  hook.close = () => new Promise((resolve) => server.close(() => resolve()));
  return hook;
}

function keysFor(now: number, hookUrl: string) {
  const key = (id: keyof typeof KEYS, policy: Record<string, unknown>) => ({ id, sha256: sha256Hex(KEYS[id]), policy });
  const perUser = { maxSponsorships: 1, windowMs: 3_600_000 };
  return [
    key('transfers', { allow: { nightTransfers: true } }),
    key('contracts', { allow: { contracts: [{ address: 'ab'.repeat(32) }] } }),
    key('later', { validFrom: new Date(now + 3_600_000).toISOString() }),
    key('over', { validUntil: new Date(now - 1).toISOString() }),
    key('capped', { perUser }),
    key('client', { perUser: { ...perUser, userFrom: 'client-id' } }),
    key('hook', { webhook: { url: hookUrl, onTimeout: 'reject', secret: SECRET } }),
    key('hookDown', { webhook: { url: 'http://127.0.0.1:9/sponsor', onTimeout: 'reject', secret: SECRET } }),
    key('hookLenient', { webhook: { url: 'http://127.0.0.1:9/sponsor', onTimeout: 'sponsor', secret: SECRET } }),
  ];
}

/** A contract deployment, unproven and unsigned (a deploy needs neither). */
function deployBody(era: Era): Uint8Array {
  const L = ledger(era);
  const intent = L.Intent.new(new Date(Date.now() + 10 * 60_000)).addDeploy(counterDeploy(kitFor(era)));
  return L.Transaction.fromParts('undeployed', undefined, undefined, intent).serialize();
}

// A devnet, a synced pool and two funded users per era: minutes on a loaded 2-core machine.
t.setTimeout(180_000 * SPONSOR_ERAS.length);

/**
 * An unproven call of the counter's `increment`, built against a state holding a counter of its
 * own (the devnet never deployed it: the call could not land, but it is judged before that).
 */
function callBody(era: Era): { body: Uint8Array; address: string } {
  const kit = kitFor(era);
  const L = kit.L;
  const deploy = counterDeploy(kit);
  const state = L.LedgerState.blank('undeployed').updateIndex(deploy.address, deploy.initialState.data, new Map());
  const call = counterIncrement(kit, state, deploy.address);
  if (!call) throw new Error('the counter is not in the state');
  const intent = L.Intent.new(new Date(Date.now() + 10 * 60_000)).addCall(call);
  return { body: L.Transaction.fromParts('undeployed', undefined, undefined, intent).serialize(), address: deploy.address };
}

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: each policy rule, nothing reserved on refusal`, async (t) => {
    const clock = new ManualClock(Date.now());
    const hook = await startHook(clock);
    t.teardown(() => hook.close());
    const app: SponsorApp = await startSponsorApp(eraOverrides(era, { auth: { keys: keysFor(clock.now(), hook.url) }, rateLimit: { limit: 10_000 } }), clock);
    t.teardown(() => app.close());
    await app.service.whenSynced('preview');
    const table = app.service.network('preview')!.table;
    // An answered sponsorship holds its inputs (409 INPUT_HELD to any other spend of them, checked
    // before the policy): each transfer below spends a UTXO of its own (16 of the user's, 1 of the other's).
    const { user, utxo, utxos } = await app.fundedUser(71, 100_000_000n, 20);
    const other = await app.fundedUser(72, 100_000_000n);
    const to = freshUser(73, era).address;
    let amount = 1_000n;
    let next = 0;
    /** A distinct transfer each time (the dedupe answers the same bytes once), of a UTXO not spent before. */
    const transfer = (from?: { user: typeof user; utxo: typeof utxo }) => {
      const spend = from ?? { user, utxo: utxos[next++]! };
      if (spend.utxo === undefined) throw new Error("the test spends more of the user's UTXOs than it funded");
      return transferFrom(spend.user, spend.utxo, to, amount++).serialize();
    };
    const as = (key: keyof typeof KEYS, body: Uint8Array, headers: Record<string, string> = {}) =>
      app.post('/prove-and-balance', body, { 'x-api-key': KEYS[key], ...headers });

    /** Refused with `status`, `code` and `rule`, holding nothing. */
    async function refused(
      what: string,
      key: keyof typeof KEYS,
      body: Uint8Array,
      status: number,
      code: string,
      rule: string | undefined,
      headers: Record<string, string> = {},
    ) {
      const before = table.counts().reserved;
      const held = app.service.held('preview', key);
      const r = await as(key, body, headers);
      t.equal(r.status, status, `${what}: ${status}`);
      t.equal(r.json['code'], code, `${what}: ${code}`);
      t.equal(r.json['rule'], rule, `${what}: rule ${rule}`);
      t.equal(table.counts().reserved, before, `${what}: nothing reserved`);
      t.equal(app.service.held('preview', key), held, `${what}: the key holds nothing more`);
      return r;
    }
    const sponsored = async (what: string, key: keyof typeof KEYS, body: Uint8Array, headers: Record<string, string> = {}) => {
      const r = await as(key, body, headers);
      t.equal(r.status, 200, `${what}: sponsored${r.status === 200 ? '' : ` (${JSON.stringify(r.json)})`}`);
      return r;
    };

    await t.test('allow', async () => {
      await sponsored('a transfer, transfers allowed', 'transfers', transfer());
      await refused('a deploy, deploys not allowed', 'transfers', deployBody(era), 403, 'POLICY_DENIED', 'allow.deploys');
      const r = await refused('a transfer, only a contract allowed', 'contracts', transfer(), 403, 'POLICY_DENIED', 'allow.nightTransfers');
      t.match(r.json['message'], /unshielded/);
      const call = callBody(era);
      const c = await refused('a call of a contract not listed', 'contracts', call.body, 403, 'POLICY_DENIED', 'allow.contracts');
      t.match(c.json['message'], call.address);
      await refused('a call, only transfers allowed', 'transfers', callBody(era).body, 403, 'POLICY_DENIED', 'allow.contracts');
    });

    await t.test('dates', async () => {
      const later = await refused('before validFrom', 'later', transfer(), 403, 'POLICY_DENIED', 'validFrom');
      t.equal(later.headers['retry-after'], '3600', 'told when it opens');
      await refused('from validUntil on', 'over', transfer(), 403, 'POLICY_DENIED', 'validUntil');
    });

    await t.test('per user, by input owner', async () => {
      await sponsored('the first of a user', 'capped', transfer());
      const cap = await refused('the second of the same user', 'capped', transfer(), 429, 'USER_LIMIT', 'perUser.maxSponsorships');
      t.ok(Number(cap.headers['retry-after']) > 0 && Number(cap.headers['retry-after']) <= 3600, 'Retry-After to the window end');
      await sponsored('another user', 'capped', transfer(other));
      await refused('a deploy names no user', 'capped', deployBody(era), 403, 'POLICY_DENIED', 'perUser');
    });

    await t.test('per user, by X-Client-ID', async () => {
      await refused('no X-Client-ID', 'client', transfer(), 400, 'INVALID_PARAMETER', undefined);
      await sponsored('client a', 'client', transfer(), { 'x-client-id': 'user-a' });
      await refused('client a again', 'client', transfer(), 429, 'USER_LIMIT', 'perUser.maxSponsorships', { 'x-client-id': 'user-a' });
      await sponsored('client b, same inputs', 'client', transfer(), { 'x-client-id': 'user-b' });
      // The typed client: X-Client-ID as an option, the refusing rule on its error.
      const client = createClient({ baseUrl: app.url, apiKey: KEYS.client, retries: false });
      t.match(await client.proveAndBalance(transfer(), { clientId: 'user-c' }), { network: 'preview', feeUnit: 'SPECK' });
      await t.rejects(client.proveAndBalance(transfer(), { clientId: 'user-c' }), {
        name: 'NightgateError',
        status: 429,
        code: 'USER_LIMIT',
        rule: 'perUser.maxSponsorships',
      });
    });

    await t.test('webhook', async () => {
      hook.verdict = 'sponsor';
      await sponsored('approved', 'hook', transfer());
      hook.verdict = 'deny';
      const denied = await refused('declined', 'hook', transfer(), 403, 'POLICY_DENIED', 'webhook');
      t.match(denied.json['message'], /not one of our users/);
      t.equal(hook.seen.length, 2, 'asked once per sponsorship');
      t.ok(
        hook.seen.every((s) => s.signed),
        'every request carries a valid signature',
      );
      t.match(hook.seen[0]!.body, {
        keyId: 'hook',
        network: 'preview',
        era,
        kind: 'prove-and-balance',
        user: user.address,
        owners: [user.address],
        effects: { nightTransfers: true, shielded: false, deploys: [] },
        calls: [],
        feeUnit: 'SPECK',
      });
      // A transaction that could never land is refused before the policy: the owner is not asked.
      const pauper = freshUser(94, era);
      const madeUp = { ...utxo, intentHash: 'cd'.repeat(32), outputNo: 3, owner: pauper.address };
      await refused('inputs not on chain', 'hook', transferFrom(pauper, madeUp, to, 1_000n).serialize(), 400, 'TRANSACTION_REJECTED', undefined);
      t.equal(hook.seen.length, 2, 'the webhook was not asked about it');
      const down = await refused('unreachable, onTimeout reject', 'hookDown', transfer(), 503, 'POLICY_WEBHOOK_UNAVAILABLE', 'webhook');
      t.equal(down.headers['retry-after'], '5');
      await sponsored('unreachable, onTimeout sponsor', 'hookLenient', transfer());
    });

    await t.test('usage: what each key paid for, its refusals by rule, its policy as configured', async () => {
      const get = async (key: keyof typeof KEYS, query: string) => {
        const r = await request(`${app.url}/usage?${query}`, { headers: { 'x-api-key': KEYS[key] } });
        t.equal(r.statusCode, 200);
        return ((await r.body.json()) as { keys: Array<Record<string, any>> }).keys;
      };
      const [capped] = await get('capped', 'groupBy=user');
      t.match(capped, {
        keyId: 'capped',
        sponsorships: 2,
        refusals: { 'perUser.maxSponsorships': 1, perUser: 1 },
        config: { admin: false, policy: { perUser: { maxSponsorships: 1 } } },
      });
      t.same(capped!['users'].map((u: { user: string }) => u.user).sort(), [user.address, other.user.address].sort(), 'one sponsorship for each user');
      const [hooked] = await get('hook', 'groupBy=day');
      t.match(hooked, { sponsorships: 1, refusals: { webhook: 1 }, config: { policy: { webhook: { secret: '<redacted>', onTimeout: 'reject' } } } });
      t.notMatch(JSON.stringify(hooked), SECRET, 'the secret is not shown');
    });
  });
