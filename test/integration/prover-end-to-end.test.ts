// Proving through nightgate on both ledger eras, on the dev backend and on the upstream backend in
// front of the stand-in proof server. The era is the network's: the embedded devnet's
// `devnet.ledger` setting, as an operator sets it. Midnight.js 4.1.1 (the official client,
// unmodified) proves whole transactions on a ledger-8 network; its HTTP proving provider, handed
// to ledger 9's own `Transaction.prove`, proves on a ledger-9 one (Midnight.js 5 has its own test:
// prover-midnight-js-5.test.ts, Node 22 and later).
import t from 'tap';
import { request } from 'undici';
import { httpClientProofProvider, httpClientProvingProvider } from '@midnight-ntwrk/midnight-js-http-client-proof-provider';
import { startApp, TEST_KEY, type TestApp } from '../helpers/app.js';
import { mountProver } from '../../src/features/proving/index.js';
import { provingProvider, type L } from '../../src/infra/ledger/index.js';
import type { ConfigInput } from '../../src/core/config/index.js';
import { startStandIn } from '../fixtures/prover/stand-in.js';
import { upstreamConfig } from '../fixtures/prover/apps.js';
import { ERAS, importLedgers, ledgerOf, noZkConfig, preimageAt, preimagesOf, proveBody, shieldedTx, type Era } from '../fixtures/prover/samples.js';

// The transactions below meet Midnight.js's own import of the ledger.
await importLedgers();

const HEADERS = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };
const KEY = { 'x-api-key': TEST_KEY };

/** Every network's embedded devnet runs `era`. */
function onLedger(era: Era, base: ConfigInput = {}): ConfigInput {
  const devnet = { devnet: { ledger: era, ledger9AtHeight: 0 } };
  const networks = base.networks ?? {};
  return {
    ...base,
    networks: { mainnet: { ...networks.mainnet, ...devnet }, preprod: { ...networks.preprod, ...devnet }, preview: { ...networks.preview, ...devnet } },
  };
}

/** A transaction of `era` proven through nightgate at `url`, the way each era's clients prove. */
async function proveThrough(url: string, era: Era, unproven: L.UnprovenTransaction): Promise<L.Transaction<L.SignatureEnabled, L.Proof, L.PreBinding>> {
  if (era === 8)
    return (await httpClientProofProvider(url, noZkConfig(), { headers: KEY }).proveTx(unproven)) as L.Transaction<L.SignatureEnabled, L.Proof, L.PreBinding>;
  const http = httpClientProvingProvider(url, noZkConfig(), { headers: KEY });
  return unproven.prove(provingProvider(http), ledgerOf(era).CostModel.initialCostModel());
}

async function text(res: Awaited<ReturnType<typeof request>>): Promise<string> {
  return Buffer.from(await res.body.arrayBuffer()).toString('utf8');
}

