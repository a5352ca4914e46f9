import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devnetSponsorSeeds, SPONSOR_SEEDS_FILE } from '../../../packages/devnet/src/sponsor-seeds.js';

t.test('without a state dir: fresh random seeds on every call', async (t) => {
  const a = devnetSponsorSeeds('', 'preview');
  const b = devnetSponsorSeeds('', 'preview');
  t.equal(a.length, 2);
  for (const s of [...a, ...b]) t.match(s, /^[0-9a-f]{64}$/);
  t.not(a[0], b[0]);
});

t.test('with a state dir: generated once, kept owner-only, read back; per network', async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'ng-seeds-'));
  t.teardown(() => rmSync(d, { recursive: true, force: true }));
  const first = devnetSponsorSeeds(d, 'preview');
  const path = join(d, 'preview', SPONSOR_SEEDS_FILE);
  t.equal(statSync(path).mode & 0o777, 0o600);
  t.same(JSON.parse(readFileSync(path, 'utf8')), first);
  t.same(devnetSponsorSeeds(d, 'preview'), first, 'the same seeds on the next start');
  t.not(devnetSponsorSeeds(d, 'preprod')[0], first[0], 'another network has its own');
  writeFileSync(path, '["abc"]');
  t.throws(() => devnetSponsorSeeds(d, 'preview'), /does not hold the devnet's sponsor DUST seeds/, 'a damaged file is refused, not replaced');
});
