/**
 * Property: bodies of the other ledger era than the network's never get past the era check, and no
 * mutant of either era is ever a 5xx or leaves a DUST UTXO reserved.
 *
 * Two sponsoring apps run side by side, one in front of a ledger-8 devnet and one in front of a
 * ledger-9 devnet (SPONSOR_ERAS narrows the networks, never the transactions). Each network's user
 * builds valid, sponsorable transactions of its era (unproven, proven and finalized NIGHT
 * transfers; each is shown to be sponsored by its own network first). fast-check then mutates them
 * (bit flips and byte overwrites, truncation, insertion, cut-and-repeat, tag swaps between the eras
 * — the whole tag, only its format version or only its signature marker — and splices of one body
 * with another, of either era) and posts them to `/prove-and-balance` and `/balance-only` of each
 * network. The header tag of the mutant decides (`eraOfBytes`):
 *  - a tag of the other era: 400 LEDGER_ERA_MISMATCH, the message naming the body's era and the
 *    network's, whatever else is wrong with the body;
 *  - any other body: never a 5xx (a 200 only for a body that still makes a valid transaction);
 *  - after every refusal the allocator's reserved count is what it was before the request.
 * Deterministic: FUZZ_SEED (default 0xe7a) plus the network's era; 150 cases per route and network.
 */
import fc from 'fast-check';
import t from 'tap';
import { eraOfBytes, ERAS, ledger, type Era, type L } from '../../src/infra/ledger/index.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { WORKER_POOL, type WorkerPoolComponent } from '../../src/features/proving/index.js';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp, type SponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom, type User } from '../fixtures/dust/user-tx.js';
import { devProvingProvider } from '../../src/infra/prover/worker/providers.js';
import { TEST_KEY } from '../helpers/app.js';
import { applyMutation, type Mutation } from '../reliability/helpers/mutate.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 150);
const SEED = Number(process.env['FUZZ_SEED'] ?? 0xe7a);
const ROUTES = ['/prove-and-balance', '/balance-only'] as const;
type Route = (typeof ROUTES)[number];
type Kind = 'unproven' | 'proven' | 'finalized';

interface Base {
  era: Era;
  kind: Kind;
  bytes: Uint8Array;
}

/** Where a transaction's header tag ends (after its `):`), or -1 when it has none. */
function tagEnd(bytes: Uint8Array): number {
  const i = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 128)).indexOf('):');
  return i < 0 ? -1 : i + 2;
}

const latin1 = (bytes: Uint8Array, end = bytes.length): string => Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(end, bytes.length)).toString('latin1');

/** A step from a valid body towards a mutant. */
type Op =
  | { op: 'bytes'; m: Mutation }
  | { op: 'tag'; to: Era; part: 'whole' | 'format' | 'signature' }
  | { op: 'splice'; with: number; at: number; from: number; headFirst: boolean };

const frac = fc.noBias(fc.integer({ min: 0, max: 0xffff })).map((i) => i / 0x10000);

function opArbitrary(bases: number): fc.Arbitrary<Op> {
  const bytes = fc
    .record({
      kind: fc.constantFrom<Mutation['kind']>('flip', 'set', 'truncate', 'insert', 'repeat'),
      at: frac,
      bit: fc.integer({ min: 0, max: 7 }),
      value: fc.constantFrom(0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x3f, 0x40, 0x28, 0x29, 0x3a),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
      length: fc.integer({ min: 1, max: 64 }),
    })
    .map((m): Op => ({ op: 'bytes', m }));
  const tag = fc
    .record({ to: fc.constantFrom(...ERAS), part: fc.constantFrom<'whole' | 'format' | 'signature'>('whole', 'format', 'signature') })
    .map((o): Op => ({ op: 'tag', ...o }));
  const splice = fc
    .record({ with: fc.integer({ min: 0, max: bases - 1 }), at: frac, from: frac, headFirst: fc.boolean() })
    .map((o): Op => ({ op: 'splice', ...o }));
  return fc.oneof({ weight: 3, arbitrary: bytes }, { weight: 2, arbitrary: tag }, { weight: 2, arbitrary: splice });
}

const FORMAT: Record<Era, string> = { 8: 'midnight:transaction[v9]', 9: 'midnight:transaction[v12]' };
const SIGNATURE: Record<Era, string> = { 8: 'signature[v1]', 9: 'signature[v2]' };

