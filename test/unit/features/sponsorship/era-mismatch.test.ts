/**
 * A transaction of the other era than its network's is refused 400 LEDGER_ERA_MISMATCH, naming
 * both, before anything is reserved; a task whose network changed era since it was sent answers
 * 409 LEDGER_ERA_CHANGED, also with nothing reserved. No devnet: the wallets are empty, so
 * anything that got as far as reserving would fail differently.
 */
import t from 'tap';
import { ERAS, ledger, signOffer, type Era } from '../../../../src/infra/ledger/index.js';
import { DustAllocatorTable } from '../../../../src/features/sponsorship/allocator/allocator.js';
import { SharedSnapshot } from '../../../../src/features/sponsorship/allocator/shared-snapshot.js';
import { encodeWalletState } from '../../../../src/features/sponsorship/wallets/wallet-state.js';
import { sponsor, type SponsorArgs } from '../../../../src/features/sponsorship/worker/sponsor.js';
import { devProvingProvider } from '../../../../src/infra/prover/worker/providers.js';

function snapshotOf(era: Era): SharedSnapshot {
  const L = ledger(era);
  const params = L.LedgerParameters.initialParameters();
  const s = SharedSnapshot.create(1 << 20);
  s.publish(
    encodeWalletState({
      era,
      chainTime: Date.now(),
      params: params.serialize(),
      paramsAt: Date.now(),
      wallets: [new L.DustLocalState(params.dust).serialize()],
      eventId: 1,
    }),
  );
  return s;
}

/** A signed, unproven NIGHT self-transfer of `era`, and the same finalized. */
async function bodies(era: Era): Promise<{ unproven: Uint8Array; finalized: Uint8Array }> {
  const L = ledger(era);
  const sk = L.signingKeyFromBip340(new Uint8Array(32).fill(5));
  const vk = L.signatureVerifyingKey(sk);
  const owner = L.addressFromKey(vk);
  const night = L.nativeToken().raw;
  const intent = L.Intent.new(new Date(Date.now() + 600_000));
  intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new(
    [{ value: 100n, owner: vk, type: night, intentHash: '00'.repeat(32), outputNo: 0 }],
    [{ owner, type: night, value: 100n }],
    [],
  );
  const tx = L.Transaction.fromParts('undeployed', undefined, undefined, intent);
  const signed = tx.intents!.get(1)!;
  signed.guaranteedUnshieldedOffer = signOffer(era, signed.guaranteedUnshieldedOffer!, [L.signData(sk, signed.signatureData(1))]);
  tx.intents = tx.intents!.set(1, signed);
  const finalized = (await tx.prove(devProvingProvider({}, era), L.CostModel.initialCostModel())).bind();
  return { unproven: tx.serialize(), finalized: finalized.serialize() };
}

const args = (kind: SponsorArgs['kind'], era: Era): SponsorArgs => ({
  kind,
  era,
  networkId: 'undeployed',
  seeds: ['00'.repeat(64)],
  margin: 1,
  maxFee: (10n ** 18n).toString(),
  budgetLeft: (10n ** 19n).toString(),
  now: Date.now(),
  reservationTtlMs: 300_000,
  ttlSafetyMs: 60_000,
  blockTimeMs: 6_000,
  feeTtlMs: 60_000,
});

for (const network of ERAS) {
  const other: Era = network === 8 ? 9 : 8;
  t.test(`a ledger-${other} transaction sent to a ledger-${network} network: 400 naming both eras, nothing reserved`, async (t) => {
    const table = DustAllocatorTable.create(16);
    table.add({ walletIndex: 0, key: 1n, value: 10n ** 12n });
    const snapshot = snapshotOf(network);
    const { unproven, finalized } = await bodies(other);
    for (const [kind, body] of [
      ['prove-and-balance', unproven],
      ['balance-only', finalized],
    ] as const) {
      await t.rejects(
        sponsor(body, args(kind, network), table.buffer, snapshot.buffer, devProvingProvider({}, network)),
        {
          code: 'LEDGER_ERA_MISMATCH',
          status: 400,
          message: `the transaction is a ledger ${other} transaction, but this network runs ledger ${network}: build it with the ledger ${network} packages`,
        },
        kind,
      );
    }
    t.equal(table.counts().reserved, 0, 'nothing reserved');
  });

  t.test(`a task sent for ledger ${other} finds the wallets in ledger ${network}`, async (t) => {
    const table = DustAllocatorTable.create(16);
    const snapshot = snapshotOf(network);
    const { unproven } = await bodies(other);
    const expected = other < network ? { code: 'LEDGER_ERA_CHANGED', status: 409 } : { code: 'WALLET_SYNCING', status: 503 };
    await t.rejects(
      sponsor(unproven, args('prove-and-balance', other), table.buffer, snapshot.buffer, devProvingProvider({}, other)),
      expected,
      other < network ? 'the network moved on: 409' : 'the new era is not synced yet: 503',
    );
    t.equal(table.counts().reserved, 0, 'nothing reserved');
  });
}
