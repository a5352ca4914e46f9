// A property of the policy's contract rules over real transactions: for random policies (allowed
// contracts, each with random entry points or any) and random transactions of 1–3 contract calls
// spread over 1–2 segments, built with the ledger of each era and read with `effectsOf`, a
// transaction calling a contract or an entry point the policy does not list is never allowed, and
// one whose calls are all listed (and that does nothing else) always is, whatever other kinds the
// policy allows. Seeded, so every run tries the same cases.
import t from 'tap';
import fc from 'fast-check';
import type { KeyPolicyInput } from '../../../../src/core/config/key-policy.js';
import { compileKeyPolicy } from '../../../../src/features/sponsorship/policy/compiled-policy.js';
import type { ContractCallEffect } from '../../../../src/features/sponsorship/common/effects.js';
import { checkAllowed } from '../../../../src/features/sponsorship/policy/rules.js';
import { effectsOf } from '../../../../src/features/sponsorship/worker/effects.js';
import type { AnyTx } from '../../../../src/features/sponsorship/worker/user-transaction.js';
import { ledger, release, type Era, type L } from '../../../../src/infra/ledger/index.js';
import { ERAS } from '../../devnet/eras.js';

const RUNS = 200;
const SEED: Record<Era, number> = { 8: 0x5eed08, 9: 0x5eed09 };
const TTL = new Date(Date.UTC(2030, 0, 1));
const ENTRY_POINTS = ['increment', 'decrement', 'reset', 'transfer', 'mint'];

const address = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
/** Mostly names from a short list, so that policies and calls meet; now and then any name. */
const entryPoint = fc.oneof({ arbitrary: fc.constantFrom(...ENTRY_POINTS), weight: 4 }, { arbitrary: fc.string({ minLength: 1, maxLength: 12 }), weight: 1 });

interface Case {
  policy: KeyPolicyInput;
  calls: ContractCallEffect[];
  /** The segment (1 or 2) each call goes into. */
  segments: number[];
}

/** A policy over a pool of 1–5 contracts: it lists some of them (written as a config may: 0x, upper case). */
const policies = (pool: string[]): fc.Arbitrary<KeyPolicyInput> =>
  fc.record({
    allow: fc.record({
      nightTransfers: fc.boolean(),
      shielded: fc.boolean(),
      deploys: fc.boolean(),
      dustRegistrations: fc.boolean(),
      contracts: fc.subarray(pool).chain((listed) =>
        fc.tuple(
          ...listed.map((a) =>
            fc.record(
              {
                address: fc.constantFrom(a, a.toUpperCase(), `0x${a}`),
                entryPoints: fc.uniqueArray(entryPoint, { minLength: 1, maxLength: 3 }),
                maintenance: fc.boolean(),
              },
              { requiredKeys: ['address'] },
            ),
          ),
        ),
      ),
    }),
  });

/** A call of any contract of the pool, or (more often, so that both outcomes are common) one the policy lists, with an entry point it lists. */
function callsUnder(policy: KeyPolicyInput, pool: string[]): fc.Arbitrary<ContractCallEffect> {
  const any = fc.record({ address: fc.constantFrom(...pool), entryPoint });
  const rules = policy.allow?.contracts ?? [];
  if (rules.length === 0) return any;
  const listedCall = fc.constantFrom(...rules).chain((rule) =>
    (rule.entryPoints ? fc.constantFrom(...rule.entryPoints) : entryPoint).map((e) => ({
      address: rule.address.toLowerCase().replace(/^0x/, ''),
      entryPoint: e,
    })),
  );
  return fc.oneof({ arbitrary: listedCall, weight: 3 }, { arbitrary: any, weight: 1 });
}

const cases: fc.Arbitrary<Case> = fc.uniqueArray(address, { minLength: 1, maxLength: 5 }).chain((pool) =>
  policies(pool).chain((policy) =>
    fc.record({
      policy: fc.constant(policy),
      calls: fc.array(callsUnder(policy, pool), { minLength: 1, maxLength: 3 }),
      segments: fc.array(fc.constantFrom(1, 2), { minLength: 3, maxLength: 3 }),
    }),
  ),
);