function apply(body: Uint8Array, op: Op, bases: readonly Base[]): Uint8Array {
  switch (op.op) {
    case 'bytes':
      return applyMutation(body, op.m);
    case 'tag': {
      const end = tagEnd(body);
      if (op.part === 'whole') {
        // The tag of the same kind of body in the era `to` (the kind read from this body's markers).
        const kind: Kind = latin1(body, end).includes('proof-preimage') ? 'unproven' : latin1(body, end).includes('pedersen-schnorr') ? 'finalized' : 'proven';
        const like = bases.find((b) => b.era === op.to && b.kind === kind)!;
        const tag = like.bytes.subarray(0, tagEnd(like.bytes));
        return Buffer.concat([tag, body.subarray(Math.max(0, end))]);
      }
      const table = op.part === 'format' ? FORMAT : SIGNATURE;
      const from = table[op.to === 8 ? 9 : 8];
      const head = latin1(body, end < 0 ? 64 : end);
      const i = head.indexOf(from);
      if (i < 0) return body;
      return Buffer.concat([body.subarray(0, i), Buffer.from(table[op.to], 'latin1'), body.subarray(i + from.length)]);
    }
    case 'splice': {
      const other = bases[op.with]!.bytes;
      const i = Math.floor(op.at * body.length);
      const j = Math.floor(op.from * other.length);
      return op.headFirst ? Buffer.concat([body.subarray(0, i), other.subarray(j)]) : Buffer.concat([other.subarray(0, j), body.subarray(i)]);
    }
  }
}

/** A network under test: its app, and the user (of its era) whose NIGHT the base transactions spend. */
interface Net {
  era: Era;
  app: SponsorApp;
  clock: ManualClock;
  user: User;
  utxo: L.Utxo;
}

const nets = new Map<Era, Net>();
const bases: Base[] = [];

t.before(async () => {
  // Both eras' transactions are needed whatever networks are tested: a devnet of each era funds
  // the user that builds them. The two apps start one after the other (each syncs its wallets).
  for (const era of ERAS) {
    const clock = new ManualClock(Date.now());
    const app = await startSponsorApp(
      eraOverrides(era, {
        rateLimit: { limit: 1_000_000 },
        // Neither the key's share, its budget nor the fee cap is under test: none may refuse first.
        dust: { maxReservationsPerKey: 1_000, maxFee: '1000000000000000000', budget: '100000000000000000000' },
      }),
      clock,
    );
    await app.service.whenSynced('preview');
    // One UTXO per base transaction: a sponsored answer holds its inputs (409 INPUT_HELD to another spend).
    // The fourth: the transaction sponsored after the fuzzing.
    const { user, utxos } = await app.fundedUser(0x40 + era, 500_000_000n, 4);
    nets.set(era, { era, app, clock, user, utxo: utxos[3]! });
    const to = freshUser(0x50 + era, era).address;
    const unproven = transferFrom(user, utxos[0]!, to, 12_345n);
    const prove = (u: typeof unproven) => u.prove(devProvingProvider({}, era), ledger(era).CostModel.initialCostModel());
    const proven = await prove(transferFrom(user, utxos[1]!, to, 12_345n));
    const finalized = (await prove(transferFrom(user, utxos[2]!, to, 12_345n))).bind();
    bases.push(
      { era, kind: 'unproven', bytes: unproven.serialize() },
      { era, kind: 'proven', bytes: proven.serialize() },
      { era, kind: 'finalized', bytes: finalized.serialize() },
    );
  }
});

t.teardown(async () => {
  for (const net of nets.values()) await net.app.close();
});

const reservedOf = (net: Net): number => net.app.service.network('preview')!.table.counts().reserved;

t.test("the base transactions: each era's tag, and sponsored by a network of its era", async (t) => {
  for (const base of bases) {
    t.equal(
      eraOfBytes(base.bytes),
      base.era,
      `a ${base.kind} ledger-${base.era} transaction says ledger ${base.era} in its tag (${latin1(base.bytes, tagEnd(base.bytes))})`,
    );
    const net = nets.get(base.era)!;
    const route: Route = base.kind === 'unproven' ? '/prove-and-balance' : '/balance-only';
    const res = await net.app.post(route, base.bytes);
    t.equal(res.status, 200, `sponsored by the ledger-${base.era} network on ${route} (${String(res.json['message'] ?? '')})`);
  }
});

