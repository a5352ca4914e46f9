/**
 * Audit lines and operation metrics on the embedded devnet: one line per proof (key id,
 * circuit, backend, duration, cache) and per sponsorship (key id, network, txHash, fee, UTXO,
 * outcome), never the key itself; the same operations counted in /metrics, with the DUST pool's
 * state read at scrape time.
 */
import t from 'tap';
import { request } from 'undici';
import { startSponsorApp } from '../../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../../fixtures/dust/user-tx.js';
import { proveBody } from '../../fixtures/prover/samples.js';
import { TEST_KEY } from '../../helpers/app.js';
import { sample } from '../../helpers/metrics-text.js';

t.test('proofs and sponsorships: an audit line each, counted in /metrics', async (t) => {
  const app = await startSponsorApp();
  t.teardown(() => app.close());
  await app.service.whenSynced('preview');

  // Two identical proofs: computed, then from the cache.
  for (let i = 0; i < 2; i++) {
    const r = await request(`${app.url}/prove`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' },
      body: proveBody(),
    });
    t.equal(r.statusCode, 200);
    await r.body.dump();
  }
  const { user, utxo } = await app.fundedUser(61, 100_000_000n);
  const unproven = transferFrom(user, utxo, freshUser(62).address, 1_000_000n).serialize();
  const res = await app.post('/prove-and-balance', unproven);
  t.equal(res.status, 200, `sponsored: ${String(res.json['code'] ?? '')}`);
  const again = await app.post('/prove-and-balance', unproven);
  t.equal(again.headers['x-dedupe'], 'HIT');
  const bad = await app.post('/balance-only', new Uint8Array([1, 2, 3]));
  t.equal(bad.status, 400);

  const audit = app.logs.lines.filter((l) => l['audit'] !== undefined);
  const proofs = audit.filter((l) => l['audit'] === 'proof');
  t.match(proofs, [
    {
      msg: 'proof',
      keyId: 'env-1',
      kind: 'prove',
      circuit: 'midnight/zswap/output',
      network: 'preview',
      backend: 'dev',
      cache: 'MISS',
      outcome: 'ok',
      ms: Number,
    },
    { keyId: 'env-1', cache: 'HIT', outcome: 'ok' },
  ]);
  t.equal(proofs.length, 2);
  const sponsorships = audit.filter((l) => l['audit'] === 'sponsorship');
  t.match(sponsorships, [
    {
      msg: 'sponsorship',
      keyId: 'env-1',
      kind: 'prove-and-balance',
      network: 'preview',
      outcome: 'sponsored',
      txHash: res.json['txHash'],
      fee: res.json['fee'],
      feeUnit: 'SPECK',
      dustUtxo: res.json['dustUtxo'],
    },
    { outcome: 'deduplicated', txHash: res.json['txHash'] },
    { kind: 'balance-only', outcome: bad.json['code'] },
  ]);
  t.equal(sponsorships.length, 3);
  t.notMatch(app.logs.text(), TEST_KEY, 'the API key never reaches a log line');
  t.notMatch(app.logs.text(), Buffer.from(unproven).toString('hex').slice(0, 64), 'nor the transaction');

  const text = await (await request(`${app.url}/metrics`)).body.text();
  t.equal(sample(text, 'nightgate_sponsorships_total', { network: 'preview', kind: 'prove-and-balance', outcome: 'sponsored' }), 1);
  t.equal(sample(text, 'nightgate_sponsorships_total', { network: 'preview', kind: 'prove-and-balance', outcome: 'deduplicated' }), 1);
  t.equal(sample(text, 'nightgate_sponsorships_total', { network: 'preview', kind: 'balance-only', outcome: String(bad.json['code']) }), 1);
  t.equal(sample(text, 'nightgate_sponsorship_fees_speck_total', { network: 'preview' }), Number(res.json['fee']), 'the fee once');
  t.equal(sample(text, 'nightgate_proofs_total', { kind: 'prove', backend: 'dev', network: 'preview', cache: 'MISS', outcome: 'ok' }), 1);
  t.equal(sample(text, 'nightgate_proofs_total', { kind: 'prove', backend: 'dev', network: 'preview', cache: 'HIT', outcome: 'ok' }), 1);
  t.equal(sample(text, 'nightgate_proving_run_seconds_count', { kind: 'prove', backend: 'dev', network: 'preview' }), 1, 'run time of the one computed');
  t.equal(sample(text, 'nightgate_proving_wait_seconds_count', { kind: 'prove', backend: 'dev', network: 'preview' }), 1);
  t.equal(sample(text, 'nightgate_dust_sync_synced', { network: 'preview' }), 1);
  t.equal(sample(text, 'nightgate_dust_utxos', { network: 'preview', state: 'reserved' }), 1, 'the answered sponsorship holds its UTXO');
  const counts = app.service.network('preview')!.table.counts();
  t.equal(sample(text, 'nightgate_dust_utxos', { network: 'preview', state: 'free' }), counts.free);
  const wallets = [...text.matchAll(/^nightgate_dust_wallet_utxos\{network="preview",wallet="(\d+)",state="free"\} (\d+)$/gm)];
  t.ok(wallets.length >= 1, 'per wallet');
  t.equal(
    wallets.reduce((a, m) => a + Number(m[2]), 0),
    counts.free,
    'the wallets add up to the network',
  );
  t.ok((sample(text, 'nightgate_dust_balance_speck', { network: 'preview' }) ?? 0) > 0, 'balance');
  t.equal(sample(text, 'nightgate_prover_up', { network: 'preview', backend: 'dev' }), 1);
  t.equal(sample(text, 'nightgate_prover_up', { network: 'mainnet', backend: 'upstream' }), 0, 'a closed proof-server port is down');
  t.equal(sample(text, 'nightgate_proving_queue_capacity', { backend: 'dev' }), 256);
  t.equal(sample(text, 'nightgate_http_errors_total', { code: String(bad.json['code']), status: '400' }), 1);
});
