/**
 * Two instances on one Redis, one devnet: a spend answered by instance A holds its input on B
 * too. Another transaction spending the same input is refused on B with 409 INPUT_HELD, by
 * another key as well, with nothing reserved on B, while the same bytes are still a dedupe HIT
 * there; the hold is in Redis, keyed by network and input, with a TTL of the answer's life, and
 * A giving its answer's reservation back (released, as when it lands or is reclaimed) frees it
 * for B. On each ledger era (SPONSOR_ERAS).
 */
import t from 'tap';
import { startRedis } from '../helpers/redis-server.js';
import { instanceConfig, startDevnetApart, startInstance } from '../fixtures/scale-out.js';
import { freshUser, transferFrom } from '../fixtures/dust/user-tx.js';
import { SPONSOR_ERAS } from '../fixtures/dust/sponsor-app.js';
import { OTHER_KEY } from '../helpers/app.js';

t.setTimeout(300_000 * SPONSOR_ERAS.length);

const SEED_A = 'a1'.repeat(32);
const SEED_B = 'b2'.repeat(32);
const why = (r: { status: number; json: Record<string, unknown> }): string => (r.status === 200 ? 'sponsored' : JSON.stringify(r.json));

for (const era of SPONSOR_ERAS)
  t.test(`ledger ${era}: an input held on one instance is held on the other`, async (t) => {
    const redis = await startRedis();
    t.teardown(() => redis.stop());
    const devnet = await startDevnetApart([SEED_A, SEED_B], era);
    t.teardown(() => devnet.stop());
    const overrides = { rateLimit: { limit: 10_000 }, dust: { maxFee: '1000000000000000000', budget: '100000000000000000000' } };
    const a = await startInstance(instanceConfig(devnet, redis.url, [SEED_A], overrides));
    t.teardown(() => a.close());
    const b = await startInstance(instanceConfig(devnet, redis.url, [SEED_B], overrides));
    t.teardown(() => b.close());
    await Promise.all([a.service.whenSynced('preview'), b.service.whenSynced('preview')]);
    const { user, utxo } = await devnet.fundedUser(111, 1_000_000_000n);
    const to = freshUser(112, era).address;
    const input = `${utxo.intentHash}#${utxo.outputNo}`;
    const reservedOn = (i: typeof a): number => i.service.network('preview')!.table.counts().reserved;

    const firstBody = transferFrom(user, utxo, to, 1_000n).serialize();
    const first = await a.post('/prove-and-balance', firstBody);
    t.equal(first.status, 200, `A sponsors the first spend: ${why(first)}`);
    const ttl = Number(await a.app.context.state!.redis.command(['PTTL', `nightgate:inputs:{preview}:${input}`]));
    t.ok(ttl > 0 && ttl <= 300_000, `held in Redis for the answer's life (${ttl} ms left)`);
    const onB = await b.post('/prove-and-balance', transferFrom(user, utxo, to, 2_000n).serialize());
    t.equal(onB.status, 409, `B refuses another spend of the input: ${why(onB)}`);
    t.equal(onB.json['code'], 'INPUT_HELD');
    t.match(String(onB.json['message']), new RegExp(`input ${input}\\b`), 'naming the input');
    const byOther = await b.post('/prove-and-balance', transferFrom(user, utxo, to, 3_000n).serialize(), OTHER_KEY);
    t.equal(byOther.status, 409, `another key on B too: ${why(byOther)}`);
    t.equal(reservedOn(b), 0, 'B reserved nothing');
    const again = await b.post('/prove-and-balance', firstBody);
    t.equal(again.status, 200, 'the same bytes on B');
    t.equal(again.headers['x-dedupe'], 'HIT', 'are the first answer (dedupe HIT)');
    const onA = await a.post('/prove-and-balance', transferFrom(user, utxo, to, 4_000n).serialize());
    t.equal(onA.status, 409, `and A refuses it too: ${why(onA)}`);
    t.equal(reservedOn(a), 1, 'A holds one DUST UTXO');

    // A's answer's reservation ends (as when it is reclaimed): at A's next synced block the hold goes, from Redis too.
    const dust = first.json['dustUtxo'] as { slot: number };
    const table = a.service.network('preview')!.table;
    const entry = table.slotEntry(dust.slot)!;
    t.ok(table.release({ slot: dust.slot, generation: entry.generation }), 'A releases the reservation');
    let free = false;
    for (let i = 0; i < 100 && !free; i++) {
      const res = await b.post('/prove-and-balance', transferFrom(user, utxo, to, 5_000n + BigInt(i)).serialize());
      free = res.status === 200;
      if (!free) await new Promise((r) => setTimeout(r, 100));
    }
    t.ok(free, 'B then sponsors a spend of the input (judged on chain again)');
  });