/** What the policy's contract list says of one call: its contract listed, and the entry point with it. */
function listed(policy: KeyPolicyInput, call: ContractCallEffect): boolean {
  const rule = policy.allow?.contracts?.find((c) => c.address.toLowerCase().replace(/^0x/, '') === call.address);
  return rule !== undefined && (rule.entryPoints === undefined || rule.entryPoints.includes(call.entryPoint));
}

/** A transaction making `calls`, each in its segment, through `Intent.addCall` (no transcripts: the effects need none). */
function callTransaction(L: ReturnType<typeof ledger>, calls: ContractCallEffect[], segments: number[]): AnyTx {
  const empty: L.AlignedValue = { value: [], alignment: [] };
  const op = new L.ContractOperation();
  const intents = new Map<number, L.UnprovenIntent>();
  calls.forEach((call, i) => {
    const segment = segments[i]!;
    const prototype = new L.ContractCallPrototype(
      call.address,
      call.entryPoint,
      op,
      undefined,
      undefined,
      [],
      empty,
      empty,
      L.communicationCommitmentRandomness(),
      'test/circuit',
    );
    const before = intents.get(segment) ?? L.Intent.new(TTL);
    intents.set(segment, before.addCall(prototype));
    release(prototype, before);
  });
  let tx = L.Transaction.fromParts('undeployed');
  for (const [segment, intent] of intents) {
    const next = tx.addIntent({ tag: 'specific', value: segment }, intent);
    release(tx, intent);
    tx = next;
  }
  release(op);
  return tx as AnyTx;
}

for (const era of ERAS) {
  t.test(`ledger ${era}: a call the policy does not list is never allowed; calls it all lists always are`, async (t) => {
    const L = ledger(era);
    const params = L.LedgerParameters.initialParameters();
    let allowed = 0;
    let refused = 0;
    fc.assert(
      fc.property(cases, ({ policy, calls, segments }) => {
        const tx = callTransaction(L, calls, segments);
        try {
          const effects = effectsOf(era, tx, params);
          // Calls are read back in segment order, each segment's in the order they were added.
          const bySegment = [1, 2].flatMap((s) => calls.filter((_, i) => segments[i] === s));
          if (JSON.stringify(effects.calls) !== JSON.stringify(bySegment)) return false;
          if (
            effects.deploys.length ||
            effects.maintenance.length ||
            effects.unshielded ||
            effects.shielded ||
            effects.dustRegistrations ||
            effects.owners.length
          )
            return false;
          const compiled = compileKeyPolicy(policy);
          const refusal = checkAllowed(compiled, effects);
          const expected = calls.every((c) => listed(policy, c));
          if (expected) allowed++;
          else refused++;
          if (expected !== (refusal === undefined)) return false;
          if (refusal && refusal.rule !== 'allow.contracts') return false;
          // The same calls against a policy listing exactly them, then against one missing one contract.
          const exact = compileKeyPolicy({
            allow: {
              contracts: [...new Set(calls.map((c) => c.address))].map((a) => ({
                address: a,
                entryPoints: [...new Set(calls.filter((c) => c.address === a).map((c) => c.entryPoint))],
              })),
            },
          });
          if (checkAllowed(exact, effects) !== undefined) return false;
          const dropped = calls[calls.length - 1]!.address;
          const missing = compileKeyPolicy({
            allow: {
              contracts: [...new Set(calls.map((c) => c.address))].filter((a) => a !== dropped).map((a) => ({ address: a })),
              deploys: true,
              nightTransfers: true,
              shielded: true,
              dustRegistrations: true,
            },
          });
          return checkAllowed(missing, effects)?.rule === 'allow.contracts';
        } finally {
          release(tx);
        }
      }),
      { seed: SEED[era], numRuns: RUNS },
    );
    t.pass(`${RUNS} random policies and transactions`);
    t.ok(allowed >= RUNS / 4, `the random policies allow some transactions (${allowed})`);
    t.ok(refused >= RUNS / 4, `and refuse some (${refused})`);
  });
}