for (const era of ERAS) {
  const L = ledgerOf(era);

  t.test(`ledger ${era}: dev backend`, async (t) => {
    const s = await startApp(onLedger(era, { prover: { threads: 1 } }), { modules: [mountProver] });
    t.teardown(() => s.close());

    t.test("a transaction of the network's era is proven; it binds and round-trips", async (t) => {
      const unproven = shieldedTx(1n, era);
      const proven = await proveThrough(s.url, era, unproven);
      const wire = proven.bind().serialize();
      const back = L.Transaction.deserialize<L.SignatureEnabled, L.Proof, L.Binding>('signature', 'proof', 'binding', wire);
      t.match(back.transactionHash(), /^[0-9a-f]{64}$/, 'a finalized transaction with a hash');
      // The proofs are exactly the era's own mock shapes for those circuits.
      const mock = unproven.mockProve().guaranteedOffer!;
      t.same(back.guaranteedOffer!.inputs[0]!.proof.serialize(), mock.inputs[0]!.proof.serialize(), 'spend proof = mockProve shape');
      t.same(back.guaranteedOffer!.outputs[0]!.proof.serialize(), mock.outputs[0]!.proof.serialize(), 'output proof = mockProve shape');
      const params = L.LedgerState.blank('undeployed').parameters;
      t.equal(proven.fees(params), unproven.mockProve().fees(params), 'fees as for a really proven transaction');
    });

    t.test("answers and errors are labelled X-Prover: dev and the network's ledger; health says mock proofs and which ledger", async (t) => {
      const res = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(undefined, undefined, era), headers: HEADERS });
      t.equal(res.statusCode, 200);
      t.equal(res.headers['x-prover'], 'dev');
      t.equal(res.headers['x-midnight-network'], 'preview');
      t.equal(res.headers['x-midnight-ledger'], String(era));
      t.equal(
        Buffer.from(await res.body.arrayBuffer())
          .subarray(0, 25)
          .toString('latin1'),
        'midnight:proof-versioned:',
      );
      const bad = await request(`${s.url}/prove?network=preprod`, { method: 'POST', body: Buffer.from('garbage'), headers: HEADERS });
      t.equal(bad.statusCode, 400);
      t.equal(bad.headers['x-prover'], 'dev', 'errors are labelled too');
      t.equal(bad.headers['x-midnight-ledger'], String(era));
      await bad.body.dump();
      const contract = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(preimageAt('counter/increment')), headers: HEADERS });
      t.equal(contract.statusCode, 400);
      t.match(await contract.body.json(), { code: 'DEV_PROVER_UNSUPPORTED_CIRCUIT', error: 'Bad Request', message: /counter\/increment needs a real prover/ });
      const health = s.app.health() as { components: Record<string, Record<string, unknown>> };
      t.equal(health.components['worker-pool']!['devProver'], true);
      t.equal(health.components['prover']!['devProver'], true);
      const ledger =
        era === 9
          ? { era: 9, package: '@midnightntwrk/ledger-v9', version: '1.0.0-rc.3', prerelease: true, note: /release candidate/ }
          : { era: 8, package: '@midnight-ntwrk/ledger-v8', version: '8.1.0' };
      t.match(health.components['prover']!['networks'], { preview: { backend: 'dev', mockProofs: true, ledger } });
      t.match(health.components['ledger']!['networks'], { mainnet: ledger, preprod: ledger, preview: ledger });
      if (era === 8)
        t.notOk(
          'prerelease' in (health.components['prover']!['networks'] as Record<string, { ledger: object }>)['preview']!.ledger,
          'a final package is not flagged',
        );
    });

    t.test('/proof-versions is what the dev backend proves: V2, on either era', async (t) => {
      const res = await request(`${s.url}/proof-versions`, { headers: KEY });
      t.equal(res.statusCode, 200);
      t.equal(res.headers['x-midnight-ledger'], String(era));
      t.same(JSON.parse(await text(res)), ['V2']);
    });

    t.test("the worker threads preloaded ledger 9 and the network's era, and say how long each took", async (t) => {
      const pool = (s.app.health() as { components: Record<string, { ledgerLoadMs: Record<string, { last: number; max: number }> | null }> }).components[
        'worker-pool'
      ]!;
      t.ok(pool.ledgerLoadMs, 'a thread reported its loads');
      t.same(Object.keys(pool.ledgerLoadMs!).sort(), era === 9 ? ['9'] : ['8', '9']);
      for (const times of Object.values(pool.ledgerLoadMs!)) t.ok(times.max >= times.last && times.last >= 0);
    });
  });

  t.test(`ledger ${era}: upstream backend, the client gets the proof server's bytes unchanged`, async (t) => {
    const standIn = await startStandIn();
    t.teardown(() => standIn.close());
    const s: TestApp = await startApp(onLedger(era, upstreamConfig(standIn.url)), { modules: [mountProver] });
    t.teardown(() => s.close());

    const tx = shieldedTx(5n, era);
    const direct = httpClientProvingProvider(standIn.url, noZkConfig());
    const via = httpClientProvingProvider(s.url, noZkConfig(), { headers: KEY });
    for (const { keyLocation, preimage, binding } of await preimagesOf(tx, era)) {
      const a = await direct.prove(preimage, keyLocation, binding);
      const b = await via.prove(preimage, keyLocation, binding);
      t.same(Buffer.from(b), Buffer.from(a), `${keyLocation}: identical bytes`);
    }
    const proven = await proveThrough(s.url, era, tx);
    const back = L.Transaction.deserialize<L.SignatureEnabled, L.Proof, L.Binding>('signature', 'proof', 'binding', proven.bind().serialize());
    t.equal(
      Buffer.from(back.guaranteedOffer!.outputs[0]!.proof.serialize()).subarray(0, 25).toString('latin1'),
      'midnight:proof-versioned:',
      "the transaction carries the stand-in's proofs",
    );
    // Two direct calls, two through nightgate; proving the transaction asks for the same two proofs: cache hits.
    t.equal((await standIn.calls())['/prove'], 4, "the repeats came from nightgate's cache");
    const versions = await request(`${s.url}/proof-versions`, { headers: KEY });
    t.equal(await text(versions), await text(await request(`${standIn.url}/proof-versions`)), "/proof-versions relays the proof server's own answer");
  });
}

t.test("a network's era is its own: a ledger-8 network beside ledger-9 ones", async (t) => {
  const s = await startApp({ prover: { threads: 1 }, networks: { preprod: { devnet: { ledger: 8, ledger9AtHeight: 0 } } } }, { modules: [mountProver] });
  t.teardown(() => s.close());
  const versions = async (network: string): Promise<[string | string[] | undefined, unknown]> => {
    const res = await request(`${s.url}/proof-versions?network=${network}`, { headers: KEY });
    return [res.headers['x-midnight-ledger'], JSON.parse(await text(res))];
  };
  t.same(await versions('preprod'), ['8', ['V2']]);
  t.same(await versions('preview'), ['9', ['V2']]);
  t.same(await versions('mainnet'), ['9', ['V2']]);
  const res = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(), headers: { ...HEADERS, 'x-midnight-network': 'preprod' } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['x-midnight-ledger'], '8');
  await res.body.dump();
});
