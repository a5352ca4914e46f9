// The policy rules that need only the policy, the clock and the effects (policy/rules.ts), on
// hand-made effects and policies compiled from their config form: every rule that refuses, the
// order they answer in, and a key without `allow` sponsoring everything.
import t from 'tap';
import type { KeyPolicyInput } from '../../../../src/core/config/key-policy.js';
import { compileKeyPolicy } from '../../../../src/features/sponsorship/policy/compiled-policy.js';
import type { TxEffects } from '../../../../src/features/sponsorship/common/effects.js';
import { checkAllowed, checkValidity } from '../../../../src/features/sponsorship/policy/rules.js';

const A = 'a1'.repeat(32);
const B = 'b2'.repeat(32);
const NOTHING: TxEffects = { calls: [], deploys: [], maintenance: [], unshielded: false, shielded: false, dustRegistrations: 0, owners: [], userFee: '1000' };
const effects = (e: Partial<TxEffects>): TxEffects => ({ ...NOTHING, ...e });
const policy = (p: KeyPolicyInput) => compileKeyPolicy(p);
const EVERYTHING = effects({
  calls: [{ address: A, entryPoint: 'increment' }],
  deploys: [B],
  maintenance: [A],
  unshielded: true,
  shielded: true,
  dustRegistrations: 2,
  owners: ['c3'.repeat(32)],
});

t.test('no allow: every effect is allowed', async (t) => {
  t.equal(checkAllowed(policy({}), EVERYTHING), undefined);
  t.equal(checkAllowed(policy({ perUser: { maxSponsorships: 1, windowMs: 1000 } }), EVERYTHING), undefined, 'other parts of a policy allow no less');
});

t.test('an empty allow sponsors nothing but a transaction with no effect', async (t) => {
  const p = policy({ allow: {} });
  t.equal(checkAllowed(p, NOTHING), undefined);
  t.equal(checkAllowed(p, EVERYTHING)?.rule, 'allow.contracts', 'contracts are judged first');
});

t.test('allow.contracts: a call to an unlisted contract', async (t) => {
  const p = policy({ allow: { contracts: [{ address: A }] } });
  t.equal(checkAllowed(p, effects({ calls: [{ address: A, entryPoint: 'anything' }] })), undefined, 'a listed contract without entryPoints: any entry point');
  const refusal = checkAllowed(
    p,
    effects({
      calls: [
        { address: A, entryPoint: 'x' },
        { address: B, entryPoint: 'x' },
      ],
    }),
  );
  t.equal(refusal?.rule, 'allow.contracts');
  t.match(refusal?.message, B, 'the message names the contract');
  t.equal(refusal?.retryAfterS, undefined, 'a refusal that no wait lifts');
});

t.test('allow.contracts: addresses as the config writes them match the effects', async (t) => {
  const p = policy({ allow: { contracts: [{ address: `0x${A.toUpperCase()}` }] } });
  t.equal(checkAllowed(p, effects({ calls: [{ address: A, entryPoint: 'increment' }] })), undefined, '0x and upper case are normalized');
});

t.test('allow.contracts: an entry point not listed for the contract', async (t) => {
  const p = policy({ allow: { contracts: [{ address: A, entryPoints: ['increment', 'reset'] }, { address: B }] } });
  t.equal(
    checkAllowed(
      p,
      effects({
        calls: [
          { address: A, entryPoint: 'reset' },
          { address: B, entryPoint: 'decrement' },
        ],
      }),
    ),
    undefined,
  );
  const refusal = checkAllowed(
    p,
    effects({
      calls: [
        { address: A, entryPoint: 'increment' },
        { address: A, entryPoint: 'decrement' },
      ],
    }),
  );
  t.equal(refusal?.rule, 'allow.contracts');
  t.match(refusal?.message, '"decrement"', 'the message names the entry point');
  t.equal(checkAllowed(p, effects({ calls: [{ address: A, entryPoint: 'Increment' }] }))?.rule, 'allow.contracts', 'entry points are compared exactly');
});

t.test('allow.contracts: maintenance updates need maintenance: true on the contract', async (t) => {
  const listed = policy({ allow: { contracts: [{ address: A }] } });
  const refusal = checkAllowed(listed, effects({ maintenance: [A] }));
  t.equal(refusal?.rule, 'allow.contracts', 'listed, without maintenance');
  t.match(refusal?.message, 'maintenance');
  t.equal(
    checkAllowed(policy({ allow: { contracts: [{ address: A, maintenance: false }] } }), effects({ maintenance: [A] }))?.rule,
    'allow.contracts',
    'maintenance: false',
  );
  const allowed = policy({ allow: { contracts: [{ address: A, entryPoints: ['increment'], maintenance: true }] } });
  t.equal(checkAllowed(allowed, effects({ maintenance: [A] })), undefined, 'maintenance: true');
  t.equal(checkAllowed(allowed, effects({ maintenance: [B] }))?.rule, 'allow.contracts', 'an unlisted contract');
});

