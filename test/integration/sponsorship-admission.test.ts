/**
 * Validate before reserving: every malformed, empty, already-sponsored,
 * wrong-network, expired or badly signed transaction is answered 400 TRANSACTION_REJECTED with the
 * ledger's reason, and no DUST UTXO is reserved for it — over HTTP on the embedded devnet, plus a
 * property test of byte flips in the signed part of real transfers (unproven and finalized).
 * Both run on each ledger era (SPONSOR_ERAS), one app per era shared by the two: every check is
 * the ledger's, with that era's transactions.
 */
import t, { type Test } from 'tap';
import fc from 'fast-check';
import { ledger, provingProvider, signOffer, type Era, type L } from '../../src/infra/ledger/index.js';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp, type SponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom, type User } from '../fixtures/dust/user-tx.js';

const noProofs = provingProvider({
  check: async () => [],
  prove: async () => {
    throw new Error('a NIGHT transfer needs no proof');
  },
});

async function finalize(era: Era, tx: L.UnprovenTransaction): Promise<L.FinalizedTransaction> {
  return (await tx.prove(noProofs, ledger(era).CostModel.initialCostModel())).bind();
}

/** A transfer with its intent's TTL set to `ttl`, signed after. */
function transferWithTtl(user: User, utxo: L.Utxo, to: L.UserAddress, ttl: Date): L.UnprovenTransaction {
  const L = ledger(user.era);
  const intent = L.Intent.new(ttl);
  intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new(
    [{ value: utxo.value, owner: user.vk, type: utxo.type, intentHash: utxo.intentHash, outputNo: utxo.outputNo }],
    [
      { owner: to, type: L.nativeToken().raw, value: 1_000n },
      { owner: user.address, type: L.nativeToken().raw, value: utxo.value - 1_000n },
    ],
    [],
  );
  const tx = L.Transaction.fromParts('undeployed', undefined, undefined, intent);
  const signed = tx.intents!.get(1)!;
  signed.guaranteedUnshieldedOffer = signOffer(user.era, signed.guaranteedUnshieldedOffer!, [L.signData(user.sk, signed.signatureData(1))]);
  tx.intents = tx.intents!.set(1, signed);
  return tx;
}

async function expectRejected(t: Test, app: SponsorApp, path: string, body: Uint8Array, reason: RegExp, what: string): Promise<void> {
  const res = await app.post(path, body);
  t.equal(res.status, 400, `${what}: 400 (${String(res.json['message'])})`);
  t.equal(res.json['code'], 'TRANSACTION_REJECTED', `${what}: TRANSACTION_REJECTED`);
  t.match(String(res.json['message']), reason, `${what}: the reason`);
  t.equal(app.service.network('preview')!.table.counts().reserved, 0, `${what}: nothing reserved`);
}

