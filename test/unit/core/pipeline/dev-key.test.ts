import t from 'tap';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_KEY_FILE, devKey, devKeyBox } from '../../../../src/core/guards/dev-key.js';

t.test('without a state directory: a new key each start, and the box says how to keep it', async (t) => {
  const a = devKey('');
  const b = devKey('');
  t.match(a.raw, /^ngk_/);
  t.not(a.raw, b.raw);
  t.equal(a.file, undefined);
  t.match(devKeyBox(a), new RegExp(`development key \\(a new one each start; set NIGHTGATE_DEVNET_STATE_DIR to keep it\\): ${a.raw} `));
});

t.test('with a state directory: kept across restarts, owner-only, a damaged file replaced', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'nightgate-dev-key-')), 'state');
  const first = devKey(dir);
  const file = join(dir, DEV_KEY_FILE);
  t.equal(first.file, file);
  t.equal(statSync(file).mode & 0o777, 0o600, 'mode 0600');
  t.equal(devKey(dir).raw, first.raw, 'the same key after a restart');
  writeFileSync(file, 'not a key\n');
  const fresh = devKey(dir);
  t.not(fresh.raw, first.raw, 'a file that holds no key is replaced');
  t.equal(readFileSync(file, 'utf8').trim(), fresh.raw);
  t.match(devKeyBox(fresh), `development key (kept in ${file}): ${fresh.raw}`);
});

t.test('the box: the key on a line of its own, framed', async (t) => {
  const box = devKeyBox({ raw: 'ngk_0123456789abcdefghij0123' }).split('\n');
  t.equal(box.length, 5);
  t.match(box[0], /^┌─+┐$/);
  t.match(box[4], /^└─+┘$/);
  t.ok(
    box.every((l) => l.length === box[0]!.length),
    'every line the same width',
  );
  t.equal(box.filter((l) => l.includes('ngk_0123456789abcdefghij0123')).length, 1);
});
