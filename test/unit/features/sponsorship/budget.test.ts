import t from 'tap';
import { MemoryBudgetStore, SponsorshipPolicy, type BudgetStore } from '../../../../src/features/sponsorship/admission/budget.js';
import type { GatewayError } from '../../../../src/core/errors.js';

const limits = { maxFee: 1_000n, budget: 2_500n, windowMs: 60_000 };

t.test('fee cap: global, and a key may only lower it', async (t) => {
  const p = new SponsorshipPolicy(limits, new MemoryBudgetStore());
  await t.rejects(p.admit({ id: 'a' }, 1_001n, 0), {
    code: 'FEE_CAP_EXCEEDED',
    status: 403,
    message: 'fee 1001 SPECK exceeds the per-transaction cap of 1000 SPECK',
  });
  await t.rejects(p.admit({ id: 'a', maxFee: 500n }, 600n, 0), { code: 'FEE_CAP_EXCEEDED' });
  t.equal(p.capFor({ id: 'a', maxFee: 5_000n }), 1_000n, 'a key cannot raise the global cap');
  t.ok(await p.admit({ id: 'a' }, 1_000n, 0));
});

t.test('budget per key per window, refunds, and the window reset', async (t) => {
  const p = new SponsorshipPolicy(limits, new MemoryBudgetStore());
  const c1 = await p.admit({ id: 'k' }, 1_000n, 1_000);
  await p.admit({ id: 'k' }, 1_000n, 2_000);
  const err = (await p.admit({ id: 'k' }, 1_000n, 3_000).catch((e: unknown) => e)) as GatewayError;
  t.match(err, { code: 'DUST_BUDGET_EXCEEDED', status: 429 });
  t.same(err.headers, { 'Retry-After': '57' });
  t.ok(await p.admit({ id: 'other' }, 1_000n, 3_000), 'another key has its own budget');
  await p.refund(c1);
  t.equal(p.spent('k', 3_000), 1_000n, 'a failed request is refunded');
  t.ok(await p.admit({ id: 'k' }, 1_000n, 3_000));
  t.ok(await p.admit({ id: 'k', dustBudget: 10_000n }, 1_000n, 3_000), 'a per-key budget overrides the global one');
  t.equal(p.spent('k', 60_000), 0n, 'a new window starts empty');
});

t.test('a failing store refuses the sponsorship (fail closed)', async (t) => {
  const broken: BudgetStore = { charge: () => Promise.reject(new Error('redis down')), refund: () => undefined, spent: () => 0n };
  const p = new SponsorshipPolicy(limits, broken);
  await t.rejects(p.admit({ id: 'k' }, 1n, 0), { code: 'INTERNAL', message: 'sponsorship budget store unavailable' });
});

t.test('the memory store stays bounded', async (t) => {
  const s = new MemoryBudgetStore(10);
  for (let i = 0; i < 10; i++) s.charge(`k${i}`, 1n, 10n, 1000, 0);
  s.charge('late', 1n, 10n, 1000, 5_000);
  t.equal(s.spent('late', 1000, 5_000), 1n);
  t.equal(s.spent('k0', 1000, 5_000), 0n);
});
