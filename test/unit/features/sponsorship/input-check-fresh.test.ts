/**
 * The input check never refuses an input from a read that began before the request: a UTXO the
 * client saw a moment ago may be newer than a read still in flight, or just cached. Not found there,
 * it is read again in a read that begins after the request; made-up inputs still cost at most one
 * read per address every 250 ms. A stand-in reader and an injected clock; no indexer.
 */
import t from 'tap';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { InputChecker, type UnspentSet } from '../../../../src/features/sponsorship/reservations/input-check.js';

const OWNER = 'aa'.repeat(32);
const NIGHT = '00'.repeat(32);
const input = (intentHash: string) => ({ owner: OWNER, intentHash, outputNo: 0, type: NIGHT, value: '5' });
const set = (...hashes: string[]): UnspentSet => new Map(hashes.map((h) => [`${h}#0`, { tokenType: NIGHT, value: '5', era: 9 as const }]));

/** A reader whose answers the test releases one by one; `calls` counts its reads. */
function heldReader() {
  const pending: Array<(s: UnspentSet) => void> = [];
  const state = { calls: 0 };
  const reader = (): Promise<UnspentSet> => {
    state.calls++;
    return new Promise((resolve) => pending.push(resolve));
  };
  const answer = async (s: UnspentSet): Promise<void> => {
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    pending.shift()!(s);
  };
  return { reader, answer, state };
}

t.test('a UTXO newer than the read in flight is read again, not refused', async (t) => {
  const clock = new ManualClock(1_000_000);
  const r = heldReader();
  const checker = new InputChecker({ clock, cacheMs: 10_000, networkIdOf: () => 'undeployed', reader: r.reader });
  const old = 'a1'.repeat(32);
  const fresh = 'b2'.repeat(32);
  // A request for an old UTXO starts a read; while it is in flight the fresh UTXO is indexed and
  // another request for it comes (100 ms later): it must not take the old read's answer as final.
  const first = checker.check('preview', 9, [input(old)]);
  clock.advance(100);
  const second = checker.check('preview', 9, [input(fresh)]);
  await r.answer(set(old));
  await first;
  // The second request joined that read, did not find its UTXO there, and reads again.
  await r.answer(set(old, fresh));
  await t.resolves(second, 'then read again, and found');
  t.equal(r.state.calls, 2);
});

t.test('a made-up input is refused after one fresh read; the reads stay paced', async (t) => {
  const clock = new ManualClock(2_000_000);
  const r = heldReader();
  const checker = new InputChecker({ clock, cacheMs: 10_000, networkIdOf: () => 'undeployed', reader: r.reader });
  const real = 'c3'.repeat(32);
  const warm = checker.check('preview', 9, [input(real)]);
  await r.answer(set(real));
  await warm;
  clock.advance(100);
  const fake = checker.check('preview', 9, [input('d4'.repeat(32))]);
  await r.answer(set(real));
  await t.rejects(fake, { code: 'TRANSACTION_REJECTED' }, 'not found in a read that began after it: refused');
  t.equal(r.state.calls, 2, 'one read for the cache, one fresh');
  // Found inputs are answered from the cache without a read.
  await checker.check('preview', 9, [input(real)]);
  t.equal(r.state.calls, 2);
});
