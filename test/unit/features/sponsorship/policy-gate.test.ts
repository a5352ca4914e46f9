/**
 * The policy gate on hand-made effects: the order of the rules, what a refusal gives back, what a
 * ticket holds, commits, releases and refunds, users by owner and by X-Client-ID.
 */
import t from 'tap';
import pino from 'pino';
import type { KeyPolicyInput } from '../../../../src/core/config/key-policy.js';
import type { AuthenticatedKey } from '../../../../src/core/guards/auth.js';
import type { TxEffects } from '../../../../src/features/sponsorship/common/effects.js';
import { PolicyGate } from '../../../../src/features/sponsorship/policy/gate.js';
import type { PolicyWebhookClient, WebhookSummary, WebhookVerdict } from '../../../../src/features/sponsorship/policy/ports.js';
import { MemoryUserCounters } from '../../../../src/features/sponsorship/policy/user-counters.js';

const A = 'aa'.repeat(32);
const B = 'bb'.repeat(32);
const C = 'cc'.repeat(32);
const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;

const transfer = (owners: string[] = [A]): TxEffects => ({
  calls: [],
  deploys: [],
  maintenance: [],
  unshielded: true,
  shielded: false,
  dustRegistrations: 0,
  owners,
  userFee: '100',
});
const call = (address: string, entryPoint: string): TxEffects => ({ ...transfer([]), unshielded: false, calls: [{ address, entryPoint }] });

class FakeHook implements PolicyWebhookClient {
  verdict: WebhookVerdict = { kind: 'sponsor' };
  asked: WebhookSummary[] = [];
  async ask(_w: unknown, summary: WebhookSummary): Promise<WebhookVerdict> {
    this.asked.push(summary);
    return this.verdict;
  }
  async close(): Promise<void> {}
}

function setup(policy: KeyPolicyInput) {
  const counters = new MemoryUserCounters();
  const hook = new FakeHook();
  const gate = new PolicyGate({ counters, webhook: hook, logger: pino({ level: 'silent' }) });
  const key: AuthenticatedKey = { id: 'shop', source: 'config', policy };
  const q = (clientId?: string) => ({ key, network: 'preview', era: 9, kind: 'prove-and-balance' as const, clientId, now: NOW });
  const count = (user: string) => counters.read('shop', user, HOUR, NOW).count;
  return { counters, hook, gate, key, q, count };
}

t.test('a key with dates only is not asked about effects; with allow, perUser or webhook it is', async (t) => {
  t.equal(setup({ validUntil: '2100-01-01T00:00:00Z' }).gate.asks(setup({ validUntil: '2100-01-01T00:00:00Z' }).key), false);
  for (const p of [
    { allow: {} },
    { perUser: { maxSponsorships: 1, windowMs: HOUR } },
    { webhook: { url: 'http://x', onTimeout: 'reject' as const, secret: 's'.repeat(16) } },
  ]) {
    const s = setup(p);
    t.equal(s.gate.asks(s.key), true, Object.keys(p)[0]!);
  }
});

t.test('allow is judged before any place is held or the webhook asked', async (t) => {
  const s = setup({
    allow: { contracts: [{ address: C, entryPoints: ['mint'] }] },
    perUser: { maxSponsorships: 5, windowMs: HOUR },
    webhook: { url: 'http://x', onTimeout: 'reject', secret: 's'.repeat(16) },
  });
  await t.rejects(s.gate.admit(s.q(), transfer()), { code: 'POLICY_DENIED', rule: 'allow.nightTransfers' });
  await t.rejects(s.gate.admit(s.q(), call(C, 'burn')), { code: 'POLICY_DENIED', rule: 'allow.contracts' });
  t.equal(s.count(A), 0, 'no place held');
  t.equal(s.hook.asked.length, 0, 'the webhook was not asked');
});

t.test('per user: a place per owner; one owner at the cap refuses and gives the others back', async (t) => {
  const s = setup({ perUser: { maxSponsorships: 1, windowMs: HOUR } });
  const first = await s.gate.admit(s.q(), transfer([B]));
  t.same(first.users, [B]);
  await first.commit(100n, NOW);
  await t.rejects(s.gate.admit(s.q(), transfer([A, B])), {
    code: 'USER_LIMIT',
    rule: 'perUser.maxSponsorships',
    headers: { 'Retry-After': String((HOUR - (NOW % HOUR)) / 1000) },
  });
  t.equal(s.count(A), 0, "A's place was given back");
  t.equal(s.count(B), 1);
  await t.rejects(s.gate.admit(s.q(), call(C, 'x')), { code: 'POLICY_DENIED', rule: 'perUser' }, 'no input: no user');
});