for (const era of SPONSOR_ERAS) {
  t.test(`ledger ${era}`, async (t) => {
    const L = ledger(era);
    // The fee cap is not under test: a ledger-9 transfer's fee here sits within 10 % of the default
    // cap (prices stay at ledger 9's floor), so a loaded machine's staleness could refuse the valid one.
    const app = await startSponsorApp(eraOverrides(era, { rateLimit: { limit: 100_000 }, dust: { maxFee: '1000000000000000000' } }));
    t.teardown(() => app.close());
    await app.service.whenSynced('preview');
    t.equal(app.era, era);
    t.equal(app.service.eraOf('preview'), era, `the network's wallets are synced in ledger ${era}`);

    await t.test('transactions the ledger would refuse are answered 400 before any DUST UTXO is reserved', async (t) => {
      const { user, utxo } = await app.fundedUser(81, 500_000_000n);
      const to = freshUser(82, era).address;

      const empty = L.Transaction.fromParts('undeployed', undefined, undefined, L.Intent.new(new Date(Date.now() + 120_000)));
      await expectRejected(t, app, '/prove-and-balance', empty.serialize(), /no effect/, 'an empty intent');
      await expectRejected(t, app, '/prove-and-balance', L.Transaction.fromParts('undeployed').serialize(), /no effect/, 'no intent at all');
      await expectRejected(t, app, '/balance-only', (await finalize(era, empty)).serialize(), /no effect/, 'an empty finalized intent');

      const otherNetwork = transferFrom(user, utxo, to, 1_000n, 'preview');
      await expectRejected(t, app, '/prove-and-balance', otherNetwork.serialize(), /network ID/, 'built for another network');

      await expectRejected(
        t,
        app,
        '/prove-and-balance',
        transferWithTtl(user, utxo, to, new Date(Date.now() - 60_000)).serialize(),
        /TTL has expired/,
        'expired',
      );
      await expectRejected(
        t,
        app,
        '/prove-and-balance',
        transferWithTtl(user, utxo, to, new Date(Date.now() + 3 * 3_600_000)).serialize(),
        /too far in the future/,
        'TTL beyond the ledger horizon',
      );
      // Whole seconds: a TTL 1 s ahead is inside one 1 s block of the devnet here.
      await expectRejected(
        t,
        app,
        '/prove-and-balance',
        transferWithTtl(user, utxo, to, new Date(Math.floor(Date.now() / 1000) * 1000)).serialize(),
        /too soon to land|expired/,
        'expiring before the next block',
      );

      // A signature by the wrong key.
      const mallory = freshUser(83, era);
      const forged = transferFrom({ ...user, sk: mallory.sk }, utxo, to, 1_000n);
      await expectRejected(t, app, '/prove-and-balance', forged.serialize(), /signature verification failed/, 'unproven, signed by another key');
      await expectRejected(
        t,
        app,
        '/balance-only',
        (await finalize(era, forged)).serialize(),
        /signature verification failed/,
        'finalized, signed by another key',
      );

      // Already sponsored: the answer carries a DUST spend; sending it again is refused.
      const good = await app.post('/prove-and-balance', transferFrom(user, utxo, to, 4_321n).serialize());
      t.equal(good.status, 200, 'a valid transfer is sponsored');
      const reserved = app.service.network('preview')!.table.counts().reserved;
      const again = await app.post('/balance-only', Buffer.from(good.json['tx'] as string, 'hex'));
      t.equal(again.status, 400);
      t.equal(again.json['code'], 'TRANSACTION_REJECTED');
      t.match(String(again.json['message']), /already pays a fee with DUST/);
      t.equal(app.service.network('preview')!.table.counts().reserved, reserved, 'an already sponsored transaction reserves nothing more');
      t.ok(Date.parse(good.json['expiresAt'] as string) <= Date.now() + 10 * 1000 + 1000 + 20_000, 'expiresAt is the fee intent TTL (dust.feeTtlMs here)');
    });

    await t.test('property: byte flips in the signed part of real transfers never get a sponsorship', async (t) => {
      const table = app.service.network('preview')!.table;
      // The subtest above holds exactly one reservation (its valid sponsorship): no flip may add one.
      const held = table.counts().reserved;
      t.equal(held, 1, 'the one valid sponsorship of the subtest above');
      const { user, utxo } = await app.fundedUser(84, 500_000_000n);
      const unproven = transferFrom(user, utxo, freshUser(85, era).address, 2_000n);
      const samples = [
        { path: '/prove-and-balance', bytes: unproven.serialize() },
        { path: '/balance-only', bytes: (await finalize(era, unproven)).serialize() },
      ];
      const codes = new Map<string, number>();
      for (const { path, bytes } of samples) {
        // The tag ends at the first ':' after the header; everything after it is the transaction.
        const start = Buffer.from(bytes).indexOf(':', 20) + 1;
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: start, max: bytes.length - 1 }), fc.integer({ min: 0, max: 7 }), async (pos, bit) => {
            const body = new Uint8Array(bytes);
            body[pos]! ^= 1 << bit;
            const res = await app.post(path, body);
            codes.set(`${res.status} ${String(res.json['code'])}`, (codes.get(`${res.status} ${String(res.json['code'])}`) ?? 0) + 1);
            return res.status === 400 && table.counts().reserved === held;
          }),
          { numRuns: 60, seed: Number(process.env['FUZZ_SEED'] ?? 0x17) + path.length + (era - 8) },
        );
      }
      t.ok(codes.size > 0 && [...codes.keys()].every((c) => c.startsWith('400 ')), `every flip: 400 (${[...codes].map(([c, n]) => `${c} ×${n}`).join(', ')})`);
      t.equal(table.counts().reserved - held, 0, 'no flip reserved a DUST UTXO');
    });
  });
}
