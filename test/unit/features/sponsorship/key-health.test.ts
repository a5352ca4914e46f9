/**
 * A key whose sponsored answers keep expiring without landing is throttled (its share of the
 * pool halves per `slack` expirations beyond its landings, down to 1) and recovers as its
 * transactions land or as time passes; a handful of unsubmitted answers never trips it.
 */
import t from 'tap';
import { KeyHealth } from '../../../../src/features/sponsorship/admission/key-health.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const FULL = 16;

t.test('a handful never trips; beyond the slack the share halves, down to 1; landings restore it', async (t) => {
  const clock = new ManualClock(1_000_000);
  const h = new KeyHealth({ clock, windowMs: 600_000, slack: 10 });
  for (let i = 0; i < 10; i++) h.record('preview', 'k', 'expired');
  t.same(h.share('preview', 'k', FULL), { limit: FULL }, '10 expired answers (the slack): full share');
  h.record('preview', 'k', 'expired');
  t.equal(h.share('preview', 'k', FULL).limit, 8, '11: halved');
  t.ok(h.share('preview', 'k', FULL).throttledBy! > 10, 'and says by how much');
  for (let i = 0; i < 10; i++) h.record('preview', 'k', 'expired');
  t.equal(h.share('preview', 'k', FULL).limit, 4, '21: quartered');
  for (let i = 0; i < 100; i++) h.record('preview', 'k', 'expired');
  t.equal(h.share('preview', 'k', FULL).limit, 1, 'never below one UTXO: a key can still land and earn it back');
  t.equal(h.share('preview', 'other', FULL).limit, FULL, 'other keys are not affected');
  t.equal(h.share('preprod', 'k', FULL).limit, FULL, 'nor the same key on another network');
  for (let i = 0; i < 111; i++) h.record('preview', 'k', 'landed');
  t.same(h.share('preview', 'k', FULL), { limit: FULL }, 'as many landings as expirations beyond the slack: full share again');
});

t.test('counts decay: a throttled key that stops failing recovers with time', async (t) => {
  const clock = new ManualClock(0);
  const h = new KeyHealth({ clock, windowMs: 600_000, slack: 10 });
  for (let i = 0; i < 40; i++) h.record('preview', 'k', 'expired');
  t.equal(h.share('preview', 'k', FULL).limit, 2);
  clock.advance(600_000);
  t.equal(h.share('preview', 'k', FULL).limit, 8, 'one window later: 40/e ≈ 14.7 → halved once');
  clock.advance(600_000);
  t.equal(h.share('preview', 'k', FULL).limit, FULL, 'two windows later: full');
  clock.advance(10 * 600_000);
  t.equal(h.share('preview', 'k', FULL).limit, FULL);
  t.equal(h.size, 0, 'a key decayed to nothing is forgotten when next looked at (memory stays bounded)');
});

t.test('bounded: at most maxKeys entries, the stalest dropped', async (t) => {
  const clock = new ManualClock(0);
  const h = new KeyHealth({ clock, windowMs: 600_000, slack: 1, maxKeys: 100 });
  for (let i = 0; i < 1_000; i++) h.record('preview', `k${i}`, 'expired');
  t.equal(h.size, 100);
  t.equal(h.counts('preview', 'k999').expired, 1);
  t.equal(h.counts('preview', 'k0').expired, 0);
});
