/**
 * Inputs checked against the chain before reserving: a transfer spending an output that does not
 * exist, or another key's output, is answered 400 TRANSACTION_REJECTED naming the input
 * (intent hash # output number) with nothing reserved; an indexer that cannot answer fails the
 * check closed (503 INPUTS_UNCHECKED, Retry-After, nothing reserved); a burst from one address
 * is one read of the indexer. On each ledger era (SPONSOR_ERAS), over HTTP on the embedded devnet.
 */
import t, { type Test } from 'tap';
import { ledger } from '../../src/infra/ledger/index.js';
import type { InputChecker } from '../../src/features/sponsorship/reservations/input-check.js';
import { readUnspentUtxos } from '../../src/features/sponsorship/reservations/input-check.js';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp, type SponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';

function checkerOf(app: SponsorApp): InputChecker {
  return (app.service as unknown as { opts: { inputs: InputChecker } }).opts.inputs;
}

async function expectRefused(t: Test, app: SponsorApp, body: Uint8Array, status: number, code: string, reason: RegExp, what: string): Promise<void> {
  const res = await app.post('/prove-and-balance', body);
  t.equal(res.status, status, `${what}: ${status} (${String(res.json['message'])})`);
  t.equal(res.json['code'], code, `${what}: ${code}`);
  t.match(String(res.json['message']), reason, `${what}: the reason names the input`);
  t.equal(app.service.network('preview')!.table.counts().reserved, 0, `${what}: nothing reserved`);
  if (status === 503) t.ok(Number(res.headers['retry-after']) > 0, `${what}: Retry-After`);
}

for (const era of SPONSOR_ERAS) {
  t.test(`ledger ${era}: only inputs unspent on chain and owned by their signer get DUST`, async (t) => {
    const L = ledger(era);
    // A cache longer than the test: the burst below is one read however slowly its requests reach the check.
    const app = await startSponsorApp(
      eraOverrides(era, { rateLimit: { limit: 100_000 }, dust: { maxFee: '1000000000000000000', inputCheckCacheMs: 600_000 } }),
    );
    t.teardown(() => app.close());
    await app.service.whenSynced('preview');
    // An answered sponsorship holds its inputs (409 INPUT_HELD to any other spend of them): the
    // burst's five and the last one sponsored below each spend a UTXO of their own.
    const { user, utxo, utxos } = await app.fundedUser(91, 500_000_000n, 6);
    const to = freshUser(92, era).address;

    // A fresh key with no funds spends an output that was never created: the ledger's own
    // `wellFormed` passes it (it never looks UTXOs up), the devnet would drop it at block time.
    const pauper = freshUser(93, era);
    const madeUp = { ...utxo, intentHash: 'ab'.repeat(32), outputNo: 7, owner: pauper.address };
    await expectRefused(
      t,
      app,
      transferFrom(pauper, madeUp, to, 1_000n).serialize(),
      400,
      'TRANSACTION_REJECTED',
      new RegExp(`input ${'ab'.repeat(32)}#7\\b.*not an unspent output of its signer`),
      'an output that does not exist',
    );
    // An output that exists, with an output number it does not have.
    await expectRefused(
      t,
      app,
      transferFrom(user, { ...utxo, outputNo: utxo.outputNo + 5 }, to, 1_000n).serialize(),
      400,
      'TRANSACTION_REJECTED',
      new RegExp(`input ${utxo.intentHash}#${utxo.outputNo + 5}\\b`),
      'a real transaction, a missing output number',
    );

    // Mallory signs for the user's UTXO as its owner: her signature matches the owner she names,
    // so the ledger's checks pass; on chain the UTXO is the user's.
    const mallory = freshUser(94, era);
    await expectRefused(
      t,
      app,
      transferFrom(mallory, utxo, to, 1_000n).serialize(),
      400,
      'TRANSACTION_REJECTED',
      new RegExp(`input ${utxo.intentHash}#${utxo.outputNo}\\b.*another key's`),
      "another key's output",
    );

    // A claimed value other than the output's.
    await expectRefused(
      t,
      app,
      transferFrom(user, { ...utxo, value: utxo.value + 1n }, to, 1_000n).serialize(),
      400,
      'TRANSACTION_REJECTED',
      /holds \d+, not \d+/,
      'a value the output does not hold',
    );

    // The real one passes, and a burst of the user's transactions is one read of the indexer.
    const checker = checkerOf(app);
    const before = checker.reads;
    const burst = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => app.post('/prove-and-balance', transferFrom(user, utxos[i - 1]!, to, 3_000n + BigInt(i)).serialize())),
    );
    t.same(
      burst.map((r) => r.status),
      [200, 200, 200, 200, 200],
      'the unspent, own output is sponsored',
    );
    t.ok(checker.reads - before <= 2, `five requests from one address: ${checker.reads - before} indexer read(s)`);
    t.equal(L.addressFromKey(user.vk), user.address);

    // The indexer cannot answer: closed, not open. Nothing is reserved on a guess.
    const reserved = app.service.network('preview')!.table.counts().reserved;
    const original = (checker as unknown as { opts: { reader: unknown; cacheMs: number } }).opts;
    const saved = { reader: original.reader, cacheMs: original.cacheMs };
    original.reader = (_n: string, address: string) => readUnspentUtxos('ws://127.0.0.1:9/api/v4/graphql/ws', address, 2_000);
    original.cacheMs = 0;
    (checker as unknown as { cache: Map<string, unknown> }).cache.clear();
    const down = await app.post('/prove-and-balance', transferFrom(user, utxos[5]!, to, 8_888n).serialize());
    t.equal(down.status, 503, `indexer down: 503 (${String(down.json['message'])})`);
    t.equal(down.json['code'], 'INPUTS_UNCHECKED');
    t.ok(Number(down.headers['retry-after']) > 0, 'with Retry-After');
    t.equal(app.service.network('preview')!.table.counts().reserved, reserved, 'indexer down: nothing more reserved');
    Object.assign(original, saved);
    const back = await app.post('/prove-and-balance', transferFrom(user, utxos[5]!, to, 8_889n).serialize());
    t.equal(back.status, 200, 'indexer back: sponsored again');
  });
}
