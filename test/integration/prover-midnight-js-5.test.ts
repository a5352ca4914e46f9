// Midnight.js 5 (the client of every public network since they moved to ledger 9), unmodified,
// proving a ledger-9 transaction through nightgate: on the dev backend, and on the upstream backend
// in front of the stand-in proof server. Midnight.js 5 needs Node 22.12 or later and is installed
// apart (test/helpers/midnight-js-5.ts), so this runs in the Node 22/24 lane (.ci/trixie-tests);
// elsewhere it is skipped, saying why.
import t from 'tap';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { midnightJs5Skip } from '../helpers/midnight-js-5.js';
import { mountProver } from '../../src/features/proving/index.js';
import type { L } from '../../src/infra/ledger/index.js';
import { startStandIn } from '../fixtures/prover/stand-in.js';
import { upstreamConfig } from '../fixtures/prover/apps.js';
import { importLedgers, ledgerOf, noZkConfig, shieldedTx } from '../fixtures/prover/samples.js';

const skip = midnightJs5Skip();

const KEY = { 'x-api-key': TEST_KEY };
const ON_LEDGER_9 = { devnet: { ledger: 9 as const, ledger9AtHeight: 0 } };

type ProofProvider = { proveTx(tx: unknown): Promise<L.Transaction<L.SignatureEnabled, L.Proof, L.PreBinding>> };

async function client(url: string): Promise<ProofProvider> {
  const { httpClientProofProvider } = await import('../midnight-js-5/proof-provider.js');
  return httpClientProofProvider(url, noZkConfig(), { headers: KEY }) as ProofProvider;
}

t.test('Midnight.js 5 proves a ledger-9 transaction through nightgate', { skip }, async (t) => {
  // Transactions built here meet Midnight.js's own import of ledger-v9.
  await importLedgers();
  const L = ledgerOf(9);

  t.test('dev backend: mock-shaped proofs; it binds and round-trips', async (t) => {
    const s = await startApp(
      { prover: { threads: 1 }, networks: { mainnet: ON_LEDGER_9, preprod: ON_LEDGER_9, preview: ON_LEDGER_9 } },
      { modules: [mountProver] },
    );
    t.teardown(() => s.close());
    const unproven = shieldedTx(3n, 9);
    const proven = await (await client(s.url)).proveTx(unproven);
    const back = L.Transaction.deserialize<L.SignatureEnabled, L.Proof, L.Binding>('signature', 'proof', 'binding', proven.bind().serialize());
    t.match(back.transactionHash(), /^[0-9a-f]{64}$/);
    const mock = unproven.mockProve().guaranteedOffer!;
    t.same(back.guaranteedOffer!.outputs[0]!.proof.serialize(), mock.outputs[0]!.proof.serialize(), "output proof = ledger 9's mockProve shape");
  });

  t.test("upstream backend: the proof server's proofs, unchanged", async (t) => {
    const standIn = await startStandIn();
    t.teardown(() => standIn.close());
    const s = await startApp(upstreamConfig(standIn.url), { modules: [mountProver] });
    t.teardown(() => s.close());
    const proven = await (await client(s.url)).proveTx(shieldedTx(4n, 9));
    const back = L.Transaction.deserialize<L.SignatureEnabled, L.Proof, L.Binding>('signature', 'proof', 'binding', proven.bind().serialize());
    t.equal(Buffer.from(back.guaranteedOffer!.outputs[0]!.proof.serialize()).subarray(0, 25).toString('latin1'), 'midnight:proof-versioned:');
    t.equal((await standIn.calls())['/prove'], 2, 'one proof-server call per proof');
  });
});
