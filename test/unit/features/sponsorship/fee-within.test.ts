/**
 * The fee a sponsorship pays must hold at the prices of every block its transaction may land in.
 * `feesWithMargin(params, n)` prices n blocks full in every dimension alike; blocks full in bytes
 * churned alone (what sponsored transfers fill) raise a transfer's price faster, and a fee from
 * `feesWithMargin` fell short at full blocks. These run the ledger's own price update, in both eras.
 */
import t from 'tap';
import { ERAS, ledger, type Era, type L } from '../../../../src/infra/ledger/index.js';
import { feeWithin, pricesWithin, type WalletReplica } from '../../../../src/features/sponsorship/worker/wallet-replica.js';

const ZERO: L.NormalizedCost = { readTime: 0, computeTime: 0, blockUsage: 0, bytesWritten: 0, bytesChurned: 0 };
const CHURN_FULL: L.NormalizedCost = { ...ZERO, bytesWritten: 1, bytesChurned: 1 };

/** A mock-proven NIGHT transfer (1 in, 2 out) with a DUST-spend-sized shape: bytes churned dominate its cost. */
function transfer(era: Era): L.Transaction<L.Signaturish, L.Proof, L.PreBinding> {
  const L = ledger(era);
  const sk = L.sampleSigningKey();
  const vk = L.signatureVerifyingKey(sk);
  const owner = L.addressFromKey(vk);
  const night = L.nativeToken().raw;
  const intent = L.Intent.new(new Date(Date.now() + 600_000));
  intent.guaranteedUnshieldedOffer = L.UnshieldedOffer.new(
    [{ value: 100n, owner: vk, type: night, intentHash: '00'.repeat(32), outputNo: 0 }],
    [
      { owner, type: night, value: 50n },
      { owner, type: night, value: 50n },
    ],
    [],
  );
  return L.Transaction.fromParts('undeployed', undefined, undefined, intent).mockProve() as unknown as L.Transaction<L.Signaturish, L.Proof, L.PreBinding>;
}

function replicaAt(era: Era, params: L.LedgerParameters): WalletReplica {
  return { version: 0, era, params, paramsBytes: params.serialize(), paramsAt: 0, chainTime: 0, wallets: [], byKey: [] };
}

/** The chain's prices after `blocks` blocks of `fullness`, from `state`. */
function afterBlocks(state: L.LedgerState, fullness: L.NormalizedCost, blocks: number, from: number): L.LedgerState {
  let s = state;
  for (let i = 1; i <= blocks; i++) s = s.postBlockUpdate(new Date(from + i * 6_000), fullness, Math.max(...Object.values(fullness)));
  return s;
}

for (const era of ERAS) {
  t.test(`ledger ${era}: blocks full in bytes churned alone outrun feesWithMargin; the fee quoted holds`, async (t) => {
    const L = ledger(era);
    const tx = transfer(era);
    const start = L.LedgerState.blank('undeployed');
    const params = start.parameters;
    const from = Date.now();
    for (const blocks of [1, 5, 11, 14]) {
      const actual = tx.fees(afterBlocks(start, CHURN_FULL, blocks, from).parameters);
      const margin = tx.feesWithMargin(params, blocks);
      const quoted = feeWithin(tx, pricesWithin(replicaAt(era, params), 'undeployed', blocks));
      t.ok(actual > margin, `${blocks} block(s): charged ${actual} > feesWithMargin ${margin} (the defect)`);
      t.ok(quoted >= actual, `${blocks} block(s): the quoted fee ${quoted} covers the ${actual} charged`);
      t.ok(quoted >= margin, 'and never less than a uniformly full history');
    }
  });

  t.test(`ledger ${era}: a fee quoted from prices that fell holds at every block of rises after them`, async (t) => {
    const L = ledger(era);
    const tx = transfer(era);
    const from = Date.now();
    // Thirty empty blocks: prices fall (ledger 8) or stay at the floor (ledger 9's min_block_price).
    const low = afterBlocks(L.LedgerState.blank('undeployed'), ZERO, 30, from);
    const params = low.parameters;
    const quoted = feeWithin(tx, pricesWithin(replicaAt(era, params), 'undeployed', 11));
    for (const fullness of [
      CHURN_FULL,
      { ...ZERO, computeTime: 1 },
      { readTime: 1, computeTime: 1, blockUsage: 1, bytesWritten: 1, bytesChurned: 1 },
      { ...ZERO, bytesChurned: 0.6, bytesWritten: 0.6 },
    ]) {
      for (let blocks = 1; blocks <= 11; blocks++) {
        const charged = tx.fees(afterBlocks(low, fullness, blocks, from + 31 * 6_000).parameters);
        if (charged > quoted) t.fail(`${JSON.stringify(fullness)} after ${blocks} blocks: ${charged} > ${quoted}`);
      }
    }
    if (era === 9) t.equal(params.feePrices.overallPrice, 10, 'ledger 9 keeps the overall price at its floor');
    t.pass('no block history within the margin is charged more than the quote');
  });
}