for (const networkEra of SPONSOR_ERAS) {
  const other: Era = networkEra === 8 ? 9 : 8;

  t.test(
    `a ledger-${networkEra} network: unmutated ledger-${other} transactions, every kind on both routes: 400 LEDGER_ERA_MISMATCH, nothing reserved`,
    async (t) => {
      const net = nets.get(networkEra)!;
      for (const base of bases.filter((b) => b.era === other)) {
        for (const route of ROUTES) {
          const before = reservedOf(net);
          const res = await net.app.post(route, base.bytes);
          t.equal(res.status, 400, `${base.kind} on ${route}: 400`);
          t.equal(res.json['code'], 'LEDGER_ERA_MISMATCH', `${base.kind} on ${route}: LEDGER_ERA_MISMATCH`);
          t.equal(
            res.json['message'],
            `the transaction is a ledger ${other} transaction, but this network runs ledger ${networkEra}: build it with the ledger ${networkEra} packages`,
            `${base.kind} on ${route}: names both eras`,
          );
          t.equal(reservedOf(net), before, `${base.kind} on ${route}: nothing reserved`);
        }
      }
    },
  );

  for (const route of ROUTES) {
    t.test(
      `property, a ledger-${networkEra} network, ${route}: mutants of both eras — ` +
        `the other era's always 400 LEDGER_ERA_MISMATCH, none a 5xx, nothing reserved by a refusal`,
      async (t) => {
        const net = nets.get(networkEra)!;
        const table = net.app.service.network('preview')!.table;
        const tally = new Map<string, number>();
        const mutant = fc.record({
          base: fc.integer({ min: 0, max: bases.length - 1 }),
          ops: fc.array(opArbitrary(bases.length), { minLength: 0, maxLength: 3 }),
        });
        await fc.assert(
          fc.asyncProperty(mutant, async ({ base, ops }) => {
            const body = ops.reduce((b, op) => apply(b, op, bases), bases[base]!.bytes);
            // Sponsorships of mutants that still make sense hold their UTXO until reclaimed: keep the pool from running dry.
            if (table.counts().free < 10) {
              net.clock.advance(301_000);
              net.app.service.reclaimDue();
            }
            const found = eraOfBytes(body);
            const before = table.counts().reserved;
            const res = await net.app.post(route, body);
            const after = table.counts().reserved;
            const cls = found === undefined ? 'no era' : found === networkEra ? 'own era' : 'other era';
            const key = `${cls}: ${res.status} ${String(res.json['code'] ?? '')}`;
            tally.set(key, (tally.get(key) ?? 0) + 1);
            const why =
              `${route} on ledger ${networkEra}, body ${JSON.stringify(latin1(body, 64))}` +
              `… (${body.length}` +
              ` bytes, tag says ${found ?? 'no era'}` +
              `): ${res.status}` +
              ` ${JSON.stringify(res.json)}`;
            if (res.status >= 500) throw new Error(`a 5xx: ${why}`);
            if (found !== undefined && found !== networkEra) {
              if (res.status !== 400 || res.json['code'] !== 'LEDGER_ERA_MISMATCH') throw new Error(`another era's body not refused as such: ${why}`);
              const message = String(res.json['message']);
              if (!message.includes(`a ledger ${found} transaction`) || !message.includes(`runs ledger ${networkEra}`))
                throw new Error(`the refusal does not name both eras: ${why}`);
            }
            if (res.status !== 200 && after !== before) throw new Error(`a refusal left the reserved count at ${after} (was ${before}): ${why}`);
            if (res.status === 200 && after > before + 1) throw new Error(`one answer, ${after - before} reservations: ${why}`);
          }),
          { numRuns: RUNS, seed: SEED + networkEra + (route === '/balance-only' ? 100 : 0) },
        );
        t.ok(
          [...tally.keys()].every((k) => !/: 5\d\d /.test(k)),
          `no 5xx: ${JSON.stringify(Object.fromEntries([...tally].sort()))}`,
        );
        t.ok(
          (tally.get('other era: 400 LEDGER_ERA_MISMATCH') ?? 0) >= RUNS / 4,
          `other-era mutants were met, and refused as such (${tally.get('other era: 400 LEDGER_ERA_MISMATCH') ?? 0} of ${RUNS})`,
        );
        t.ok(
          [...tally.keys()].some((k) => k.startsWith('own era: 4')),
          'own-era mutants were met (and refused)',
        );
      },
    );
  }

  t.test(`a ledger-${networkEra} network afterwards: /wallet-status agrees with the allocator, no worker crashed, its own era still sponsored`, async (t) => {
    const net = nets.get(networkEra)!;
    const status = await fetch(`${net.app.url}/wallet-status`, { headers: { 'x-api-key': TEST_KEY } });
    const ws = (await status.json()) as Record<string, { utxos: { reserved: number } }>;
    t.equal(ws['preview']!.utxos.reserved, reservedOf(net), `/wallet-status says ${ws['preview']!.utxos.reserved} reserved, as the allocator does`);
    t.equal(net.app.app.context.component<WorkerPoolComponent>(WORKER_POOL)!.health().crashed, 0, 'no worker crashed');
    const res = await net.app.post('/prove-and-balance', transferFrom(net.user, net.utxo, freshUser(0x61, networkEra).address, 777n).serialize());
    t.equal(res.status, 200, `a valid ledger-${networkEra} transaction is sponsored (${String(res.json['message'] ?? '')})`);
  });
}
