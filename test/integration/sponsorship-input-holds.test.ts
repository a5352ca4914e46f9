/**
 * A live answer holds its unshielded inputs: another transaction spending one of them is refused
 * with 409 INPUT_HELD (naming the input, with Retry-After) by every key, with nothing reserved,
 * while the same bytes from the same key are still a dedupe HIT. The hold ends when the answer's
 * reservation ends: reclaimed (the injected clock past its deadline) or landed (the DUST sync
 * marks its UTXO spent); the next spend is then judged on chain again. Four keys sending 20
 * different transfers of one UTXO each hold at most one DUST UTXO between them. On each ledger
 * era (SPONSOR_ERAS), over HTTP on the embedded devnet.
 */
import t from 'tap';
import { request } from 'undici';
import { ManualClock } from '../helpers/manual-clock.js';
import { sha256Hex } from '../../src/core/guards/auth.js';
import { OTHER_KEY } from '../helpers/app.js';
import { eraOverrides, SPONSOR_ERAS, startSponsorApp } from '../fixtures/dust/sponsor-app.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';

const THIRD = 'third-key-0123456789abc';
const FOURTH = 'fourth-key-0123456789ab';

const why = (r: { status: number; json: Record<string, unknown> }): string => (r.status === 200 ? 'sponsored' : JSON.stringify(r.json));

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: an input spent by a live answer is held against every other spend`, async (t) => {
    const clock = new ManualClock(Date.now());
    const app = await startSponsorApp(
      eraOverrides(era, {
        auth: {
          keys: [
            { id: 'third', sha256: sha256Hex(THIRD) },
            { id: 'fourth', sha256: sha256Hex(FOURTH) },
          ],
        },
        rateLimit: { limit: 100_000 },
        prover: { queueSize: 512 },
        // The input check's reads cached far longer than the test (the clock stands still anyway): after
        // a landing, the next spend is judged on a fresh read of the chain all the same.
        dust: { maxFee: '1000000000000000000', budget: '100000000000000000000', inputCheckCacheMs: 600_000 },
      }),
      clock,
    );
    t.teardown(() => app.close());
    await app.service.whenSynced('preview');
    const table = app.service.network('preview')!.table;
    const { user, utxo } = await app.fundedUser(101, 500_000_000n);
    const { user: second, utxo: secondUtxo } = await app.fundedUser(103, 500_000_000n);
    const { user: flooder, utxo: flooded } = await app.fundedUser(105, 500_000_000n);
    const to = freshUser(102, era).address;
    // The devnet checks fee intents' TTLs against real block times: the clock at the real time now.
    clock.set(Date.now());
    const input = `${utxo.intentHash}#${utxo.outputNo}`;

    await t.test('a second, different spend of a held input: 409 INPUT_HELD, nothing reserved; the first lands, then the chain judges', async (t) => {
      const firstBody = transferFrom(user, utxo, to, 1_000n).serialize();
      const first = await app.post('/prove-and-balance', firstBody);
      t.equal(first.status, 200, why(first));
      const reserved = table.counts().reserved;
      const other = await app.post('/prove-and-balance', transferFrom(user, utxo, to, 2_000n).serialize());
      t.equal(other.status, 409, why(other));
      t.equal(other.json['code'], 'INPUT_HELD');
      t.match(
        String(other.json['message']),
        new RegExp(`input ${input}\\b.*(until|at the latest) \\d{4}-\\d\\d-\\d\\dT`),
        'the message names the input and until when',
      );
      t.ok(Number(other.headers['retry-after']) > 0, 'with Retry-After');
      t.equal(table.counts().reserved, reserved, 'nothing reserved for it');
      const byOther = await app.post('/prove-and-balance', transferFrom(user, utxo, to, 2_500n).serialize(), { 'x-api-key': OTHER_KEY });
      t.equal(byOther.status, 409, `another key too: ${why(byOther)}`);
      t.equal(byOther.json['code'], 'INPUT_HELD');
      const again = await app.post('/prove-and-balance', firstBody);
      t.equal(again.status, 200, 'the same bytes from the same key');
      t.equal(again.headers['x-dedupe'], 'HIT', 'are still a dedupe HIT');
      t.equal(table.counts().reserved, reserved, 'nothing more reserved');

      const submitted = await request(app.devnet.submitUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from(first.json['tx'] as string, 'hex'),
      });
      t.equal(submitted.statusCode, 202, `the devnet accepts the first: ${await submitted.body.text()}`);
      const slot = (first.json['dustUtxo'] as { slot: number }).slot;
      let reports = 0;
      await app.untilSync(() => table.slotEntry(slot)?.state === 'spent' || ++reports > 30);
      t.equal(table.slotEntry(slot)?.state, 'spent', `it landed (after ${reports} sync reports)`);
      const after = await app.post('/prove-and-balance', transferFrom(user, utxo, to, 3_000n).serialize());
      t.equal(after.status, 400, `once landed, a new spend is judged on chain: ${why(after)}`);
      t.equal(after.json['code'], 'TRANSACTION_REJECTED', 'spent on chain, not held');
    });

    await t.test('four keys, 20 different transfers of one UTXO each: at most one DUST UTXO between them', async (t) => {
      const keys = [undefined, OTHER_KEY, THIRD, FOURTH];
      const before = table.counts().reserved;
      const started = Date.now();
      let peak = 0;
      const watch = setInterval(() => {
        peak = Math.max(peak, table.counts().reserved - before);
      }, 5);
      const answers = await Promise.all(
        keys.flatMap((k, ki) =>
          Array.from({ length: 20 }, (_, i) =>
            app.post('/prove-and-balance', transferFrom(flooder, flooded, to, 10_000n + BigInt(ki * 100 + i)).serialize(), k ? { 'x-api-key': k } : {}),
          ),
        ),
      );
      clearInterval(watch);
      peak = Math.max(peak, table.counts().reserved - before);
      const ok = answers.filter((a) => a.status === 200);
      const codes = [...new Set(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${String(a.json['code'])}`))];
      t.equal(ok.length, 1, `one of 80 sponsored (${Date.now() - started} ms)`);
      // A key's 20 at once also pass its share of tasks in flight (429 before admission, nothing reserved).
      t.ok(
        codes.includes('409 INPUT_HELD') && codes.every((c) => c === '409 INPUT_HELD' || c === '429 RESERVATION_LIMIT'),
        `every other one: 409 INPUT_HELD, or 429 past the key's share (${codes.join(', ')})`,
      );
      t.ok(
        answers.filter((a) => a.json['code'] === 'INPUT_HELD').length >= 40,
        `${answers.filter((a) => a.json['code'] === 'INPUT_HELD').length} of them 409 INPUT_HELD`,
      );
      t.ok(peak <= 1, `at most one DUST UTXO reserved at any time (peak ${peak})`);
      t.equal(table.counts().reserved - before, 1, 'one held at the end');
    });

    await t.test('its reservation reclaimed (clock past its deadline), the input is free again', async (t) => {
      const first = await app.post('/prove-and-balance', transferFrom(second, secondUtxo, to, 1_000n).serialize());
      t.equal(first.status, 200, why(first));
      const held = await app.post('/prove-and-balance', transferFrom(second, secondUtxo, to, 1_001n).serialize());
      t.equal(held.status, 409, why(held));
      clock.advance(301_000);
      app.service.reclaimDue();
      t.equal(table.slotEntry((first.json['dustUtxo'] as { slot: number }).slot)?.state, 'free', 'the reservation is reclaimed');
      const next = await app.post('/prove-and-balance', transferFrom(second, secondUtxo, to, 1_002n).serialize());
      t.equal(next.status, 200, `a new spend is judged on chain again and sponsored: ${why(next)}`);
    });
  });
