/**
 * GET /wallet-status carries, per sponsored network, the fee prices the DUST wallets price fees
 * from: exactly the `LedgerParameters.feePrices` of the block `atHeight` names, and a later block's
 * once the wallets have read a later tip. On each ledger era (SPONSOR_ERAS), one devnet per era.
 */
import t from 'tap';
import { request } from 'undici';
import { ledger, release, type Era } from '../../src/infra/ledger/index.js';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp, type SponsorApp } from '../fixtures/dust/sponsor-app.js';
import { TEST_KEY } from '../helpers/app.js';

interface Fees {
  atHeight: number;
  prices: { overall: number; read: number; compute: number; blockUsage: number; write: number };
}

async function walletStatus(app: SponsorApp): Promise<{ era: number | null; fees: Fees | null }> {
  const res = await request(`${app.url}/wallet-status`, { headers: { 'x-api-key': TEST_KEY } });
  const body = (await res.body.json()) as Record<string, { sync: { era: number | null }; fees: Fees | null }>;
  return { era: body['preview']!.sync.era, fees: body['preview']!.fees };
}

/** The fee prices of the block at `height`, read from the devnet's indexer and the era's ledger. */
async function pricesAt(app: SponsorApp, era: Era, height: number): Promise<Fees['prices']> {
  const res = await request(app.devnet.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: `{ block(offset: { height: ${height} }) { ledgerParameters } }` }),
  });
  const hex = ((await res.body.json()) as { data: { block: { ledgerParameters: string } } }).data.block.ledgerParameters;
  const params = ledger(era).LedgerParameters.deserialize(Buffer.from(hex, 'hex'));
  try {
    const p = params.feePrices;
    return { overall: p.overallPrice, read: p.readFactor, compute: p.computeFactor, blockUsage: p.blockUsageFactor, write: p.writeFactor };
  } finally {
    release(params);
  }
}

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: /wallet-status has the fee prices of the tip the wallets read`, async (t) => {
    const app = await startSponsorApp(eraOverrides(era));
    t.teardown(() => app.close());
    await app.service.whenSynced('preview');

    const first = await walletStatus(app);
    t.equal(first.era, era, `the wallets are synced in ledger ${era}`);
    const fees = first.fees!;
    t.ok(Number.isInteger(fees.atHeight) && fees.atHeight > 0, `read at block ${fees.atHeight}`);
    t.strictSame(
      fees.prices,
      await pricesAt(app, era, fees.atHeight),
      `the feePrices of block ${fees.atHeight}'s ledger parameters: ${JSON.stringify(fees.prices)}`,
    );

    // The wallets read the tip again every block: the status follows.
    const fresher = () => ((app.service.status()['preview'] as { fees: Fees | null }).fees?.atHeight ?? 0) > fees.atHeight;
    await app.untilSync(fresher);
    const later = (await walletStatus(app)).fees!;
    t.ok(later.atHeight > fees.atHeight, `read again at block ${later.atHeight}`);
    t.strictSame(later.prices, await pricesAt(app, era, later.atHeight), `the feePrices of block ${later.atHeight}: ${JSON.stringify(later.prices)}`);
  });