t.test('allow.deploys', async (t) => {
  t.equal(checkAllowed(policy({ allow: { nightTransfers: true, shielded: true, dustRegistrations: true } }), effects({ deploys: [A] }))?.rule, 'allow.deploys');
  t.equal(checkAllowed(policy({ allow: { deploys: true } }), effects({ deploys: [A, B] })), undefined);
});

t.test('allow.nightTransfers', async (t) => {
  const refusal = checkAllowed(policy({ allow: { deploys: true, shielded: true, dustRegistrations: true } }), effects({ unshielded: true, owners: [A] }));
  t.equal(refusal?.rule, 'allow.nightTransfers');
  t.equal(checkAllowed(policy({ allow: { nightTransfers: true } }), effects({ unshielded: true, owners: [A] })), undefined);
});

t.test('allow.shielded', async (t) => {
  t.equal(
    checkAllowed(policy({ allow: { deploys: true, nightTransfers: true, dustRegistrations: true } }), effects({ shielded: true }))?.rule,
    'allow.shielded',
  );
  t.equal(checkAllowed(policy({ allow: { shielded: true } }), effects({ shielded: true })), undefined);
});

t.test('allow.dustRegistrations', async (t) => {
  t.equal(
    checkAllowed(policy({ allow: { deploys: true, nightTransfers: true, shielded: true } }), effects({ dustRegistrations: 1 }))?.rule,
    'allow.dustRegistrations',
  );
  t.equal(checkAllowed(policy({ allow: { dustRegistrations: true } }), effects({ dustRegistrations: 3 })), undefined);
});

t.test('the first refusing rule answers: contracts, deploys, transfers, shielded, registrations', async (t) => {
  const p = policy({ allow: { contracts: [{ address: A }] } });
  const order: string[] = [];
  let e: TxEffects = effects({ calls: [{ address: B, entryPoint: 'x' }], deploys: [B], unshielded: true, shielded: true, dustRegistrations: 1 });
  for (let r = checkAllowed(p, e); r; r = checkAllowed(p, e)) {
    order.push(r.rule);
    if (r.rule === 'allow.contracts') e = { ...e, calls: [] };
    else if (r.rule === 'allow.deploys') e = { ...e, deploys: [] };
    else if (r.rule === 'allow.nightTransfers') e = { ...e, unshielded: false };
    else if (r.rule === 'allow.shielded') e = { ...e, shielded: false };
    else e = { ...e, dustRegistrations: 0 };
    if (order.length > 5) break;
  }
  t.same(order, ['allow.contracts', 'allow.deploys', 'allow.nightTransfers', 'allow.shielded', 'allow.dustRegistrations']);
  t.equal(
    checkAllowed(policy({ allow: { contracts: [{ address: B }], deploys: true, nightTransfers: true, shielded: true, dustRegistrations: true } }), EVERYTHING)
      ?.rule,
    'allow.contracts',
    'A is unlisted',
  );
  t.equal(
    checkAllowed(
      policy({ allow: { contracts: [{ address: A, maintenance: true }], deploys: true, nightTransfers: true, shielded: true, dustRegistrations: true } }),
      EVERYTHING,
    ),
    undefined,
    'all allowed',
  );
});

t.test('validFrom: refused before, with the seconds to wait (rounded up, at least 1)', async (t) => {
  const from = Date.parse('2030-01-01T00:00:00Z');
  const p = policy({ validFrom: '2030-01-01T00:00:00Z' });
  const early = checkValidity(p, from - 1500);
  t.equal(early?.rule, 'validFrom');
  t.equal(early?.retryAfterS, 2);
  t.match(early?.message, '2030-01-01T00:00:00.000Z');
  t.equal(checkValidity(p, from - 1)?.retryAfterS, 1, 'a millisecond early: one second');
  t.equal(checkValidity(p, from - 3_600_000)?.retryAfterS, 3600);
  t.equal(checkValidity(p, from), undefined, 'from validFrom on');
  t.equal(checkValidity(p, from + 86_400_000), undefined);
});

t.test('validUntil: refused from that instant on, with nothing to wait for', async (t) => {
  const until = Date.parse('2030-06-01T12:00:00Z');
  const p = policy({ validFrom: '2030-01-01T00:00:00Z', validUntil: '2030-06-01T12:00:00Z' });
  t.equal(checkValidity(p, until - 1), undefined, 'until the last millisecond before');
  const late = checkValidity(p, until);
  t.equal(late?.rule, 'validUntil');
  t.equal(late?.retryAfterS, undefined);
  t.match(late?.message, '2030-06-01T12:00:00.000Z');
  t.equal(checkValidity(p, until + 1)?.rule, 'validUntil');
  t.equal(checkValidity(policy({}), 0), undefined, 'no dates: always valid');
});