t.test('per user by X-Client-ID: required, and counted by it', async (t) => {
  const s = setup({ perUser: { maxSponsorships: 1, windowMs: HOUR, userFrom: 'client-id' } });
  t.throws(() => s.gate.precheck(s.key, undefined, NOW), { code: 'INVALID_PARAMETER' });
  t.throws(() => s.gate.precheck(s.key, 'has space', NOW), { code: 'INVALID_PARAMETER' });
  s.gate.precheck(s.key, 'user-1', NOW);
  const ticket = await s.gate.admit(s.q('user-1'), transfer([A]));
  t.same(ticket.users, ['client:user-1']);
  await t.rejects(s.gate.admit(s.q('user-1'), transfer([B])), { code: 'USER_LIMIT' });
  t.ok(await s.gate.admit(s.q('user-2'), transfer([A])));
});

t.test('a ticket: released when no answer is given, refunded when the answer never lands', async (t) => {
  const s = setup({ perUser: { maxSponsorships: 1, maxDust: '150', windowMs: HOUR } });
  const held = await s.gate.admit(s.q(), transfer());
  await held.release();
  await held.release();
  t.equal(s.count(A), 0, 'released once');
  const answered = await s.gate.admit(s.q(), transfer());
  await answered.commit(100n, NOW);
  t.same(s.counters.read('shop', A, HOUR, NOW), { count: 1, dust: 100n });
  await answered.refund(100n);
  t.same(s.counters.read('shop', A, HOUR, NOW), { count: 0, dust: 0n });
});

t.test('maxDust: a fee that would pass it is refused at commit, every user given back', async (t) => {
  const s = setup({ perUser: { maxDust: '150', windowMs: HOUR } });
  const one = await s.gate.admit(s.q(), transfer([A]));
  await one.commit(100n, NOW);
  const two = await s.gate.admit(s.q(), transfer([B, A]));
  await t.rejects(two.commit(100n, NOW), { code: 'USER_LIMIT', rule: 'perUser.maxDust' });
  t.same(s.counters.read('shop', B, HOUR, NOW), { count: 0, dust: 0n }, "B's charge undone");
  t.same(s.counters.read('shop', A, HOUR, NOW), { count: 1, dust: 100n }, 'A keeps only the first');
  const three = await s.gate.admit(s.q(), transfer([A]));
  t.same(three.users, [A], 'A at 100 of 150 SPECK may still be held');
  await three.release();
  await (await s.gate.admit(s.q(), transfer([A]))).commit(50n, NOW);
  await t.rejects(s.gate.admit(s.q(), transfer([A])), { code: 'USER_LIMIT', rule: 'perUser.maxDust' }, 'at 150 of 150: refused before anything is held');
});

t.test('webhook: a refusal or an unreachable hook gives the places back; onTimeout sponsor lets it through', async (t) => {
  const s = setup({ perUser: { maxSponsorships: 5, windowMs: HOUR }, webhook: { url: 'http://x', onTimeout: 'reject', secret: 's'.repeat(16) } });
  s.hook.verdict = { kind: 'deny', reason: 'unknown user' };
  await t.rejects(s.gate.admit(s.q(), transfer()), { code: 'POLICY_DENIED', rule: 'webhook', message: /unknown user/ });
  s.hook.verdict = { kind: 'unavailable', reason: 'no answer within 2000 ms' };
  await t.rejects(s.gate.admit(s.q(), transfer()), { code: 'POLICY_WEBHOOK_UNAVAILABLE', rule: 'webhook', headers: { 'Retry-After': '5' } });
  t.equal(s.count(A), 0, 'no place kept by a refused sponsorship');
  t.match(s.hook.asked[0], {
    keyId: 'shop',
    network: 'preview',
    era: 9,
    user: A,
    owners: [A],
    effects: { nightTransfers: true },
    fee: '100',
    feeUnit: 'SPECK',
  });
  const lenient = setup({ webhook: { url: 'http://x', onTimeout: 'sponsor', secret: 's'.repeat(16) } });
  lenient.hook.verdict = { kind: 'unavailable', reason: 'unreachable: ECONNREFUSED' };
  t.ok(await lenient.gate.admit(lenient.q(), transfer()));
});

t.test('dates: before validFrom with Retry-After, from validUntil on', async (t) => {
  const s = setup({ validFrom: new Date(NOW + 90_000).toISOString(), validUntil: new Date(NOW + HOUR).toISOString() });
  t.throws(() => s.gate.precheck(s.key, undefined, NOW), { code: 'POLICY_DENIED', rule: 'validFrom', headers: { 'Retry-After': '90' } });
  s.gate.precheck(s.key, undefined, NOW + 90_000);
  t.throws(() => s.gate.precheck(s.key, undefined, NOW + HOUR), { code: 'POLICY_DENIED', rule: 'validUntil' });
});
